/**
 * The import manifest: every imported session with its documents and their content hashes,
 * merged run over run. It is a record for people and for deterministic reimports; what a
 * run resumes from is the checkpoint (the gate's journal).
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { ImportContext } from '../../machines/import/context.js';
import { redact } from '../../config/redact.js';

const ManifestSession = t.type({
  path: t.string,
  mode: t.string,
  importedAt: t.string,
  documents: t.record(t.string, t.type({ hash: t.string, status: t.string })),
});
export const ImportManifest = t.type({ version: t.literal(1), sessions: t.record(t.string, ManifestSession) });
/** The manifest's shape with each session's entry left undecoded. */
const ManifestOutline = t.type({ version: t.literal(1), sessions: t.record(t.string, t.unknown) });
export type ImportManifest = t.TypeOf<typeof ImportManifest>;

const empty: ImportManifest = { version: 1, sessions: {} };

/** The manifest on disk merged with this run: each session its run queued or skipped as imported. */
export const manifestWith = (previous: unknown, context: ImportContext, now: number): ImportManifest => {
  const decoded = previous === undefined ? E.right(empty) : ImportManifest.decode(previous);
  // A damaged manifest is rebuilt from the checkpoint rather than kept half-read.
  const base = E.isRight(decoded) ? decoded.right : empty;
  const run = context.run;
  if (run === null || run.plan === null) return base;
  const sessions = { ...base.sessions };
  for (const session of run.plan.sessions) {
    const docs = run.plan.documents.filter((d) => d.sessionId === session.sessionId);
    const documents: Record<string, { hash: string; status: string }> = {};
    for (const doc of docs) {
      const imported = context.imported[doc.documentId];
      if (imported !== undefined) documents[doc.documentId] = { hash: imported.hash, status: imported.status };
    }
    if (Object.keys(documents).length === 0) continue;
    sessions[session.sessionId] = { path: redact(session.path), mode: run.options.mode, importedAt: new Date(now).toISOString(), documents: { ...(sessions[session.sessionId]?.documents ?? {}), ...documents } };
  }
  return { version: 1, sessions };
};

/**
 * When `sessionId` was last imported (ms), from a manifest read off disk; undefined when it was
 * never imported or the manifest does not decode. Each import of a session re-reads it whole,
 * so every message written before that time is in its documents (or left out by its rules).
 */
export const lastImportedAt = (manifest: unknown, sessionId: string): number | undefined => {
  // Only this session's entry is decoded: the manifest lists every session ever imported, and
  // this runs as pi quits.
  const outline = ManifestOutline.decode(manifest);
  if (E.isLeft(outline) || !Object.hasOwn(outline.right.sessions, sessionId)) return undefined;
  const session = ManifestSession.decode(outline.right.sessions[sessionId]);
  if (E.isLeft(session)) return undefined;
  const at = Date.parse(session.right.importedAt);
  return Number.isNaN(at) ? undefined : at;
};
