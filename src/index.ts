/** agent-memory public API: named exports only. */
export * from './machines/shared/index.js';
export * from './config/index.js';
export { createMemoryRuntime, type MemoryRuntime, type MemoryRuntimeOptions, type RuntimeStatus, type StartSessionInput } from './effects/memoryRuntime.js';
export * from './tools/index.js';
export { createToolContext } from './effects/tools.js';
