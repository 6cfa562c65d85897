export * from './events.js';
export * from './context.js';
export * from './decide.js';
export * from './machine.js';
export * from './selectors.js';
