/** Configuration, scope and bank routing, tag filters and redaction. */
export * from './codecs.js';
export * from './fields.js';
export * from './jsonText.js';
export * from './load.js';
export * from './redact.js';
export * from './resolve.js';
export * from './trust.js';
export * from './projectId.js';
export * from './scope.js';
export * from './switches.js';
export * from './tagFilter.js';
