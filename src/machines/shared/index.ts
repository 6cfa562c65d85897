export * from '../../codecs/codecs.js';
export * from '../../codecs/decode.js';
export * from './immerAssign.js';
export * from './eventOf.js';
