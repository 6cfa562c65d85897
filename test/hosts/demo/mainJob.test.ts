import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMainJob } from '../../../src/hosts/demo/mainJob.js';

const workspace = mkdtempSync(path.join(tmpdir(), 'am-mainjob-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe('the main job (npm start)', () => {
  it('retains in one real pi session, recalls into the next, keeps the transcript clean, writes the visualiser', async () => {
    const lines: string[] = [];
    const report = await runMainJob({ workspace, log: (l) => lines.push(l) });
    expect(report.recalledBlock).toContain('<memory-recall>');
    expect(report.recalledBlock).toContain('scripts/ship.sh');
    expect(report.sessionFileHasBlock).toBe(false);
    expect(report.answer).toContain('scripts/ship.sh');
    expect(lines.join('\n')).toContain('byte-identical memory');
    // Every line is words a person reads: no object dumped as JSON but the two config files' contents.
    expect(lines.join('\n')).toMatch(/delivered 1 job to bank demo-shop in \d+ ms; 0 refused, 0 still queued/);
    expect(lines.filter((l) => l.includes('{"') && !/memory\.json: \{/.test(l))).toEqual([]);
    // The job's own config files hold only fields memory reads: no start-up warning about them.
    expect(lines.join('\n')).not.toContain('Memory config:');
    // recall.storeLastRecall (the field the project file sets) wrote the last recall beside the queue.
    expect(lines).toContain('      .pi/memory/last-recall.json');
    // Every step printed, in order.
    expect(lines.filter((l) => /^\n\[\d\/6\]/.test(l)).map((l) => l.trim().slice(0, 5))).toEqual(['[1/6]', '[2/6]', '[3/6]', '[4/6]', '[5/6]', '[6/6]']);
    const page = readFileSync(report.visualiser, 'utf8');
    expect(page).toContain('data-gate="session"');
    expect(page).toContain('"gate":"retainDelivery"');
    expect(existsSync(path.join(workspace, 'project', '.pi', 'memory', 'retain-queue.jsonl'))).toBe(true);
  }, 60_000);
});
