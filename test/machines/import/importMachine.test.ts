/** The import machine, pure: states, effects requested, resume decisions, and bad events refused. */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { decideDocument, rateAndEta } from '../../../src/machines/import/decide.js';
import { ImportEvent, importEvents } from '../../../src/machines/import/events.js';
import { importMachine, type ImportMachine } from '../../../src/machines/import/machine.js';
import { importCount, importProgress, importState, importSummary, importView, resumable } from '../../../src/machines/import/selectors.js';
import { decodeWith } from '../../../src/codecs/decode.js';

type Snapshot = SnapshotFrom<ImportMachine>;
const decode = decodeWith(ImportEvent, 'import event');
const step = (snapshot: Snapshot, input: unknown): [Snapshot, string[]] => {
  const event = decode(input);
  if (E.isLeft(event)) throw new Error(event.left.message);
  const [next, actions] = transition(importMachine, snapshot, event.right);
  return [next, actions.map((a) => a.type)];
};
const options = (over: Record<string, unknown> = {}) => ({
  dryRun: false,
  resume: true,
  replaceExisting: true,
  mode: 'curated',
  qualityProfile: 'compatible',
  branches: 'current-only',
  toolResults: 'errors-only',
  toolSummaryMaxChars: 500,
  bankId: 'bank',
  ...over,
});
const doc = (id: string, hash = `h-${id}`) => ({ documentId: id, sessionId: 's1', path: '/s/a.jsonl', hash, bytes: 100, tokens: 25 });
const plan = (docs = [doc('d1'), doc('d2')]) =>
  importEvents.planReady({
    at: 3,
    sessions: [{ sessionId: 's1', path: '/s/a.jsonl', bytes: 200, documents: docs.length, malformedLines: 0, pendingTailBytes: 0 }],
    documents: docs,
    skipped: [{ path: '/s/b.jsonl', reason: 'other-project', detail: 'recorded in /elsewhere' }],
    malformed: [],
    stats: { rawMessages: 4, keptItems: 4, droppedToolResults: 0, keptToolErrors: 0 },
  });
const start = (over: Record<string, unknown> = {}): Snapshot => {
  let [s] = initialTransition(importMachine);
  [s] = step(s, importEvents.requested({ at: 1, runId: 'r1', options: options(over) as never, sources: ['/s'] }));
  [s] = step(s, importEvents.scanFinished({ at: 2, files: 2, bytes: 400, skipped: [] }));
  return s;
};

describe('import machine', () => {
  it('scans, plans, then imports document by document and finishes', () => {
    let [s, actions] = step(initialTransition(importMachine)[0], importEvents.requested({ at: 1, runId: 'r1', options: options() as never, sources: ['/s'] }));
    expect(importState(s)).toBe('scanning');
    expect(actions).toContain('scan');
    [s, actions] = step(s, importEvents.scanFinished({ at: 2, files: 2, bytes: 400, skipped: [] }));
    expect(importState(s)).toBe('planning');
    expect(actions).toContain('plan');
    [s, actions] = step(s, plan());
    expect(importState(s)).toBe('importing');
    expect(actions).toContain('importDocuments');
    [s] = step(s, importEvents.documentQueued({ at: 4, documentId: 'd1', hash: 'h-d1', bytes: 100 }));
    [s] = step(s, importEvents.documentSkipped({ at: 5, documentId: 'd2', reason: 'already-imported', bytes: 100 }));
    [s] = step(s, importEvents.deliveryConfirmed({ at: 6, documentIds: ['d1'] }));
    [s, actions] = step(s, importEvents.finished({ at: 7 }));
    expect(importState(s)).toBe('done');
    expect(actions).toContain('runEnded');
    const view = importView(s);
    expect(view).toMatchObject({ documents: 2, done: 2, queued: 1, skipped: 1, skippedBy: { 'already-imported': 1 }, imported: { total: 1, completed: 1 }, sourcesSkipped: 1 });
    expect(importSummary(view)).toBe('done: 1 queued, 1 skipped of 2 document(s); 1/1 delivered');
    // After an earlier import the delivered count is every import's, and says so (fifth pass: "56 queued … 112/112 delivered").
    expect(importSummary({ ...view, imported: { total: 112, completed: 112 } })).toBe('done: 1 queued, 1 skipped of 2 document(s); 112/112 delivered (every import so far)');
  });

  it('a real run\'s plan reports the session files it has read; the progress shown moves from files to documents', () => {
    let s = start();
    expect(importProgress(importView(s))).toEqual({ value: 0, total: 0, unit: 'docs' });
    // Nothing counted yet is said in words, not as "0/1 docs" (a bar's least total).
    expect(importCount(importView(s))).toMatch(/^(looking for sessions|2 session files found)$/);
    const [progressed, actions] = step(s, importEvents.planProgressed({ at: 2, files: 1, bytes: 200 }));
    s = progressed;
    expect(importState(s)).toBe('planning');
    expect(actions).toEqual([]);
    const planning = importView(s);
    expect(planning).toMatchObject({ files: 2, filesPlanned: 1 });
    expect(importProgress(planning)).toEqual({ value: 1, total: 2, unit: 'files' });
    expect(importCount(planning)).toBe('1/2 files');
    expect(importSummary(planning)).toBe('planning: 1/2 session file(s) read, their documents queued (run r1)');
    [s] = step(s, plan());
    expect(importProgress(importView(s))).toEqual({ value: 0, total: 2, unit: 'docs' });
  });

  it('the plan records what it queued with its progress: queued while planning, shown as files read, counted once', () => {
    let [s, actions] = step(start(), importEvents.documentsQueued({ at: 2, documents: [{ documentId: 'd1', hash: 'h-d1', bytes: 100 }], planned: { files: 1, bytes: 200 } }));
    expect(importState(s)).toBe('planning');
    expect(actions).toEqual([]);
    expect(s.context.imported).toEqual({ d1: { hash: 'h-d1', status: 'queued' } });
    expect(importProgress(importView(s))).toEqual({ value: 1, total: 2, unit: 'files' });
    [s] = step(s, importEvents.documentsQueued({ at: 3, documents: [{ documentId: 'd2', hash: 'h-d2', bytes: 100 }], planned: { files: 2, bytes: 400 } }));
    [s, actions] = step(s, plan());
    expect(actions).toContain('importDocuments');
    [s] = step(s, importEvents.deliveryConfirmed({ at: 6, documentIds: ['d1', 'd2'] }));
    [s] = step(s, importEvents.finished({ at: 7 }));
    expect(importView(s)).toMatchObject({ state: 'done', documents: 2, done: 2, queued: 2, skipped: 0, filesPlanned: 2, imported: { total: 2, completed: 2 } });
  });

  it('a session\'s documents queued in one event count as each queued on its own', () => {
    let [one] = step(start(), plan());
    [one] = step(one, importEvents.documentQueued({ at: 4, documentId: 'd1', hash: 'h-d1', bytes: 100 }));
    [one] = step(one, importEvents.documentQueued({ at: 4, documentId: 'd2', hash: 'h-d2', bytes: 50 }));
    let [many] = step(start(), plan());
    [many] = step(
      many,
      importEvents.documentsQueued({
        at: 4,
        documents: [
          { documentId: 'd1', hash: 'h-d1', bytes: 100 },
          { documentId: 'd2', hash: 'h-d2', bytes: 50 },
        ],
      }),
    );
    expect(many.context.imported).toEqual({ d1: { hash: 'h-d1', status: 'queued' }, d2: { hash: 'h-d2', status: 'queued' } });
    expect(many.context.imported).toEqual(one.context.imported);
    expect(many.context.run?.progress).toEqual(one.context.run?.progress);
    expect(importView(many)).toMatchObject({ done: 2, queued: 2 });
  });

  it('a dry run stops at planned and requests no import', () => {
    const [s, actions] = step(start({ dryRun: true }), plan());
    expect(importState(s)).toBe('planned');
    expect(actions).not.toContain('importDocuments');
    expect(importView(s)).toMatchObject({ dryRun: true, sessions: 1, documents: 2, bytes: 200, tokens: 50 });
  });

  it('pauses (resumable), and a new request keeps what earlier runs imported', () => {
    let [s] = step(start(), plan());
    [s] = step(s, importEvents.documentQueued({ at: 4, documentId: 'd1', hash: 'h-d1', bytes: 100 }));
    [s] = step(s, importEvents.paused({ at: 5, cause: 'interrupted', reason: 'Ctrl+C' }));
    expect(importState(s)).toBe('paused');
    expect(resumable(s)).toBe(true);
    [s] = step(s, importEvents.requested({ at: 6, runId: 'r2', options: options() as never, sources: ['/s'] }));
    expect(importState(s)).toBe('scanning');
    expect(s.context.imported['d1']).toEqual({ hash: 'h-d1', status: 'queued' });
    expect(s.context.run?.progress.documentsDone).toBe(0);
  });

  it('fails with the reason, and a failed run can be requested again', () => {
    let [s] = step(start(), plan());
    [s] = step(s, importEvents.failed({ at: 5, reason: 'disk full' }));
    expect(importState(s)).toBe('failed');
    expect(importView(s).error).toBe('disk full');
    [s] = step(s, importEvents.requested({ at: 6, runId: 'r2', options: options() as never, sources: ['/s'] }));
    expect(importState(s)).toBe('scanning');
  });

  it('a compacted checkpoint restores what was imported', () => {
    const [s] = step(initialTransition(importMachine)[0], importEvents.checkpointCompacted({ at: 1, imported: [{ documentId: 'd1', hash: 'h', status: 'completed' }] }));
    expect(s.context.imported).toEqual({ d1: { hash: 'h', status: 'completed' } });
    expect(importState(s)).toBe('idle');
  });

  it('refuses a malformed event naming the field', () => {
    const bad = decode({ type: 'import.document.queued', at: 1, documentId: '', hash: 'h', bytes: -1 });
    expect(E.isLeft(bad)).toBe(true);
    if (E.isLeft(bad)) expect(bad.left.message).toMatch(/documentId|bytes/);
  });
});

describe('import decisions', () => {
  const imported = { d1: { hash: 'h1', status: 'completed' as const } };
  it('skips a document whose hash matches when resuming, imports it again when not', () => {
    expect(decideDocument({ imported }, { resume: true, replaceExisting: true }, { documentId: 'd1', hash: 'h1' })).toEqual({ action: 'skip', reason: 'already-imported' });
    expect(decideDocument({ imported }, { resume: false, replaceExisting: true }, { documentId: 'd1', hash: 'h1' })).toEqual({ action: 'import' });
    expect(decideDocument({ imported }, { resume: true, replaceExisting: true }, { documentId: 'd2', hash: 'x' })).toEqual({ action: 'import' });
  });
  it('replaces a grown document only when replaceExisting is on', () => {
    expect(decideDocument({ imported }, { resume: true, replaceExisting: true }, { documentId: 'd1', hash: 'h2' })).toEqual({ action: 'import' });
    expect(decideDocument({ imported }, { resume: true, replaceExisting: false }, { documentId: 'd1', hash: 'h2' })).toEqual({ action: 'skip', reason: 'exists-replace-disabled' });
  });
  it('computes rate and ETA from progress', () => {
    expect(rateAndEta(0, 100, 1000)).toBeUndefined();
    expect(rateAndEta(50, 100, 1000)).toEqual({ bytesPerSecond: 50, etaMs: 1000 });
  });
});
