/** The memory-server adapter: the HTTP client, its in-memory twin, and what callers may inspect. */
export { createMemoryServer, DEFAULT_USER_AGENT, defaultRetryOptions, type ClientOptions, type RetryOptions } from './client.js';
export { createMemoryTwin, type MemoryTwin, type MemoryTwinOptions, type TwinCall, type TwinFault } from './memoryTwin.js';
export { breakerFor, createBreaker, defaultBreakerOptions, forgetBreaker, type BreakerOptions, type BreakerPersistence, type CircuitBreaker } from './breaker.js';
export { breakerFile } from './breakerFile.js';
export {
  FLOOR_REMEDIATION,
  SERVER_FLOOR,
  atLeast,
  capabilityLabel,
  deriveCapabilities,
  floorFailure,
  forgetCapabilities,
  parseVersion,
} from './capabilities.js';
