/**
 * The retired hand-off log is read once on upgrade: runs never confirmed are offered again,
 * every fingerprint reaches the cursor, and a torn line (a write that never returned) is skipped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readLegacyHandoff } from '../../../src/adapters/queue/legacyHandoff.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const job = (content: string) => ({ bankId: 'b', documentId: 'd', updateMode: 'append', item: { content } });
const line = (value: object): string => `${JSON.stringify(value)}\n`;

describe('legacy hand-off log', () => {
  it('returns the unconfirmed runs and every fingerprint, skips a torn line, and removes the file when asked', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'am-legacy-'));
    dirs.push(dir);
    const file = path.join(dir, 'retain-handoff.jsonl');
    await writeFile(
      file,
      line({ v: 1, kind: 'job', key: 'k1', sessionId: 's', fingerprints: ['f1'], jobs: [job('one')] }) +
        '{"v":1,"kind":"job","key":"k-torn","sessio\n' +
        line({ v: 1, kind: 'done', key: 'k1' }) +
        line({ v: 1, kind: 'job', key: 'k2', sessionId: 's', fingerprints: ['f2'], jobs: [job('two')] }),
    );
    const legacy = readLegacyHandoff(dir);
    expect(legacy?.open.map((r) => r.key)).toEqual(['k2']);
    expect(legacy?.open[0]?.jobs[0]?.item.content).toBe('two');
    expect([...(legacy?.seen.get('s') ?? [])].sort()).toEqual(['f1', 'f2']);
    legacy?.remove();
    expect(existsSync(file)).toBe(false);
    expect(readLegacyHandoff(dir)).toBeUndefined();
  });
});
