/**
 * Every decision of the import gate, as pure functions: whether a planned document is
 * imported or skipped (and why), and how far a run has come.
 */
import type { ImportContext } from './context.js';
import type { ImportOptions } from './events.js';

export type DocumentDecision = { readonly action: 'import' } | { readonly action: 'skip'; readonly reason: 'already-imported' | 'exists-replace-disabled' };

/**
 * `importResume`: a document already queued or delivered with the same content hash is not
 * sent again. `importReplaceExisting` off: a document imported before is never rewritten,
 * even when its session grew (the new content is left out rather than appended twice).
 */
export const decideDocument = (context: Pick<ImportContext, 'imported'>, options: Pick<ImportOptions, 'resume' | 'replaceExisting'>, doc: { readonly documentId: string; readonly hash: string }): DocumentDecision => {
  const before = context.imported[doc.documentId];
  if (before === undefined) return { action: 'import' };
  if (options.resume && before.hash === doc.hash) return { action: 'skip', reason: 'already-imported' };
  if (!options.replaceExisting) return { action: 'skip', reason: 'exists-replace-disabled' };
  return { action: 'import' };
};

/** Bytes per second and the time left, from progress so far (undefined before any progress). */
export const rateAndEta = (bytesDone: number, bytesTotal: number, elapsedMs: number): { readonly bytesPerSecond: number; readonly etaMs: number } | undefined => {
  if (bytesDone <= 0 || elapsedMs <= 0) return undefined;
  const bytesPerSecond = (bytesDone * 1000) / elapsedMs;
  return { bytesPerSecond, etaMs: Math.max(0, ((bytesTotal - bytesDone) / bytesPerSecond) * 1000) };
};

/**
 * A dry run's time estimate: bytes over a conservative local throughput plus a per-document
 * cost for the server's retain; stated as an estimate wherever it is shown.
 */
export const estimateImportMs = (bytes: number, documents: number): number => Math.round(bytes / 20_000 + documents * 50);

/** Tokens a text of `chars` characters costs, by the usual 4-characters-a-token rule. */
export const estimateTokens = (chars: number): number => Math.ceil(chars / 4);
