/**
 * Session file paths as the import's checkpoint stores them and its reports show them: through
 * `redact`. A path can hold a secret (a checkout or a cache directory named with a token), and
 * the checkpoint records the run's sources and every planned, skipped or damaged file by path.
 * The gate keeps the real paths in memory (the plan reads the files again by them); only what
 * is written or printed is redacted. After a restart the fold holds the redacted paths, which
 * are only shown: a new request scans and plans again from the sources it is given.
 */
import { redact } from '../../config/redact.js';
import type { JsonValue } from '../../codecs/codecs.js';
import type { JournalEntry, JournalPort } from '../ports/journal.js';

/** The fields of the import's events and reports that name files (`path`, `sources`). */
const PATH_FIELDS = new Set(['path', 'sources']);

/** Redacts each distinct path once: a plan names a session's file once for each of its documents. */
const walker = () => {
  const seen = new Map<string, string>();
  const once = (text: string): string => {
    let done = seen.get(text);
    if (done === undefined) {
      done = redact(text);
      seen.set(text, done);
    }
    return done;
  };
  const all = (value: JsonValue): JsonValue => (typeof value === 'string' ? once(value) : Array.isArray(value) ? value.map(all) : value !== null && typeof value === 'object' ? paths(value) : value);
  const paths = (value: JsonValue): JsonValue => {
    if (Array.isArray(value)) return value.map(paths);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, JsonValue> = {};
    for (const [key, field] of Object.entries(value)) out[key] = PATH_FIELDS.has(key) ? all(field) : paths(field);
    return out;
  };
  return paths;
};

/** `value` with every string under a `path` or `sources` field redacted, at any depth. */
export const redactPaths = (value: JsonValue): JsonValue => walker()(value);

const redactEntries = (entries: readonly JournalEntry[]): JournalEntry[] => {
  const paths = walker();
  return entries.map((entry) => ({ ...entry, payload: paths(entry.payload) }));
};

/** The checkpoint journal with paths redacted in every record it writes (appends and compactions). */
export const pathRedactingJournal = (journal: JournalPort): JournalPort => {
  const { appendSync } = journal;
  return {
    append: (entries) => journal.append(redactEntries(entries)),
    ...(appendSync === undefined ? {} : { appendSync: (entries: readonly JournalEntry[]) => appendSync.call(journal, redactEntries(entries)) }),
    load: () => journal.load(),
    compact: (entries) => journal.compact(redactEntries(entries)),
    close: () => journal.close(),
  };
};
