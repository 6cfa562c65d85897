/** `serve`'s one full collection after start-up: it frees what nothing holds, and leaves `gc` unexposed. */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { collectStartupGarbage } from '../../../src/hosts/cli/startupGarbage.js';

describe('collectStartupGarbage', () => {
  it('collects an object nothing holds, and no context made afterwards finds gc', async () => {
    const held = { rows: Array.from({ length: 10_000 }, (_, i) => `row ${i}`) };
    const ref = new WeakRef(held);
    const dropped = new WeakRef({ rows: Array.from({ length: 10_000 }, (_, i) => `row ${i}`) });
    // A WeakRef keeps its target until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectStartupGarbage();
    expect(dropped.deref()).toBeUndefined();
    expect(ref.deref()?.rows.length).toBe(10_000);
    expect(runInNewContext('typeof gc')).toBe('undefined');
    expect(held.rows[9_999]).toBe('row 9999');
  });
});
