/** `serve`'s bound on V8's old-generation growth, in fresh processes: the flag it sets is process-wide. */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MB = 1 << 20;
const module = fileURLToPath(new URL('../../../src/hosts/cli/oldGeneration.ts', import.meta.url));

/**
 * A child holding about 50 MB that lives as long as it does (a loaded bank), then making 3,000
 * rounds of garbage that stays reachable for a few event loop turns, so scavenges promote it
 * (what a server's requests leave). It runs with `serve`'s young-generation settings and reports
 * the largest heap it reached and the heap still live after a full collection at the end.
 */
const heapOf = (bounded: boolean): { peak: number; live: number } => {
  const script = `
    const { getHeapStatistics } = await import('node:v8');
    const kept = Array.from({ length: 40 }, (_, s) => Array.from({ length: 16_000 }, (_, i) => ({ s, i, text: 'kept ' + i })));
    // As serve does: once what it serves is loaded.
    ${bounded ? `(await import(${JSON.stringify(module)})).boundOldGenerationGrowth();` : ''}
    let peak = 0;
    let held = [];
    for (let round = 0; round < 3_000; round += 1) {
      held.push(Array.from({ length: 4_000 }, (_, i) => ({ round, i, text: 'request ' + i })));
      if (held.length > 8) held = held.slice(4);
      await new Promise((resolve) => setImmediate(resolve));
      peak = Math.max(peak, getHeapStatistics().total_heap_size);
    }
    held = [];
    globalThis.gc();
    process.stdout.write(JSON.stringify({ peak, live: getHeapStatistics().used_heap_size, kept: kept.length }));
  `;
  const flags = ['--expose-gc', '--no-allocation-site-pretenuring', '--max-semi-space-size=4', '--import', 'tsx', '--input-type=module', '-e', script];
  const out = execFileSync(process.execPath, flags, { encoding: 'utf8' });
  return JSON.parse(out) as { peak: number; live: number };
};

/**
 * Full collections in a child whose live heap grows by 150 steps of about 1.4 MB (an ingest):
 * 'none' V8's own growth, 'bound' the module's, 'fixed' a quarter's growth kept throughout.
 */
const majorsWhileGrowing = (growth: 'none' | 'bound' | 'fixed'): number => {
  const setup = {
    none: '',
    bound: `(await import(${JSON.stringify(module)})).boundOldGenerationGrowth();`,
    fixed: `(await import('node:v8')).setFlagsFromString('--heap-growing-percent=25');`,
  }[growth];
  const script = `
    const { PerformanceObserver, constants } = await import('node:perf_hooks');
    ${setup}
    let majors = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors += 1;
    }).observe({ entryTypes: ['gc'] });
    const kept = [];
    for (let step = 0; step < 150; step += 1) {
      kept.push(Array.from({ length: 16_000 }, (_, i) => ({ step, i, text: 'kept ' + i })));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.stdout.write(JSON.stringify({ majors, kept: kept.length }));
  `;
  const flags = ['--no-allocation-site-pretenuring', '--max-semi-space-size=4', '--import', 'tsx', '--input-type=module', '-e', script];
  const out: unknown = JSON.parse(execFileSync(process.execPath, flags, { encoding: 'utf8' }));
  return typeof out === 'object' && out !== null && 'majors' in out && typeof out.majors === 'number' ? out.majors : Number.NaN;
};

describe('boundOldGenerationGrowth', () => {
  it('left alone, V8 lets promoted garbage grow the heap to several times what is live', () => {
    const { peak, live } = heapOf(false);
    expect(live).toBeGreaterThan(30 * MB);
    expect(peak).toBeGreaterThan(3 * live);
  });

  it('bounded, the heap stays within two and a half times what is live', () => {
    const { peak, live } = heapOf(true);
    expect(live).toBeGreaterThan(30 * MB);
    expect(peak).toBeLessThan(2.5 * live);
  });

  it('while the live heap grows (an ingest), collects about as often as V8 alone, not at every quarter', () => {
    const own = majorsWhileGrowing('none');
    const bound = majorsWhileGrowing('bound');
    const fixed = majorsWhileGrowing('fixed');
    expect(bound).toBeLessThanOrEqual(own + 2);
    expect(fixed).toBeGreaterThan(bound);
  });
});
