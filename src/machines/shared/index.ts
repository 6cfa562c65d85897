export * from './codecs.js';
export * from './decode.js';
export * from './immerAssign.js';
export * from './eventOf.js';
