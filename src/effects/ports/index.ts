/**
 * The ports effects are written against. Each port lives in its own file under `ports/`;
 * adapters implement them, and each has an in-memory twin for tests.
 */
export * from './clock.js';
export * from './journal.js';
export * from './trace.js';
export * from './memoryServer.js';
