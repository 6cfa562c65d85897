/** agent-memory public API: named exports only. */
export * from './machines/shared/index.js';
export * from './config/index.js';
