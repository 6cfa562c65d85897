export * from './events.js';
export * from './context.js';
export * from './machine.js';
export * from './selectors.js';
export * from './person.js';
