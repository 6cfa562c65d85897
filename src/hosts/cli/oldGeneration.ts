/**
 * How far `serve` lets V8's old generation outgrow what is live before a full collection. A
 * server's recalls promote a few KB of garbage each (what a scavenge finds still held between
 * requests), and V8 lets the old generation reach up to four times its live size before it
 * collects it: a 20k bank's server, live at 67-72 MB, grew from 237 to 344 MB resident over
 * 40,000 recalls before its first full collection brought the heap back to 72 MB. Growing by a
 * quarter instead, a full collection comes every few thousand recalls (2-23 ms each, marked
 * concurrently) and the same run stayed at 194-195 MB.
 *
 * Only while what is live holds steady: an ingest grows the live heap itself, and a full
 * collection at every quarter's growth cost a 100k sync ingest 6-17% more CPU per item. So after
 * each full collection the live size is compared with the last one's: growing by more than a
 * tenth, V8's own factor applies; otherwise the bound. V8 reads the factor each time it sets the
 * next limit, so setting it at run time takes effect from the next collection.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/** Old-generation growth beyond the live size, in percent, before the next full collection. */
const GROWING_PERCENT = 25;

/** Live heap grown by more than this share since the last full collection is an ingest, not garbage. */
const GROWING_LIVE = 0.1;

const setGrowingPercent = (percent: number): void => {
  // 0 is V8's own choice (up to four times the live size).
  setFlagsFromString(`--heap-growing-percent=${percent}`);
};

/** Bounds the growth from now on, and hands it back to V8 after any full collection that found the live heap growing. */
export const boundOldGenerationGrowth = (percent: number = GROWING_PERCENT): void => {
  const bounded = Math.max(1, Math.round(percent));
  setGrowingPercent(bounded);
  let lastLive = getHeapStatistics().used_heap_size;
  let current = bounded;
  const observer = new PerformanceObserver((list) => {
    const major = list.getEntries().some((entry) => {
      const detail: unknown = 'detail' in entry ? entry.detail : undefined;
      return typeof detail === 'object' && detail !== null && 'kind' in detail && detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
    });
    if (!major) return;
    const live = getHeapStatistics().used_heap_size;
    const next = live > lastLive * (1 + GROWING_LIVE) ? 0 : bounded;
    lastLive = live;
    if (next !== current) setGrowingPercent(next);
    current = next;
  });
  observer.observe({ entryTypes: ['gc'] });
};
