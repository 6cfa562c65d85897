/**
 * Long analysis runs in slices. The server is one event loop shared by every bank: a retain of
 * megabytes analysed in one go (entities, chunks, the search index, observations) held another
 * bank's recall for seconds, past the automatic recall's 1.5 s deadline. Work that grows with
 * the input goes through `mapSliced`, which hands the loop back (`setImmediate`) whenever a
 * slice has run `SLICE_MS`, so queued requests of other banks are served in between.
 *
 * Wall time, not the server clock: slicing decides nothing a test asserts, and a test's
 * manual clock would never let a slice end.
 */
import { performance } from 'node:perf_hooks';

/** Longest stretch of analysis between two turns of the event loop. */
const SLICE_MS = 20;

export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A slice timer: `due()` says the current slice has run its time. */
export interface SliceTimer {
  due(): boolean;
  restart(): void;
}

export const sliceTimer = (): SliceTimer => {
  let started = performance.now();
  return {
    due: () => performance.now() - started >= SLICE_MS,
    restart: () => {
      started = performance.now();
    },
  };
};

/** `items.map(fn)`, yielding to the event loop between slices. */
export const mapSliced = async <A, B>(items: readonly A[], fn: (item: A, index: number) => B): Promise<B[]> => {
  const out: B[] = [];
  const slice = sliceTimer();
  for (const [i, item] of items.entries()) {
    if (slice.due()) {
      await yieldToLoop();
      slice.restart();
    }
    out.push(fn(item, i));
  }
  return out;
};

/**
 * Runs a generator to its end, yielding to the event loop between slices of its steps. Work
 * made of many generators (one per item) shares one `slice`, so short ones still add up to it.
 * `pause` is how it yields (background work also waits for a pause in requests).
 */
export const runSliced = async <R>(steps: Generator<unknown, R>, slice = sliceTimer(), pause: () => Promise<void> = yieldToLoop): Promise<R> => {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (slice.due()) {
      await pause();
      slice.restart();
    }
  }
};

/** Runs a generator to its end at once (the same work as `runSliced`, for a caller that cannot wait). */
export const runAtOnce = <R>(steps: Generator<unknown, R>): R => {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
};
