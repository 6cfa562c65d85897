/**
 * Retain-delivery context: the pending jobs (a fold of the journal), dead letters, the batch in
 * flight, and what status shows. Pending jobs are kept in chunks so that folding a long
 * journal copies one chunk per event, not the whole queue (immer copies what it touches).
 */
import { castDraft, type Draft } from 'immer';
import { defaultBackoff, type BackoffPolicy } from './decide.js';
import type { DeadLetter, DeliveryReceipt, InFlightBatch, RetainJob } from './events.js';

export type DeliveryMode = 'immediate' | 'coalesced';

export interface LastDelivery {
  readonly at: number;
  readonly jobCount: number;
  readonly receipt: DeliveryReceipt;
}

export interface LastError {
  readonly at: number;
  readonly reason: string;
}

export interface RetainDeliveryContext {
  readonly mode: DeliveryMode;
  /**
   * The owner tag this process puts on the batches it starts (`retain.opened`); null until the
   * queue is opened live, so a fold of the journal is not read as anyone's. A batch in flight
   * with another owner is another process's.
   */
  readonly owner: string | null;
  /** Retry pacing; the machine decides each retry time from it (decide.ts). */
  readonly backoff: BackoffPolicy;
  /** Pending jobs in queue order, in chunks of at most `CHUNK_SIZE`. */
  readonly pending: readonly (readonly RetainJob[])[];
  readonly depth: number;
  readonly deadLetters: readonly DeadLetter[];
  /** The batch sent and not yet answered; re-sent with the same key after a restart. */
  readonly inFlight: InFlightBatch | null;
  /** Consecutive retryable failures, for the backoff. */
  readonly failures: number;
  /** Deadline of the current backoff (epoch ms). */
  readonly retryAt: number | null;
  readonly pausedReason: string | null;
  readonly lastDelivery: LastDelivery | null;
  readonly lastError: LastError | null;
  /** Why the last delivery attempt did not start (another process holds the lease, ...). */
  readonly lastSkip: string | null;
  /** A flush was asked for: keep delivering until the queue is empty or delivery stops. */
  readonly flushActive: boolean;
  /** Latest event time seen: the machine's notion of now. */
  readonly now: number;
  /**
   * Ids of jobs delivered or dropped lately, oldest first, in chunks, at most `RECENT_KEYS`:
   * a copy of one of them queued again (a hand-off re-offered by another process) is dropped.
   */
  readonly recent: readonly (readonly string[])[];
}

export interface RetainDeliveryInput {
  readonly mode: DeliveryMode;
  readonly backoff?: BackoffPolicy;
}

export const CHUNK_SIZE = 512;
/** How many delivered job ids the machine remembers for dedupe. */
export const RECENT_KEYS = 4096;

export const initialContext = (input: RetainDeliveryInput): RetainDeliveryContext => ({
  mode: input.mode,
  owner: null,
  backoff: input.backoff ?? defaultBackoff,
  pending: [],
  depth: 0,
  deadLetters: [],
  inFlight: null,
  failures: 0,
  retryAt: null,
  pausedReason: null,
  lastDelivery: null,
  lastError: null,
  lastSkip: null,
  flushActive: false,
  now: 0,
  recent: [],
});

/** The batch in flight is another process's: this one only watches for its outcome. */
export const waitsOnOtherProcess = (context: RetainDeliveryContext): boolean =>
  context.owner !== null && context.inFlight !== null && context.inFlight.owner !== context.owner;

/** Every pending job, in order. */
export const pendingJobs = (context: RetainDeliveryContext): RetainJob[] => context.pending.flat();

// Index and key loops, not Object.values: a fold freezes 100k jobs and their items, and an
// array of values per object cost four times the freezing itself (jobs are plain JSON data).
const deepFreeze = <T>(value: T): T => {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (let i = 0; i < value.length; i += 1) deepFreeze<unknown>(value[i]);
  else for (const key in value) deepFreeze(value[key]);
  return value;
};

/** A chunk frozen before it enters the draft: immer neither walks nor re-freezes it. */
const frozenChunk = (jobs: readonly RetainJob[]): Draft<RetainJob[]> => castDraft(deepFreeze([...jobs]));

// Chunks of recent ids are frozen and never change, so the set of each is computed once and
// remembered (a memo of a pure function: the machine stays pure). A membership test then costs
// one lookup per chunk, and a fold stays linear.
const setOfRecentChunk = new WeakMap<object, ReadonlySet<string>>();
const recentChunkIds = (chunk: readonly string[]): ReadonlySet<string> => {
  let ids = setOfRecentChunk.get(chunk);
  if (ids === undefined) {
    ids = new Set(chunk);
    setOfRecentChunk.set(chunk, ids);
  }
  return ids;
};

// A long queue has hundreds of chunks: ids are indexed per run of GROUP chunks, so a lookup
// asks a few group sets, not every chunk. A group's set is reused only when each of its chunks
// is the same (frozen) chunk as when it was built, so it is never stale. A queue grows at its
// end: when the chunks asked for are the cached ones plus jobs after them (the last cached chunk
// refilled with more jobs, then new chunks), the set takes the new ids and moves to the longer
// run; the shorter run, asked again, builds its own.
const GROUP = 32;
interface GroupIndex {
  readonly chunks: readonly (readonly RetainJob[])[];
  readonly ids: Set<string>;
}
const groupsByFirstChunk = new WeakMap<object, GroupIndex>();

/** `chunks` begins with `cached`: the same chunks, the last of them possibly refilled at its end. */
const growsFrom = (chunks: readonly (readonly RetainJob[])[], cached: readonly (readonly RetainJob[])[]): boolean => {
  const n = cached.length;
  if (n === 0 || chunks.length < n) return false;
  for (let i = 0; i < n - 1; i += 1) if (chunks[i] !== cached[i]) return false;
  const before = cached[n - 1] ?? [];
  const after = chunks[n - 1] ?? [];
  if (after === before) return true;
  if (after.length < before.length) return false;
  for (let i = 0; i < before.length; i += 1) if (after[i] !== before[i]) return false;
  return true;
};

const groupIds = (chunks: readonly (readonly RetainJob[])[]): ReadonlySet<string> => {
  const first = chunks[0] ?? [];
  const cached = groupsByFirstChunk.get(first);
  if (cached !== undefined && cached.chunks.length === chunks.length && cached.chunks.every((chunk, i) => chunk === chunks[i])) return cached.ids;
  let ids: Set<string>;
  let from = 0;
  if (cached !== undefined && growsFrom(chunks, cached.chunks)) {
    ids = cached.ids;
    from = cached.chunks.length - 1;
  } else ids = new Set<string>();
  for (let i = from; i < chunks.length; i += 1) for (const job of chunks[i] ?? []) ids.add(job.jobId);
  groupsByFirstChunk.set(first, { chunks: [...chunks], ids });
  return ids;
};

/** The id sets that together hold every pending id. */
const pendingIdSets = (pending: readonly (readonly RetainJob[])[]): ReadonlySet<string>[] => {
  const sets: ReadonlySet<string>[] = [];
  for (let i = 0; i < pending.length; i += GROUP) sets.push(groupIds(pending.slice(i, i + GROUP)));
  return sets;
};

/**
 * The jobs of an enqueue that are new: a job whose id is pending, dead-lettered or recently
 * delivered is a copy (ids are derived from the job, so a re-offered hand-off has the same id).
 */
export const freshJobs = (context: RetainDeliveryContext, jobs: readonly RetainJob[]): RetainJob[] => {
  // Looked up once per enqueue, not once per job.
  const known = [
    ...pendingIdSets(context.pending),
    ...context.recent.map(recentChunkIds),
    new Set<string>(context.deadLetters.map((dead) => dead.job.jobId)),
  ];
  const seen = new Set<string>();
  return jobs.filter((job) => {
    if (seen.has(job.jobId)) return false;
    for (const ids of known) if (ids.has(job.jobId)) return false;
    seen.add(job.jobId);
    return true;
  });
};

/** Every recently delivered or dropped id, oldest first. */
export const recentIds = (context: RetainDeliveryContext): string[] => context.recent.flat();

/** Remembers ids as delivered or dropped; the oldest beyond `RECENT_KEYS` are forgotten. */
export const rememberIds = (draft: Draft<RetainDeliveryContext>, original: RetainDeliveryContext, ids: readonly string[]): void => {
  if (ids.length === 0) return;
  const chunks: (readonly string[])[] = [...original.recent];
  let rest = [...ids];
  const last = chunks[chunks.length - 1];
  if (last !== undefined && last.length < CHUNK_SIZE) {
    const take = rest.slice(0, CHUNK_SIZE - last.length);
    chunks[chunks.length - 1] = Object.freeze([...last, ...take]);
    rest = rest.slice(take.length);
  }
  for (let i = 0; i < rest.length; i += CHUNK_SIZE) chunks.push(Object.freeze(rest.slice(i, i + CHUNK_SIZE)));
  let total = chunks.reduce((n, chunk) => n + chunk.length, 0);
  while (total > RECENT_KEYS && chunks.length > 1) total -= chunks.shift()?.length ?? 0;
  draft.recent = castDraft(chunks);
};

/**
 * Appends jobs to the draft's pending chunks, built outside the draft so immer sees one write
 * per chunk rather than one per job. Callers pass `freshJobs`: copies are dropped before this.
 */
export const addPending = (draft: Draft<RetainDeliveryContext>, original: RetainDeliveryContext, jobs: readonly RetainJob[]): void => {
  if (jobs.length === 0) return;
  const lastIndex = original.pending.length - 1;
  const last = original.pending[lastIndex];
  const room = last === undefined ? 0 : CHUNK_SIZE - last.length;
  let next = 0;
  if (last !== undefined && room > 0) {
    next = Math.min(room, jobs.length);
    draft.pending[lastIndex] = frozenChunk([...last, ...jobs.slice(0, next)]);
  }
  for (; next < jobs.length; next += CHUNK_SIZE) draft.pending.push(frozenChunk(jobs.slice(next, next + CHUNK_SIZE)));
  draft.depth = original.depth + jobs.length;
};

/**
 * Removes jobs by id; returns the removed jobs in queue order. Only chunks holding one of
 * the ids are touched (deliveries come from the front, so usually the first few).
 */
export const removePending = (
  draft: Draft<RetainDeliveryContext>,
  original: RetainDeliveryContext,
  ids: readonly string[],
): RetainJob[] => {
  const wanted = new Set(ids);
  const removed: RetainJob[] = [];
  if (wanted.size === 0) return removed;
  const kept: (readonly RetainJob[])[] = [];
  let changed = false;
  let remaining = wanted.size;
  for (const chunk of original.pending) {
    if (remaining === 0 || !chunk.some((job) => wanted.has(job.jobId))) {
      kept.push(chunk);
      continue;
    }
    changed = true;
    const rest = chunk.filter((job) => {
      if (!wanted.has(job.jobId)) return true;
      removed.push(job);
      remaining -= 1;
      return false;
    });
    if (rest.length > 0) kept.push(rest);
  }
  if (changed) {
    draft.pending = castDraft(kept);
    draft.depth = original.depth - removed.length;
  }
  return removed;
};

/** Finds pending jobs by id, in queue order. */
export const findPending = (context: RetainDeliveryContext, ids: readonly string[]): RetainJob[] => {
  const wanted = new Set(ids);
  const out: RetainJob[] = [];
  for (const chunk of context.pending) {
    for (const job of chunk) if (wanted.has(job.jobId)) out.push(job);
    if (out.length === wanted.size) break;
  }
  return out;
};
