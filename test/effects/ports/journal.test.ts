/** The trace-grade file journal (session and setup gates) and the in-memory twin keep the same contract. */
import { appendFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTraceJournal, runJournalPath } from '../../../src/adapters/journal/traceJournal.js';
import { createMemoryJournal } from '../../helpers/memoryJournal.js';
import { describeJournalConformance } from './conformance/journal.js';

const tempFile = async (): Promise<string> => path.join(await mkdtemp(path.join(tmpdir(), 'am-journal-')), 'trace', 'session.journal.x.jsonl');

describeJournalConformance('trace journal (file)', async () => {
  const file = await tempFile();
  return { journal: openTraceJournal({ path: file }), reopen: async () => openTraceJournal({ path: file }) };
});

describeJournalConformance('memory journal (twin)', async () => ({ journal: createMemoryJournal() }));

describe('trace journal', () => {
  it('reports a torn last line as damage and keeps every whole record', async () => {
    const file = await tempFile();
    const journal = openTraceJournal({ path: file });
    await journal.append([{ type: 'a', at: '2026-11-23T10:00:00.000Z', payload: { type: 'a' } }]);
    await journal.close();
    await appendFile(file, '{"v":1,"seq":1,"ty');
    const loaded = await openTraceJournal({ path: file }).load();
    expect(loaded.records.map((r) => r.type)).toEqual(['a']);
    expect(loaded.damage).toHaveLength(1);
    expect(loaded.damage[0]?.reason).toMatch(/line 2/);
  });

  it('keeps the newest files of a gate and names the next one after its stamp', async () => {
    const dir = path.dirname(await tempFile());
    for (const stamp of ['1', '2', '3']) {
      const journal = openTraceJournal({ path: await runJournalPath(dir, 'setup', stamp, 2) });
      await journal.append([{ type: 'x', at: '2026-11-23T10:00:00.000Z', payload: {} }]);
      await journal.close();
    }
    const { readdir } = await import('node:fs/promises');
    expect((await readdir(dir)).sort()).toEqual(['setup.journal.2.jsonl', 'setup.journal.3.jsonl']);
  });
});
