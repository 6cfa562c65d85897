/** `serve`'s cap on V8's young generation, in fresh processes: the flags it sets are process-wide. */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MB = 1 << 20;
const module = fileURLToPath(new URL('../../../src/hosts/cli/youngGeneration.ts', import.meta.url));

/**
 * The young generation's size after a child kept 40 MB of objects made in 1 MB steps, one event
 * loop turn each (long-lived survivors, as a server's start-up makes); `cap` is the cap set
 * before, in MB ('none': not called).
 */
const sizeAfterSurvivors = (cap: number | 'none'): { before: number; after: number } => {
  const script = `
    const { getHeapSpaceStatistics } = await import('node:v8');
    const size = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const before = size();
    ${cap === 'none' ? '' : `(await import(${JSON.stringify(module)})).capYoungGeneration(${cap} * ${MB});`}
    const kept = [];
    for (let step = 0; step < 40; step += 1) {
      kept.push(Array.from({ length: 16_000 }, (_, i) => ({ step, i, text: 'row ' + i })));
      await new Promise((resolve) => setImmediate(resolve));
    }
    process.stdout.write(JSON.stringify({ before, after: size(), kept: kept.length }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out) as { before: number; after: number };
};

describe('capYoungGeneration', () => {
  it('left alone, V8 grows the young generation past 16 MB for such survivors', () => {
    const { before, after } = sizeAfterSurvivors('none');
    expect(before).toBeLessThan(16 * MB);
    expect(after).toBeGreaterThan(16 * MB);
  });

  it('lets it grow to the cap and holds it there', () => {
    const { before, after } = sizeAfterSurvivors(16);
    expect(before).toBeLessThan(16 * MB);
    expect(after).toBe(16 * MB);
  });

  it('holds one already at the cap where it is', () => {
    const { before } = sizeAfterSurvivors('none');
    const held = sizeAfterSurvivors(before / MB);
    expect(held.after).toBe(before);
  });
});
