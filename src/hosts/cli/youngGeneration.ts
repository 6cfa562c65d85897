/**
 * How large `serve` lets V8's young generation grow. By default it doubles at each scavenge whose
 * survivors outgrow it, up to two 16 MB semi-spaces (32 MB, all of it resident once used).
 * Start-up's survivors (the loaded bank, which lives as long as the server) grew it to that
 * maximum before the first request, and at 100k memories it was then the largest part of the
 * peak RSS besides the `node` binary, while a recall's 0.5 MB are garbage by the next scavenge.
 * Held at 8 MB (the size loading the CLI already gives it), what start-up loads is promoted at
 * once and a recall's scavenge comes every several recalls instead of every few dozen; what
 * recalls keep across that (the store's record cache) must then be small enough to die young.
 * V8 reads the growth factor at each scavenge, so setting it at run time takes effect; the
 * semi-spaces' maximum is fixed when the heap is made, before any of this code runs.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** Both semi-spaces together. */
const CAP_BYTES = 8 << 20;

const newSpaceBytes = (): number => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

/** From here on the young generation keeps the size it has (V8's growth factor 1). */
const hold = (): void => {
  setFlagsFromString('--semi-space-growth-factor=1');
};

/**
 * Lets the young generation grow as V8 does by default (doubling) until it reaches `capBytes`,
 * then holds it there: checked after each collection, and no longer once held. One already
 * that large is held where it is (V8 shrinks it only in a memory-reducing collection).
 */
export const capYoungGeneration = (capBytes: number = CAP_BYTES): void => {
  if (newSpaceBytes() >= capBytes) {
    hold();
    return;
  }
  setFlagsFromString('--semi-space-growth-factor=2');
  const observer = new PerformanceObserver(() => {
    if (newSpaceBytes() < capBytes) return;
    hold();
    observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
};
