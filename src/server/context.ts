/**
 * What every route handler can reach: the store, the search indexes, the operation runner,
 * the fault rules, the clock, and which Hindsight version the server mimics.
 */
import type { ServerClock } from './clock.js';
import type { FaultSet } from './faults.js';
import type { Foreground } from './foreground.js';
import type { OperationRunner } from './operations.js';
import type { SearchIndexes } from './search/indexes.js';
import type { ServerStore } from './store/store.js';

/** `0.9` = Hindsight 0.9.1; `0.10` retires bank profile routes (410); `legacy-0.7` hides later features. */
export type Mimic = '0.9' | '0.10' | 'legacy-0.7';

export const apiVersionOf = (mimic: Mimic): string => (mimic === '0.10' ? '0.10.0' : mimic === 'legacy-0.7' ? '0.7.0' : '0.9.1');

import type { AuditLog } from './features/auditLog.js';
import type { WebhookDispatcher } from './features/webhooks.js';

export interface ServerContext {
  readonly store: ServerStore;
  readonly search: SearchIndexes;
  readonly operations: OperationRunner;
  /** Requests in flight: background work waits for a pause in them. */
  readonly foreground: Foreground;
  readonly faults: FaultSet;
  readonly clock: ServerClock;
  readonly mimic: Mimic;
  /** The version `/version` reports and route gating uses. */
  readonly apiVersion: string;
  /** `clock.now()` as an ISO string with offset, as Hindsight writes timestamps. */
  readonly nowIso: () => string;
  /** Successful writes per bank, for `GET {b}/audit-logs` (in memory). */
  readonly audit: AuditLog;
  /** Delivers events (`retain.completed`) to the bank's webhooks. */
  readonly webhooks: WebhookDispatcher;
}
