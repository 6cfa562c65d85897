/**
 * The import gate: host session files into the bank, one document at a time.
 * idle -> scanning -> planning -> planned (dry run) | importing -> done | paused | failed.
 * A paused, finished or failed run accepts the next `import.requested`; what earlier runs
 * imported stays in context, so a new run resumes by skipping documents whose hashes match.
 */
import { assertEvent, setup } from 'xstate';
import { immerAssign } from '../shared/immerAssign.js';
import { emptyProgress, initialImportContext, type ImportContext } from './context.js';
import { estimateTokens } from './decide.js';
import type { ImportEvent } from './events.js';

const assign = immerAssign<ImportContext, ImportEvent>;

export const importMachine = setup({
  types: { context: {} as ImportContext, events: {} as ImportEvent },
  actions: {
    /** Effect: find the session files of the run's sources. */
    scan: () => undefined,
    /** Effect: read every found session, build its documents, send `import.plan.ready`. */
    plan: () => undefined,
    /** Effect: queue each planned document (or skip it), flushing as it goes. */
    importDocuments: () => undefined,
    /** Effect: the run ended: write the manifest and compact the checkpoint. */
    runEnded: () => undefined,
    startRun: assign((draft, { event }) => {
      assertEvent(event, 'import.requested');
      const e = event;
      draft.runs += 1;
      draft.run = { runId: e.runId, options: e.options, sources: e.sources, startedAt: e.at, finishedAt: null, scanned: null, plan: null, progress: emptyProgress, pause: null, error: null };
    }),
    noteScan: assign((draft, { event }) => {
      assertEvent(event, 'import.scan.finished');
      const e = event;
      if (draft.run !== null) draft.run.scanned = { files: e.files, bytes: e.bytes, skipped: e.skipped };
    }),
    notePlanProgress: assign((draft, { event }) => {
      assertEvent(event, 'import.plan.progressed');
      if (draft.run === null) return;
      draft.run.progress.filesPlanned = event.files;
      draft.run.progress.bytesPlanned = event.bytes;
    }),
    notePlan: assign((draft, { event }) => {
      assertEvent(event, 'import.plan.ready');
      const e = event;
      if (draft.run === null) return;
      const bytes = e.documents.reduce((sum, d) => sum + d.bytes, 0);
      const tokens = e.documents.reduce((sum, d) => sum + d.tokens, 0);
      draft.run.plan = { sessions: e.sessions, documents: e.documents, skipped: e.skipped, malformed: e.malformed, stats: e.stats, bytes, tokens: tokens || estimateTokens(bytes) };
    }),
    noteQueued: assign((draft, { event }) => {
      assertEvent(event, 'import.document.queued');
      const e = event;
      draft.imported[e.documentId] = { hash: e.hash, status: 'queued' };
      if (draft.run === null) return;
      const p = draft.run.progress;
      p.documentsDone += 1;
      p.documentsQueued += 1;
      p.bytesDone += e.bytes;
    }),
    noteQueuedMany: assign((draft, { event }) => {
      assertEvent(event, 'import.documents.queued');
      if (draft.run !== null && event.planned !== undefined) {
        draft.run.progress.filesPlanned = event.planned.files;
        draft.run.progress.bytesPlanned = event.planned.bytes;
      }
      const status = event.delivered === true ? 'completed' : 'queued';
      for (const d of event.documents) {
        draft.imported[d.documentId] = { hash: d.hash, status };
        if (draft.run === null) continue;
        const p = draft.run.progress;
        p.documentsDone += 1;
        // Sent straight and acknowledged, or put in the queue: the report says which.
        if (event.delivered === true) p.documentsSent += 1;
        else p.documentsQueued += 1;
        p.bytesDone += d.bytes;
      }
    }),
    noteSkipped: assign((draft, { event }) => {
      assertEvent(event, 'import.document.skipped');
      const e = event;
      if (draft.run === null) return;
      const p = draft.run.progress;
      p.documentsDone += 1;
      p.documentsSkipped += 1;
      p.bytesDone += e.bytes;
      p.skippedBy[e.reason] = (p.skippedBy[e.reason] ?? 0) + 1;
    }),
    noteDelivered: assign((draft, { event }) => {
      assertEvent(event, 'import.delivery.confirmed');
      const e = event;
      for (const id of e.documentIds) {
        const doc = draft.imported[id];
        if (doc !== undefined) draft.imported[id] = { ...doc, status: 'completed' };
      }
    }),
    notePause: assign((draft, { event }) => {
      assertEvent(event, 'import.paused');
      const e = event;
      if (draft.run !== null) draft.run.pause = { cause: e.cause, reason: e.reason };
    }),
    noteFailure: assign((draft, { event }) => {
      assertEvent(event, 'import.failed');
      const e = event;
      if (draft.run === null) return;
      draft.run.error = e.reason;
      draft.run.finishedAt = e.at;
    }),
    noteFinished: assign((draft, { event }) => {
      if (draft.run !== null) draft.run.finishedAt = event.at;
    }),
    restoreImported: assign((draft, { event }) => {
      assertEvent(event, 'import.checkpoint.compacted');
      const e = event;
      draft.imported = Object.fromEntries(e.imported.map((r) => [r.documentId, { hash: r.hash, status: r.status }]));
    }),
  },
  guards: {
    dryRun: ({ context }) => context.run?.options.dryRun === true,
  },
}).createMachine({
  id: 'import',
  context: initialImportContext,
  initial: 'idle',
  on: {
    'import.checkpoint.compacted': { actions: 'restoreImported' },
    'import.delivery.confirmed': { actions: 'noteDelivered' },
  },
  states: {
    idle: {
      on: { 'import.requested': { target: 'scanning', actions: ['startRun', 'scan'] } },
    },
    scanning: {
      on: {
        'import.scan.finished': { target: 'planning', actions: ['noteScan', 'plan'] },
        'import.paused': { target: 'paused', actions: 'notePause' },
        'import.failed': { target: 'failed', actions: ['noteFailure', 'runEnded'] },
      },
    },
    planning: {
      on: {
        'import.plan.progressed': { actions: 'notePlanProgress' },
        // The plan records what it queued as it goes (the import phase does not again).
        'import.documents.queued': { actions: 'noteQueuedMany' },
        'import.plan.ready': [
          { guard: 'dryRun', target: 'planned', actions: ['notePlan', 'noteFinished'] },
          { target: 'importing', actions: ['notePlan', 'importDocuments'] },
        ],
        'import.paused': { target: 'paused', actions: 'notePause' },
        'import.failed': { target: 'failed', actions: ['noteFailure', 'runEnded'] },
      },
    },
    /** A dry run's plan, ready to show; nothing was written anywhere but this checkpoint. */
    planned: {
      on: { 'import.requested': { target: 'scanning', actions: ['startRun', 'scan'] } },
    },
    importing: {
      on: {
        'import.document.queued': { actions: 'noteQueued' },
        'import.documents.queued': { actions: 'noteQueuedMany' },
        'import.document.skipped': { actions: 'noteSkipped' },
        'import.finished': { target: 'done', actions: ['noteFinished', 'runEnded'] },
        'import.paused': { target: 'paused', actions: ['notePause', 'runEnded'] },
        'import.failed': { target: 'failed', actions: ['noteFailure', 'runEnded'] },
      },
    },
    /** Resumable: the next `import.requested` skips what is already imported. */
    paused: {
      on: { 'import.requested': { target: 'scanning', actions: ['startRun', 'scan'] } },
    },
    done: {
      on: { 'import.requested': { target: 'scanning', actions: ['startRun', 'scan'] } },
    },
    failed: {
      on: { 'import.requested': { target: 'scanning', actions: ['startRun', 'scan'] } },
    },
  },
});

export type ImportMachine = typeof importMachine;
