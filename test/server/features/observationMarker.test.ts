import { appendFile, copyFile, mkdtemp, readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createConsolidator } from '../../../src/server/features/consolidator.js';
import { observationCodeId } from '../../../src/server/features/observationCode.js';
import { newBank } from '../../../src/server/routes/bankOps.js';
import type { FactRecord, Mutation } from '../../../src/server/store/model.js';
import { COVERED_KIND } from '../../../src/server/store/state.js';
import { openStore } from '../../../src/server/store/store.js';
import type { ServerStore } from '../../../src/server/store/store.js';
import { call, spawnServerProcess } from '../../helpers/embeddedServer.js';
import type { ServerProcess } from '../../helpers/embeddedServer.js';

// A restart of a bank whose facts did not change since its last complete observation pass does
// not run the pass again (issue 30); every other start does, as before.

const NOW = '2026-02-01T00:00:00+00:00';
const dirs: string[] = [];
const children: ServerProcess[] = [];

afterAll(async () => {
  for (const c of children) await c.kill();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'am-obs-marker-'));
  dirs.push(dir);
  return dir;
};

const fact = (id: string, text: string, documentId: string): FactRecord => ({
  id,
  text,
  fact_type: 'world',
  document_id: documentId,
  chunk_id: null,
  tags: [],
  created_at: NOW,
  mentioned_at: NOW,
});

const documentPut = (bankId: string, documentId: string, facts: FactRecord[]): Mutation => ({
  type: 'document.put',
  bank_id: bankId,
  document: { id: documentId, original_text: facts.map((f) => f.text).join('\n'), content_hash: null, created_at: NOW, updated_at: NOW, tags: [], retain_params: {} },
  chunks: [],
  facts,
});

const SOURCES: readonly (readonly [string, string])[] = [
  ['f1', 'Builds use turbo caching.'],
  ['f2', 'Turbo caching saves minutes on every build.'],
  ['f3', 'The deploy pipeline runs on Fridays.'],
  ['f4', 'Fridays are for the deploy pipeline review.'],
];

const seed = async (store: ServerStore, bankId = 'b'): Promise<void> => {
  await store.commit([{ type: 'bank.put', bank: newBank(bankId, NOW) }, ...SOURCES.map(([id, text]) => documentPut(bankId, `d-${id}`, [fact(id, text, `d-${id}`)]))]);
};

/** The bank's observations as a full pass leaves them (text, sources), in a fixed order. */
const observationsOf = (store: ServerStore, bankId = 'b'): string[] =>
  [...(store.bank(bankId)?.facts.values() ?? [])]
    .filter((f) => f.fact_type === 'observation')
    .map((f) => `${f.id} ${f.text} ${[...(f.source_fact_ids ?? [])].sort().join(',')}`)
    .sort();

/** Opens the data dir, runs `fn` with a consolidator over it (settling never: only `ensureFresh` passes), closes both. */
const withStore = async <T>(dir: string, fn: (store: ServerStore, consolidator: ReturnType<typeof createConsolidator>) => Promise<T>): Promise<T> => {
  const store = await openStore({ dataDir: dir });
  const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 3_600_000 });
  try {
    return await fn(store, consolidator);
  } finally {
    await consolidator.close();
    await store.close();
  }
};

/** A data dir with the seeded bank passed over once (marker written); returns its observations. */
const consolidated = async (dir: string): Promise<string[]> =>
  withStore(dir, async (store, consolidator) => {
    await seed(store);
    await consolidator.ensureFresh('b');
    expect(consolidator.isDirty('b')).toBe(false);
    expect(store.bank('b')?.records.get(COVERED_KIND)?.size).toBe(1);
    return observationsOf(store);
  });

/** The observations a fresh, in-memory full pass gives over the seeded sources. */
const fullPass = async (): Promise<string[]> => {
  const store = await openStore();
  const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 3_600_000 });
  await seed(store);
  await consolidator.ensureFresh('b');
  await consolidator.close();
  return observationsOf(store);
};

describe('observation pass marker over a real store (restart)', () => {
  it('the code that computes observations is named (a hash), so a marker can match', () => {
    expect(observationCodeId()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a bank consolidated, then restarted: not dirty, the pass does not run, observations as a full pass gives', async () => {
    const dir = await tempDir();
    const before = await consolidated(dir);
    expect(before.length).toBeGreaterThan(0);
    await withStore(dir, async (store, consolidator) => {
      expect(consolidator.isDirty('b')).toBe(false);
      const position = store.logPosition();
      await consolidator.ensureFresh('b');
      // No pass: nothing was committed (a pass with no marker to match always writes one).
      expect(store.logPosition()).toBe(position);
      expect(observationsOf(store)).toEqual(before);
    });
    expect(before).toEqual(await fullPass());
  });

  it('also across a snapshot (the marker in the segment) and a second restart', async () => {
    const dir = await tempDir();
    await consolidated(dir);
    await withStore(dir, async (store) => {
      await store.snapshotNow();
    });
    await withStore(dir, (_store, consolidator) => {
      expect(consolidator.isDirty('b')).toBe(false);
      return Promise.resolve();
    });
  });

  it('a source change after the pass, then restart: the pass runs and gives what a full pass gives', async () => {
    const dir = await tempDir();
    await consolidated(dir);
    const extra = fact('f5', 'Turbo caching also speeds up the deploy pipeline.', 'd-f5');
    await withStore(dir, async (store) => {
      await store.commit([documentPut('b', 'd-f5', [extra])]);
      expect(store.bank('b')?.records.get(COVERED_KIND)).toBeUndefined();
    });
    const after = await withStore(dir, async (store, consolidator) => {
      expect(consolidator.isDirty('b')).toBe(true);
      await consolidator.ensureFresh('b');
      expect(consolidator.isDirty('b')).toBe(false);
      return observationsOf(store);
    });
    const fresh = await openStore();
    const c = createConsolidator({ store: fresh, nowIso: () => NOW, settleMs: 3_600_000 });
    await seed(fresh);
    await fresh.commit([documentPut('b', 'd-f5', [extra])]);
    await c.ensureFresh('b');
    await c.close();
    expect(after).toEqual(observationsOf(fresh));
    // And the pass's marker holds for the next restart.
    await withStore(dir, (_store, consolidator) => {
      expect(consolidator.isDirty('b')).toBe(false);
      return Promise.resolve();
    });
  });

  it('an edit, a deletion or an observation written by hand after the pass drops the marker', async () => {
    for (const change of [
      { type: 'facts.put', bank_id: 'b', facts: [{ ...fact('f1', 'Builds use turbo caching.', 'd-f1'), state: 'invalidated' }] },
      { type: 'facts.delete', bank_id: 'b', ids: ['f2'] },
      { type: 'document.delete', bank_id: 'b', document_id: 'd-f3' },
      { type: 'facts.put', bank_id: 'b', facts: [{ ...fact('o-hand', 'by hand', 'x'), fact_type: 'observation', document_id: null }] },
    ] satisfies Mutation[]) {
      const dir = await tempDir();
      await consolidated(dir);
      await withStore(dir, async (store) => {
        await store.commit([change]);
      });
      await withStore(dir, (_store, consolidator) => {
        expect(consolidator.isDirty('b'), change.type).toBe(true);
        return Promise.resolve();
      });
    }
  });

  it('a crash before the pass commit is whole (its line torn): the pass runs on restart', async () => {
    const dir = await tempDir();
    const crashed = await tempDir();
    const store = await openStore({ dataDir: dir });
    const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 3_600_000 });
    try {
      await seed(store);
      const logName = (await readdir(dir)).filter((n) => n.startsWith('log-')).sort().at(-1) ?? '';
      const intact = (await stat(join(dir, logName))).size;
      await consolidator.ensureFresh('b');
      // What a SIGKILL right after the pass's commit leaves (no snapshot, no close): the files as they are.
      for (const name of await readdir(dir)) if (name !== 'server.lock') await copyFile(join(dir, name), join(crashed, name));
      const passLine = (await readFile(join(crashed, logName))).subarray(intact);
      // The pass writes its observations and the marker as one commit, one log line; a crash
      // while it is written leaves part of it, which start-up cuts off whole.
      expect(passLine.toString('utf8')).toContain(COVERED_KIND);
      expect(passLine.toString('utf8')).toContain('"observation"');
      await truncate(join(crashed, logName), intact);
      await appendFile(join(crashed, logName), passLine.subarray(0, Math.floor(passLine.length / 2)));
    } finally {
      await consolidator.close();
      await store.close();
    }
    const after = await withStore(crashed, async (again, restarted) => {
      expect(again.loadReport.truncatedBytes).toBeGreaterThan(0);
      expect(observationsOf(again)).toEqual([]);
      expect(restarted.isDirty('b')).toBe(true);
      await restarted.ensureFresh('b');
      return observationsOf(again);
    });
    expect(after).toEqual(await fullPass());
    await withStore(crashed, (_store, restarted) => {
      expect(restarted.isDirty('b')).toBe(false);
      return Promise.resolve();
    });
  });

  it('a data dir without markers (written before them): every bank is dirty, and gets its marker from the pass', async () => {
    const dir = await tempDir();
    await consolidated(dir);
    // What main's build left: the observations written, no marker record (drop it by hand).
    await withStore(dir, async (store) => {
      await store.commit([{ type: 'record.delete', bank_id: 'b', kind: COVERED_KIND, id: 'observations' }]);
      await store.snapshotNow();
    });
    await withStore(dir, async (store, consolidator) => {
      expect(store.bank('b')?.records.get(COVERED_KIND)?.size ?? 0).toBe(0);
      expect(consolidator.isDirty('b')).toBe(true);
      await consolidator.ensureFresh('b');
      // Nothing to change in the observations; the marker alone was written.
      expect(observationsOf(store)).toEqual(await fullPass());
      expect(store.bank('b')?.records.get(COVERED_KIND)?.size).toBe(1);
    });
  });

  it('a marker written by other code (another build) does not match: the pass runs', async () => {
    const dir = await tempDir();
    await consolidated(dir);
    await withStore(dir, async (store) => {
      await store.commit([{ type: 'record.put', bank_id: 'b', kind: COVERED_KIND, id: 'observations', value: 'another build' }]);
    });
    await withStore(dir, (_store, consolidator) => {
      expect(consolidator.isDirty('b')).toBe(true);
      return Promise.resolve();
    });
  });

  it('a write by a build from before markers (which keeps the marker record) after the pass: dirty', async () => {
    const dir = await tempDir();
    await consolidated(dir);
    await withStore(dir, async (store) => {
      const bank = store.bank('b');
      const marker = bank?.records.get(COVERED_KIND)?.get('observations');
      if (bank === undefined || marker === undefined) throw new Error('no marker');
      // Such a build's retain: the bank record's write time and a document; its apply does not
      // drop the marker, so it is put back as it was.
      await store.commit([
        { type: 'bank.put', bank: { ...bank.bank, last_write_at: '2026-03-01T00:00:00+00:00' } },
        documentPut('b', 'd-old', [fact('f-old', 'Turbo caching was written by an older build.', 'd-old')]),
        { type: 'record.put', bank_id: 'b', kind: COVERED_KIND, id: 'observations', value: marker },
      ]);
    });
    await withStore(dir, (_store, consolidator) => {
      expect(consolidator.isDirty('b')).toBe(true);
      return Promise.resolve();
    });
  });

  it('a bank deleted and made again with the same facts: dirty', async () => {
    const dir = await tempDir();
    await consolidated(dir);
    await withStore(dir, async (store) => {
      await store.commit([{ type: 'bank.delete', bank_id: 'b' }]);
      await seed(store);
    });
    await withStore(dir, (_store, consolidator) => {
      expect(consolidator.isDirty('b')).toBe(true);
      return Promise.resolve();
    });
  });
});

/** The number of observation pass markers ever written to the data dir's log files. */
const markersLogged = async (dir: string): Promise<number> => {
  let n = 0;
  for (const name of await readdir(dir)) if (name.startsWith('log-')) n += (await readFile(join(dir, name), 'utf8')).split(`"${COVERED_KIND}"`).length - 1;
  return n;
};

/** The server's count of observation passes begun over bank `p` (its `/metrics`). */
const passesOf = async (server: ServerProcess): Promise<number> => {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = /^agent_memory_observation_passes_total\{bank_id="p"\} (\d+)$/m.exec(text);
  if (line?.[1] === undefined) throw new Error(`no pass count in /metrics:\n${text}`);
  return Number(line[1]);
};

describe('observation pass marker (server process, SIGKILL)', () => {
  const B = '/v1/default/banks';
  const extensionRecall = { query: 'turbo caching', types: ['world', 'experience', 'observation'], prefer_observations: true, max_tokens: 800, budget: 'mid' };

  it('a restart after a completed pass runs no pass; a retain after it, then a restart, does', async () => {
    const dir = await tempDir();
    const serve = async (): Promise<ServerProcess> => {
      const child = await spawnServerProcess(['--data-dir', dir]);
      children.push(child);
      return child;
    };
    const first = await serve();
    for (const [id, text] of SOURCES) expect((await call(first, 'POST', `${B}/p/memories`, { items: [{ content: text, document_id: id }] })).status).toBe(200);
    // A small bank is passed over before the read that wants observations.
    expect(await passesOf(first)).toBe(0);
    const answered = await call(first, 'POST', `${B}/p/memories/recall`, extensionRecall);
    expect(answered.status).toBe(200);
    expect(await passesOf(first)).toBe(1);
    await first.kill();
    expect(await markersLogged(dir)).toBe(1);

    const second = await serve();
    for (let i = 0; i < 3; i += 1) expect((await call(second, 'POST', `${B}/p/memories/recall`, extensionRecall)).status).toBe(200);
    expect((await call(second, 'GET', `${B}/p/stats`)).body.pending_consolidation).toBe(0);
    expect(await passesOf(second)).toBe(0);
    await second.kill();
    // No pass ran: it would have written the marker again (the log is not rotated without a snapshot).
    expect(await markersLogged(dir)).toBe(1);

    const third = await serve();
    expect((await call(third, 'POST', `${B}/p/memories`, { items: [{ content: 'Turbo caching broke the nightly build.', document_id: 'late' }] })).status).toBe(200);
    await third.kill();
    // A retain does not start the consolidator: still the one marker.
    expect(await markersLogged(dir)).toBe(1);
    const fourth = await serve();
    expect((await call(fourth, 'POST', `${B}/p/memories/recall`, extensionRecall)).status).toBe(200);
    expect(await passesOf(fourth)).toBe(1);
    await fourth.kill();
    expect(await markersLogged(dir)).toBe(2);
  });
});
