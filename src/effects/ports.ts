/**
 * The ports effects are written against. Each port lives in its own file under `ports/`;
 * adapters implement them, and each has an in-memory twin for tests.
 */
export * from './ports/clock.js';
export * from './ports/journal.js';
export * from './ports/trace.js';
export * from './ports/memoryServer.js';
