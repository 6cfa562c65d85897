/**
 * The inspection stream: every event, transition and effect outcome of a runtime, in order.
 * The visualiser replays it and tests assert on it.
 */
import type { JsonValue } from '../../codecs/codecs.js';

export type TraceKind = 'event' | 'transition' | 'effect' | 'rejected';

export interface TraceRecord {
  readonly gate: string;
  readonly kind: TraceKind;
  readonly at: string;
  readonly data: JsonValue;
}

export interface TracePort {
  write(record: TraceRecord): void;
}
