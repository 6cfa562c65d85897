/**
 * The import gate's effects: scan, plan, and queue documents whole sessions at a time (one
 * queue write for about 1 MB of documents, or 8 sessions), over ports only.
 *
 * - Runs through the kernel (`startGate`): every outcome is an event, journaled in the
 *   checkpoint before the machine sees it; state after a crash is the fold of the checkpoint.
 * - Whole sessions' documents are queued (fsync'd in the durable retain queue, redacted first)
 *   in one write before their one `import.documents.queued` event; a crash between the two
 *   re-queues them on resume, and since imports replace by document id, the server still holds
 *   each once. A crash before the write leaves them unrecorded: the next run builds them again.
 * - Back-pressure: the plan waits while more than a few MB of its documents are undelivered,
 *   and the import phase flushes the queue every few MB, so a large import never piles up in
 *   memory; a paused queue (401/403) or a server that stopped answering pauses the import.
 * - Ctrl+C (the abort signal) stops after the current document (those read before it are
 *   queued): the run is `paused`, and the same command resumes it.
 * - A real run's plan builds each session's documents as they will be queued, queues them as
 *   it goes and records them in the checkpoint with its progress (one `import.documents.queued`
 *   per queue write), so the server works while the plan reads on; the import phase writes
 *   nothing more for them. The plan does not wait for the queue to drain: it builds on while
 *   at most PLAN_BACKLOG_BYTES of its documents wait, and gives the delivery a few event-loop
 *   turns between sessions. A crash before that record leaves them queued but unrecorded: the
 *   next run queues them again, and the server still holds each once (replace by document id).
 * - Documents the plan did not queue (the queue stopped delivering, or a resume decides to
 *   skip them) are kept for the import up to `KEEP_PLANNED_CHARS`, so those sessions are
 *   read and built once too; a session whose file changed since (size or modification time)
 *   is read again, as every session past the budget is.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { SnapshotFrom } from 'xstate';
import { redact } from '../../config/redact.js';
import { decideDocument } from '../../machines/import/decide.js';
import type { MalformedLine, PlannedDocument, PlannedSession, SkippedSource} from '../../machines/import/events.js';
import { ImportEvent, importEvents, type ImportOptions, type PlanStats, type Unbranded } from '../../machines/import/events.js';
import { importMachine, type ImportMachine } from '../../machines/import/machine.js';
import { importState, importView, type ImportView } from '../../machines/import/selectors.js';
import { startGate, type GateRuntime } from '../kernel/startGate.js';
import type { ClockPort } from '../ports/clock.js';
import type { ImportManifestPort } from '../ports/importManifest.js';
import type { JournalPort } from '../ports/journal.js';
import type { FileStamp, SessionFilesPort, SessionRead, Skip } from '../ports/sessionFiles.js';
import type { TracePort } from '../ports/trace.js';
import type { FlushReport, NewRetainJob, QueueStatus } from '../retainDelivery/queue.js';
import { defaultBatchLimits } from '../../machines/retainDelivery/batch.js';
import type { DirectRetain } from './directRetain.js';
import { buildSessionDocuments, documentTokens, type BuiltDocument, type LiveRetained } from './documents.js';
import { manifestWith } from './manifest.js';

const HOST_NAME = { pi: 'pi', 'claude-code': 'Claude Code', codex: 'Codex' } as const;

/** Flush the queue after this many bytes of queued documents (bounds memory and pending work). */
const FLUSH_EVERY_BYTES = 4_000_000;
/**
 * The plan builds on while the queue delivers, as long as at most this many bytes of its
 * documents wait undelivered: the next request is ready when an acknowledgement comes, and
 * what waits in memory stays under what the 4 MB drains allowed.
 */
const PLAN_BACKLOG_BYTES = 3_000_000;
/**
 * Event-loop turns the plan gives away before each session it reads while it queues. Building
 * a session runs without a break; the delivery needs a few turns per request (the answer, its
 * journal record, the next batch, the send), and without them it waited behind whole sessions
 * (60-400 ms a request while the plan built, 10-20 ms while it waited).
 */
const TURNS_BETWEEN_SESSIONS = 4;
/**
 * Queue documents (one write, one fsync, one checkpoint event) once this many bytes of them,
 * or this many sessions, are built: a session of a few documents no longer costs two fsyncs
 * alone, and a run of many small sessions still records its progress every few sessions.
 */
const QUEUE_EVERY_BYTES = 1_000_000;
const QUEUE_EVERY_SESSIONS = 8;
/**
 * Documents the plan of a real run keeps for the import, in characters of content: enough for
 * an import of tens of MB to read each session once, small enough that a 1 GB import stays
 * under its 200 MB of RSS (sessions past it are planned by estimate and read again).
 */
const KEEP_PLANNED_CHARS = 24_000_000;
/** Malformed lines kept in the plan (the rest are counted). */
const MALFORMED_KEPT = 200;

/** The retain queue as the import uses it: its public API only. */
export interface ImportQueue {
  enqueue(jobs: readonly NewRetainJob[]): Promise<readonly unknown[]>;
  flush(o?: { readonly deadline?: number; readonly force?: boolean }): Promise<FlushReport>;
  status(): QueueStatus;
  /** Told of every change of the queue's status; returns the function that stops it. */
  subscribe(listener: (status: QueueStatus) => void): () => void;
  /** Jobs the server refused for good (a 4xx such as 413): their documents are not imported. */
  deadLetters(): Promise<readonly { readonly job: { readonly documentId: string }; readonly reason: string }[]>;
}

export interface ImportProject {
  readonly cwd: string;
  readonly bankId: string;
  /** The project's retain tags (`project:<id>`, ...). */
  readonly tags: readonly string[];
}

export interface StartImportGateOptions {
  readonly files: SessionFilesPort;
  readonly queue: ImportQueue;
  readonly manifest: ImportManifestPort;
  /**
   * The plan's documents sent straight to the server while it answers, without the queue's
   * journal (`directRetain.ts`); the queue takes them at the first failure. Absent: all go
   * through the queue.
   */
  readonly direct?: DirectRetain;
  readonly journal: JournalPort;
  readonly clock: ClockPort;
  readonly project: ImportProject;
  /**
   * What live retain already queued of a pi session (the retain cursor), left out of its
   * documents; undefined when nothing was.
   */
  readonly liveRetained?: (sessionId: string) => LiveRetained | undefined;
  readonly trace?: TracePort;
  /** Sessions larger than this are skipped as `too-large` (default 512 MB). */
  readonly maxSessionBytes?: number;
  /** How long one flush may wait for the server. */
  readonly deliverTimeoutMs?: number;
  /** Run ids; tests pass fixed ones. */
  readonly newRunId?: () => string;
  /**
   * What lists the retain queue's dead letters where the person reads the outcome: the CLI's
   * own command line (selfCommand.ts), default pi's `/memory dead-letters`.
   */
  readonly deadLettersCommand?: string;
}

export interface ImportRequest {
  readonly sources: readonly string[];
  readonly options: ImportOptions;
  /** Only sessions changed at or after this time (epoch ms). */
  readonly sinceMs?: number;
  /** Ctrl+C: stop after the current document, leaving a resumable checkpoint. */
  readonly signal?: AbortSignal;
}

export interface ImportGate {
  readonly gate: GateRuntime<ImportMachine>;
  /** Runs one import (or dry run) to a resting state: planned, done, paused or failed. */
  run(request: ImportRequest): Promise<ImportView>;
  view(): ImportView;
  /** The last dry run's snapshot (its plan), kept in memory only. */
  lastDryRun(): SnapshotFrom<ImportMachine> | undefined;
  subscribe(listener: (snapshot: SnapshotFrom<ImportMachine>) => void): () => void;
  stop(): Promise<void>;
}

const RESTING = new Set(['idle', 'planned', 'done', 'paused', 'failed']);

const sameStamp = (a: FileStamp, b: FileStamp | undefined): boolean => b !== undefined && a.size === b.size && a.mtimeMs === b.mtimeMs;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const message = (error: unknown): string => redact(error instanceof Error ? error.message : String(error));

export const startImportGate = async (options: StartImportGateOptions): Promise<ImportGate> => {
  const { files, queue, clock, project, manifest } = options;
  const maxBytes = options.maxSessionBytes ?? 512 * 1024 * 1024;
  const deliverTimeoutMs = options.deliverTimeoutMs ?? 30_000;

  /** One gate with its effects; a dry run gets its own, without a journal, so it writes nothing. */
  const openGate = async (journal: JournalPort | undefined) => {
    let request: ImportRequest | undefined;
    let manifestWritten: Promise<void> = Promise.resolve();

    const send = async (event: Unbranded<typeof ImportEvent>): Promise<void> => {
      const result = await gate.dispatch(event);
      // Our own events always decode; a failure here is a bug worth seeing, not swallowing.
      if (E.isLeft(result)) throw new Error(`import gate refused its own event: ${result.left.message}`);
    };
    const fail = (reason: string): Promise<void> => send(importEvents.failed({ at: clock.now(), reason: redact(reason) }));
    const interrupted = (): boolean => request?.signal?.aborted === true;
    const pauseInterrupted = (): Promise<void> =>
      send(importEvents.paused({ at: clock.now(), cause: 'interrupted', reason: 'interrupted (Ctrl+C); run the same command again to resume' }));
    const guarded = (work: () => Promise<void>): void => {
      void work().catch((error: unknown) => fail(message(error)).catch(() => undefined));
    };

    const readForImport = (file: string): Promise<E.Either<Skip, SessionRead>> => files.read(file, { cwd: project.cwd, maxBytes });
    /** Only pi's sessions are retained live (the extension runs in pi). */
    const liveOf = (session: SessionRead): LiveRetained | undefined => ((session.host ?? 'pi') === 'pi' ? options.liveRetained?.(session.sessionId) : undefined);

    /** The document as it will be queued (each text already cleaned and redacted), and its hash. */
    const finalContent = (doc: BuiltDocument): { content: string; hash: string } => ({ content: doc.content, hash: files.digest(doc.content) });

    // Files found by the scan, kept between scan and plan in this process only (they are
    // cheap to find again after a restart, which starts a new run anyway).
    let foundFiles: readonly string[] = [];
    // Sessions the plan built as they will be queued, by path, with their file's stamp then:
    // kept between plan and import in this process only, like the files above.
    let builtByPlan = new Map<string, { readonly stamp: FileStamp; readonly documents: ReadonlyMap<string, BuiltDocument> }>();
    // Documents the plan queued and recorded, for the import to pass over; those of them the
    // server acknowledged to the plan's own requests (never in the queue) also in the second set.
    let queuedByPlan = new Set<string>();
    let deliveredByPlan = new Set<string>();
    const scan = async (): Promise<void> => {
      if (request === undefined) return fail('no import request in this process');
      const found = await files.scan(request.sources, { maxBytes, ...(request.sinceMs === undefined ? {} : { sinceMs: request.sinceMs }) });
      foundFiles = found.files.map((f) => f.path);
      if (interrupted()) return pauseInterrupted();
      const bytes = found.files.reduce((sum, f) => sum + f.bytes, 0);
      await send(importEvents.scanFinished({ at: clock.now(), files: found.files.length, bytes, skipped: found.skipped.map((s) => ({ ...s, detail: redact(s.detail) })) }));
    };

    const plan = async (runOptions: ImportOptions): Promise<void> => {
      const sessions: Unbranded<typeof PlannedSession>[] = [];
      const documents: Unbranded<typeof PlannedDocument>[] = [];
      const skipped: Unbranded<typeof SkippedSource>[] = [];
      const malformed: Unbranded<typeof MalformedLine>[] = [];
      const stats: { -readonly [K in keyof PlanStats]: number } = { rawMessages: 0, keptItems: 0, droppedToolResults: 0, keptToolErrors: 0, runsNotKept: 0, liveRetained: 0 };
      const seenSessions = new Map<string, string>();
      builtByPlan = new Map();
      queuedByPlan = new Set();
      deliveredByPlan = new Set();
      let keptChars = 0;
      // Jobs built and not yet queued; queued a session at a time (see QUEUE_EVERY_*).
      let early: { readonly job: NewRetainJob; readonly documentId: string; readonly hash: string; readonly bytes: number }[] = [];
      let earlyBytes = 0;
      let earlySessions = 0;
      // Bytes the plan queued, as running sums in queue order: the queue delivers in order, so
      // its depth says how many of the last ones still wait.
      const queuedSums: number[] = [0];
      // Off for a dry run, and once the queue stops delivering (the import then pauses as before).
      let queueing = !runOptions.dryRun;
      // Session files looked at so far and the bytes read: the run's progress while it plans.
      let filesRead = 0;
      let bytesRead = 0;
      type Early = (typeof early)[number];
      const recorded = (taken: readonly Early[]) => taken.map(({ documentId, hash, bytes }) => ({ documentId, hash, bytes }));
      /** Into the queue (one write, one fsync), then recorded. */
      const enqueueAndRecord = async (taken: readonly Early[], planned: { readonly files: number; readonly bytes: number }): Promise<void> => {
        await queue.enqueue(taken.map((b) => b.job));
        for (const { documentId } of taken) queuedByPlan.add(documentId);
        // Recorded now, with the plan's progress (the bar moves while the plan reads on); the
        // import phase passes over them. A crash before this record queues them again next run.
        await send(importEvents.documentsQueued({ at: clock.now(), documents: recorded(taken), planned }));
        for (const { bytes } of taken) queuedSums.push((queuedSums.at(-1) ?? 0) + bytes);
      };
      // Direct delivery (`options.direct`): on while the server answers the plan's own
      // requests, off for the rest of the run at its first failure (the queue then takes the
      // documents, with its retries and pauses). Only from an empty queue: a document of an
      // earlier run still queued must not reach the server after its newer version.
      let direct = false;
      if (queueing && options.direct !== undefined) {
        if (queue.status().depth > 0) await queue.flush({ deadline: clock.now() + deliverTimeoutMs, force: true });
        const now = queue.status();
        direct = now.depth === 0 && now.state !== 'paused' && now.state !== 'backingOff';
      }
      // One batch in flight while the plan builds the next; its failure is rethrown by `settled`.
      let sending: Promise<void> = Promise.resolve();
      let sendFailure: { readonly error: unknown } | undefined;
      const settled = async (): Promise<void> => {
        await sending;
        const failure = sendFailure;
        sendFailure = undefined;
        if (failure !== undefined) throw failure.error;
      };
      /**
       * Sends the batch in requests of the queue's size, then records what the server
       * acknowledged in one record (one fsync a batch, as queuing it was; a crash before the
       * record sends it again next run, and replace by document id keeps one). What the server
       * did not take goes to the queue, and the run goes on through it.
       */
      const deliverDirect = async (sender: DirectRetain, taken: readonly Early[], planned: { readonly files: number; readonly bytes: number }): Promise<void> => {
        let rest = taken;
        const acknowledged: Early[] = [];
        while (rest.length > 0 && direct) {
          let count = 0;
          let chars = 0;
          for (const b of rest) {
            if (count > 0 && (count >= defaultBatchLimits.maxItems || chars + b.job.item.content.length > defaultBatchLimits.maxContentChars)) break;
            count += 1;
            chars += b.job.item.content.length;
          }
          const part = rest.slice(0, count);
          const outcome = await sender.send(part.map((b) => b.job));
          if (!outcome.delivered) {
            direct = false;
            break;
          }
          rest = rest.slice(count);
          acknowledged.push(...part);
        }
        if (acknowledged.length > 0) {
          for (const { documentId } of acknowledged) {
            queuedByPlan.add(documentId);
            deliveredByPlan.add(documentId);
          }
          await send(importEvents.documentsQueued({ at: clock.now(), documents: recorded(acknowledged), planned, delivered: true }));
        }
        if (rest.length > 0) await enqueueAndRecord(rest, planned);
      };
      const queueEarly = async (): Promise<void> => {
        if (early.length === 0) return;
        const taken = early;
        early = [];
        earlyBytes = 0;
        earlySessions = 0;
        const planned = { files: filesRead, bytes: bytesRead };
        // The previous batch answered (and recorded, or queued) before the next goes out, in order.
        await settled();
        if (direct && options.direct !== undefined) {
          const sender = options.direct;
          sending = deliverDirect(sender, taken, planned).catch((error: unknown) => {
            sendFailure = { error };
          });
          return;
        }
        await enqueueAndRecord(taken, planned);
        // Back-pressure without a drain: the plan waits only while more than
        // PLAN_BACKLOG_BYTES of its documents are undelivered.
        const state = await backlogAtMost(PLAN_BACKLOG_BYTES);
        if (state === 'paused' || state === 'backingOff') queueing = false;
      };
      /** Bytes of the plan's documents still in the queue: the last `depth` it queued, at most. */
      const waitingBytes = (depth: number): number => {
        const count = queuedSums.length - 1;
        return (queuedSums.at(-1) ?? 0) - (queuedSums[count - Math.min(depth, count)] ?? 0);
      };
      /**
       * Resolves, with the queue's state, once at most `limit` bytes of the plan's documents
       * wait, the queue stops delivering (idle, paused, backing off) or the deadline passes. A
       * queue not delivering now (one that delivers only when asked, or whose lease another
       * process holds) is flushed and waited for, as the drains did.
       */
      const backlogAtMost = async (limit: number): Promise<QueueStatus['state']> => {
        const now = queue.status();
        if (waitingBytes(now.depth) <= limit) return now.state;
        if (now.state !== 'delivering') {
          await queue.flush({ deadline: clock.now() + deliverTimeoutMs, force: true });
          return queue.status().state;
        }
        return new Promise((resolve) => {
          const done = (state: QueueStatus['state']): void => {
            stop();
            cancel();
            resolve(state);
          };
          const stop = queue.subscribe((status) => {
            if (status.state !== 'delivering' || waitingBytes(status.depth) <= limit) done(status.state);
          });
          const cancel = clock.setTimer(clock.now() + deliverTimeoutMs, () => done(queue.status().state));
        });
      };
      for (const file of foundFiles) {
        if (interrupted()) {
          // What the plan built is queued and recorded before the run pauses: the plan then
          // names the sessions read so far, and the import passes over them and stops.
          await queueEarly();
          await settled();
          if (queuedByPlan.size === 0) return pauseInterrupted();
          break;
        }
        if (queueing) for (let turn = 0; turn < TURNS_BETWEEN_SESSIONS; turn += 1) await nextTurn();
        const read = await readForImport(file);
        filesRead += 1;
        if (E.isLeft(read)) {
          skipped.push({ ...read.left, detail: redact(read.left.detail) });
          continue;
        }
        const session = read.right;
        bytesRead += session.bytes;
        const twin = seenSessions.get(session.sessionId);
        if (twin !== undefined) {
          skipped.push({ path: file, reason: 'duplicate-session', detail: `same session id as ${twin}` });
          continue;
        }
        seenSessions.set(session.sessionId, file);
        for (const d of session.damaged) if (malformed.length < MALFORMED_KEPT) malformed.push({ path: file, line: d.line, reason: redact(d.reason) });
        // A dry run estimates (nothing is redacted or kept); a real run builds the documents it
        // will queue while the budget lasts, so its plan names exactly the documents it imports.
        const final = queueing || (!runOptions.dryRun && keptChars < KEEP_PLANNED_CHARS);
        const built = buildSessionDocuments(session, runOptions, final ? 'final' : 'estimate', liveOf(session));
        if (final && built.documents.length > 0) {
          const kept = new Map<string, BuiltDocument>();
          for (const doc of built.documents) {
            if (queueing) {
              const { content, hash } = finalContent(doc);
              if (decideDocument(gate.getSnapshot().context, runOptions, { documentId: doc.documentId, hash }).action === 'import') {
                const bytes = doc.bytes;
                early.push({ job: jobFor(doc, content, runOptions), documentId: doc.documentId, hash, bytes });
                earlyBytes += bytes;
                continue;
              }
            }
            // Kept for the import to decide (a resume's skip) or to queue (when the queue stopped).
            kept.set(doc.documentId, doc);
            keptChars += doc.content.length;
          }
          if (kept.size > 0) builtByPlan.set(file, { stamp: session.stamp, documents: kept });
          earlySessions += 1;
          if (earlyBytes >= QUEUE_EVERY_BYTES || earlySessions >= QUEUE_EVERY_SESSIONS) await queueEarly();
        }
        stats.rawMessages += built.stats.rawMessages;
        stats.keptItems += built.stats.keptItems;
        stats.droppedToolResults += built.stats.droppedToolResults;
        stats.keptToolErrors += built.stats.keptToolErrors;
        stats.runsNotKept = (stats.runsNotKept ?? 0) + (built.stats.runsNotKept ?? 0);
        stats.liveRetained = (stats.liveRetained ?? 0) + (built.stats.liveRetained ?? 0);
        if (built.documents.length === 0) {
          const detail = (built.stats.liveRetained ?? 0) > 0 ? 'live retain already stored every message of it' : `nothing to keep in ${runOptions.mode} mode`;
          skipped.push({ path: file, reason: 'empty-projection', detail });
          continue;
        }
        sessions.push({ sessionId: session.sessionId, path: file, bytes: session.bytes, documents: built.documents.length, malformedLines: session.damaged.length, pendingTailBytes: session.pendingTailBytes });
        for (const doc of built.documents) {
          documents.push({ documentId: doc.documentId, sessionId: doc.sessionId, path: file, bytes: doc.bytes, tokens: documentTokens(doc.content) });
        }
      }
      await queueEarly();
      await settled();
      await send(importEvents.planReady({ at: clock.now(), sessions, documents, skipped, malformed, stats }));
    };

    const jobFor = (doc: BuiltDocument, content: string, runOptions: ImportOptions): NewRetainJob => ({
      bankId: runOptions.bankId,
      documentId: doc.documentId,
      updateMode: 'replace',
      item: {
        content,
        context: redact(`${HOST_NAME[doc.host]} session import (${runOptions.mode}) of session ${doc.sessionId}${doc.forkedAfter === null ? '' : `, side branch forking after entry ${doc.forkedAfter} (ends at ${doc.leafId})`}`),
        ...(doc.timestamp === undefined ? {} : { timestamp: doc.timestamp }),
        tags: [...new Set([...project.tags, 'source:import', `session:${doc.sessionId}`, `branch:${doc.leafId}`])],
        metadata: {
          cwd: redact(project.cwd),
          host_session_file: redact(doc.path),
          source: doc.host,
          retainSource: 'import',
          import_mode: runOptions.mode,
          session_id: doc.sessionId,
        },
        document_id: doc.documentId,
        update_mode: 'replace',
      },
      ...(doc.redactedContent === undefined ? {} : { redactedContent: doc.redactedContent }),
    });

    /** This run's documents the server refused for good (dead-lettered), with why. */
    const refused: { documentId: string; reason: string }[] = [];

    /** Flushes what is queued; pauses the import when the queue cannot deliver. Returns false when paused. */
    const deliver = async (queuedThisRun: string[]): Promise<boolean> => {
      const report = await queue.flush({ deadline: clock.now() + deliverTimeoutMs, force: true });
      const status = queue.status();
      if (status.state === 'paused') {
        await send(importEvents.paused({ at: clock.now(), cause: 'unauthorized', reason: redact(`the memory server refused the import (${status.pausedReason ?? report.stoppedBecause ?? 'paused'}); fix the key or bank, then run the import again`) }));
        return false;
      }
      if (status.depth === 0) {
        // A document the server refused for good (over its body limit, say) was dead-lettered,
        // not imported: only the others are confirmed, and the run says what was refused.
        const dead = new Map((await queue.deadLetters()).map((d) => [d.job.documentId, d.reason]));
        const sent = queuedThisRun.splice(0);
        const confirmed = sent.filter((id) => !dead.has(id));
        refused.push(...sent.filter((id) => dead.has(id)).map((id) => ({ documentId: id, reason: dead.get(id) ?? 'refused' })));
        if (confirmed.length > 0) await send(importEvents.deliveryConfirmed({ at: clock.now(), documentIds: confirmed }));
        return true;
      }
      if (status.state === 'backingOff') {
        await send(importEvents.paused({ at: clock.now(), cause: 'serverDown', reason: redact(`the memory server is not answering (${status.lastError ?? report.stoppedBecause ?? 'backing off'}); queued documents are safe; run the import again once it is up`) }));
        return false;
      }
      // Another process holds the delivery lease: it delivers; keep importing.
      return true;
    };

    const importDocuments = async (runOptions: ImportOptions, planned: readonly PlannedDocument[]): Promise<void> => {
      const bySession = new Map<string, PlannedDocument[]>();
      for (const doc of planned) bySession.set(doc.path, [...(bySession.get(doc.path) ?? []), doc]);
      const queuedThisRun: string[] = [];
      refused.length = 0;
      let sinceFlush = 0;
      // Documents built but not yet queued: they go to the queue in one write (one fsync), then
      // are recorded in one checkpoint event, whole sessions at a time.
      let batch: { readonly job: NewRetainJob; readonly documentId: string; readonly hash: string; readonly bytes: number }[] = [];
      let batchBytes = 0;
      let batchSessions = 0;
      const queueBatch = async (): Promise<void> => {
        if (batch.length === 0) return;
        const taken = batch;
        batch = [];
        batchBytes = 0;
        batchSessions = 0;
        await queue.enqueue(taken.map((b) => b.job));
        await send(importEvents.documentsQueued({ at: clock.now(), documents: taken.map(({ documentId, hash, bytes }) => ({ documentId, hash, bytes })) }));
        for (const { documentId, bytes } of taken) {
          queuedThisRun.push(documentId);
          sinceFlush += bytes;
        }
      };
      // Taken over by this run: what it does not use is let go when it ends.
      const fromPlan = builtByPlan;
      builtByPlan = new Map();
      const queuedEarly = queuedByPlan;
      queuedByPlan = new Set();
      const deliveredEarly = deliveredByPlan;
      deliveredByPlan = new Set();
      /** The session's documents as they will be queued: the plan's, when its file is as the plan read it. */
      const documentsOf = async (file: string): Promise<ReadonlyMap<string, BuiltDocument>> => {
        const kept = fromPlan.get(file);
        fromPlan.delete(file);
        if (kept !== undefined && sameStamp(kept.stamp, await files.stamp(file))) return kept.documents;
        const read = await readForImport(file);
        return E.isRight(read) ? new Map(buildSessionDocuments(read.right, runOptions, 'final', liveOf(read.right)).documents.map((d) => [d.documentId, d])) : new Map<string, BuiltDocument>();
      };
      for (const [file, docs] of bySession) {
        // A session whose every document the plan queued is not looked at again.
        const built = docs.every((d) => queuedEarly.has(d.documentId)) ? new Map<string, BuiltDocument>() : await documentsOf(file);
        let stopped = false;
        for (const plannedDoc of docs) {
          // Queued and recorded by the plan already: counted as sent, nothing more to write.
          if (queuedEarly.has(plannedDoc.documentId)) {
            // Delivered by the plan itself: recorded as completed already.
            if (!deliveredEarly.has(plannedDoc.documentId)) queuedThisRun.push(plannedDoc.documentId);
            continue;
          }
          if (interrupted()) {
            stopped = true;
            break;
          }
          const doc = built.get(plannedDoc.documentId);
          if (doc === undefined) {
            await send(importEvents.documentSkipped({ at: clock.now(), documentId: plannedDoc.documentId, reason: 'gone-since-planning', bytes: plannedDoc.bytes }));
            continue;
          }
          const { content, hash } = finalContent(doc);
          const decision = decideDocument(gate.getSnapshot().context, runOptions, { documentId: doc.documentId, hash });
          if (decision.action === 'skip') {
            await send(importEvents.documentSkipped({ at: clock.now(), documentId: doc.documentId, reason: decision.reason, bytes: plannedDoc.bytes }));
            continue;
          }
          const bytes = doc.bytes;
          batch.push({ job: jobFor(doc, content, runOptions), documentId: doc.documentId, hash, bytes });
          batchBytes += bytes;
        }
        batchSessions += 1;
        if (stopped || batchBytes >= QUEUE_EVERY_BYTES || batchSessions >= QUEUE_EVERY_SESSIONS) await queueBatch();
        if (stopped) return pauseInterrupted();
        if (sinceFlush >= FLUSH_EVERY_BYTES) {
          sinceFlush = 0;
          if (!(await deliver(queuedThisRun))) return;
        }
      }
      await queueBatch();
      if (interrupted()) return pauseInterrupted();
      if (!(await deliver(queuedThisRun))) return;
      const first = refused[0];
      if (first !== undefined) {
        await send(
          importEvents.failed({
            at: clock.now(),
            reason: redact(
              `the memory server refused ${refused.length} document(s), which were not imported (first: ${first.documentId}: ${first.reason}); they are in the retain queue's dead letters (${options.deadLettersCommand ?? '/memory dead-letters'} lists them); the other documents were imported`,
            ),
          }),
        );
        return;
      }
      await send(importEvents.finished({ at: clock.now() }));
    };

    const writeManifest = async (): Promise<void> => {
      const context = gate.getSnapshot().context;
      const before = await manifest.read();
      const next = manifestWith(before.value, context, clock.now());
      const error = await manifest.write(next);
      if (error !== undefined) throw new Error(`import manifest ${manifest.path}: ${error}`);
    };

    const machine = importMachine.provide({
      actions: {
        scan: () => guarded(scan),
        plan: ({ context }) => {
          const run = context.run;
          if (run !== null) guarded(() => plan(run.options));
        },
        importDocuments: ({ context }) => {
          const run = context.run;
          if (run !== null && run.plan !== null) {
            const planned = run.plan.documents;
            guarded(() => importDocuments(run.options, planned));
          }
        },
        runEnded: () => {
          if (journal !== undefined) manifestWritten = writeManifest().catch((error: unknown) => fail(message(error)));
        },
      },
    });

    // The effects above close over `gate`; they only run once it exists.
    const gate: GateRuntime<ImportMachine> = await startGate({
      name: 'import',
      machine,
      events: ImportEvent,
      clock,
      ...(journal === undefined ? {} : { journal }),
      ...(options.trace === undefined ? {} : { trace: options.trace }),
    });

    return {
      gate,
      setRequest: (next: ImportRequest) => {
        request = next;
      },
      manifestWritten: () => manifestWritten,
    };
  };

  const main = await openGate(options.journal);
  const gate = main.gate;
  // The process that ran the last import is gone (kill -9, power cut) mid-run: that run is
  // paused, and the next request resumes it. Awaited, so no request can overtake it.
  if (!RESTING.has(importState(gate.getSnapshot()))) {
    await gate.dispatch(importEvents.paused({ at: clock.now(), cause: 'interrupted', reason: 'the previous import stopped before it finished; run the import again to resume' }));
  }

  const waitForRest = (g: GateRuntime<ImportMachine>, runId: string): Promise<void> =>
    new Promise((resolve) => {
      const check = (snapshot: SnapshotFrom<ImportMachine>): boolean => RESTING.has(importState(snapshot)) && snapshot.context.run?.runId === runId;
      if (check(g.getSnapshot())) return resolve();
      const stop = g.subscribe((snapshot) => {
        if (check(snapshot)) {
          stop();
          resolve();
        }
      });
    });

  /** Replaces the checkpoint with what it amounts to plus this run's own events. */
  const compact = async (): Promise<void> => {
    const loaded = await options.journal.load();
    const lastRun = loaded.records.findLastIndex((r) => r.type === 'import.requested');
    if (lastRun <= 0) return;
    const imported = Object.entries(gate.getSnapshot().context.imported).map(([documentId, doc]) => ({ documentId, hash: doc.hash, status: doc.status }));
    const at = new Date(clock.now()).toISOString();
    const snapshotEvent = importEvents.checkpointCompacted({ at: clock.now(), imported });
    await options.journal.compact([
      { type: snapshotEvent.type, at, payload: snapshotEvent as never },
      ...loaded.records.slice(lastRun).map((r) => ({ type: r.type, at: r.at, payload: r.payload })),
    ]);
  };

  let runCounter = 0;
  let lastDryRun: SnapshotFrom<ImportMachine> | undefined;
  const newRunId = options.newRunId ?? (() => `run-${clock.now()}-${(runCounter += 1)}`);

  return {
    gate,
    view: () => importView(gate.getSnapshot()),
    subscribe: (listener) => gate.subscribe(listener),
    run: async (next) => {
      const state = importState(gate.getSnapshot());
      if (!RESTING.has(state)) throw new Error(`an import is already ${state} in this process; wait for it to finish`);
      const runId = newRunId();
      const requested = importEvents.requested({ at: clock.now(), runId, options: next.options, sources: next.sources.map(redact) });
      if (next.options.dryRun) {
        // A dry run writes nothing, not even the checkpoint: it plans on a scratch gate that
        // knows what is imported already, so its skips are the real run's skips.
        const scratch = await openGate(undefined);
        scratch.setRequest(next);
        const imported = Object.entries(gate.getSnapshot().context.imported).map(([documentId, doc]) => ({ documentId, hash: doc.hash, status: doc.status }));
        await scratch.gate.dispatch(importEvents.checkpointCompacted({ at: clock.now(), imported }));
        const rest = waitForRest(scratch.gate, runId);
        const result = await scratch.gate.dispatch(requested);
        if (E.isLeft(result)) throw new Error(result.left.message);
        await rest;
        const view = importView(scratch.gate.getSnapshot());
        lastDryRun = scratch.gate.getSnapshot();
        await scratch.gate.stop();
        return view;
      }
      main.setRequest(next);
      const rest = waitForRest(gate, runId);
      const result = await gate.dispatch(requested);
      if (E.isLeft(result)) throw new Error(result.left.message);
      await rest;
      await main.manifestWritten();
      await compact();
      return importView(gate.getSnapshot());
    },
    lastDryRun: () => lastDryRun,
    stop: () => gate.stop(),
  };
};
