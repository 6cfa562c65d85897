/**
 * The journal port: an append-only log of a gate's external inputs. State is the fold of
 * the journal through the machine's pure `transition()`; snapshots are only a cache.
 */
import type { JournalRecord } from '../../codecs/codecs.js';
import type { JsonValue } from '../../codecs/codecs.js';

/** What a caller appends: the adapter assigns `seq`, `v` and `checksum`. */
export interface JournalEntry {
  readonly type: string;
  /** ISO time the input happened; metadata, machines read time from payloads. */
  readonly at: string;
  readonly payload: JsonValue;
}

/** A record that could not be read back (torn, bad checksum, undecodable): kept aside, reported. */
export interface JournalDamage {
  readonly line: number;
  readonly reason: string;
  /** Where the damaged bytes were moved, so nothing is silently dropped. */
  readonly quarantinedTo?: string;
}

export interface JournalLoad {
  readonly records: readonly JournalRecord[];
  readonly damage: readonly JournalDamage[];
}

export interface JournalPort {
  /** Appends entries in order; resolves only once they are durable (fsync'd for files). */
  append(entries: readonly JournalEntry[]): Promise<readonly JournalRecord[]>;
  /**
   * `append`, done when it returns (throws on failure). A journal that has it lets its gate
   * dispatch synchronously, so a host that never awaits its hook (pi's `agent_end`) still has
   * the input journaled, and the gate's decision made, before the hook returns.
   */
  appendSync?(entries: readonly JournalEntry[]): readonly JournalRecord[];
  /** Reads every intact record in order; damaged records are reported, never thrown. */
  load(): Promise<JournalLoad>;
  /**
   * Replaces the log with `entries` (a snapshot of what is still live), atomically:
   * a crash during compaction leaves either the old log or the new one, never a mix.
   */
  compact(entries: readonly JournalEntry[]): Promise<void>;
  close(): Promise<void>;
}
