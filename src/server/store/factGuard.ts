/**
 * `FactRecord.is` written out: the check a stored fact passes each time it is read from a segment
 * file (a recall reads about 90). io-ts's guard walks the codec's tree (an intersection, a union,
 * a closure per field and per array item) and cost as much as the record's `JSON.parse`; this is
 * the same predicate field by field (test/server/store/factGuard.test.ts checks it against the
 * codec on generated values). A field added to `FactRecord` (model.ts) must be added here.
 */
import type { FactRecord } from './model.js';

const hasOwn = Object.prototype.hasOwnProperty;
const FACT_TYPES = { world: null, experience: null, observation: null };
const STATES = { valid: null, invalidated: null };

/** io-ts's `UnknownRecord.is`. */
const isRecord = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === 'object' && !Array.isArray(u);
const isString = (u: unknown): u is string => typeof u === 'string';
/** `t.array(t.string).is`: `every` as io-ts calls it (it skips holes). */
const isStrings = (u: unknown): boolean => Array.isArray(u) && u.every(isString);
/** A partial field: absent (undefined) or of its type. */
const optionalString = (u: unknown): boolean => u === undefined || typeof u === 'string';
/** `Entity.is`: `{ text: string }` and optionally `{ type: string }`. */
const isEntity = (u: unknown): boolean => isRecord(u) && typeof u['text'] === 'string' && optionalString(u['type']);
/** `StringMap.is` (`t.record(t.string, t.string)`). */
const isStringMap = (u: unknown): boolean => isRecord(u) && Object.keys(u).every((k) => typeof u[k] === 'string');

export const isFactRecord = (u: unknown): u is FactRecord => {
  if (!isRecord(u)) return false;
  const factType = u['fact_type'];
  const documentId = u['document_id'];
  const chunkId = u['chunk_id'];
  if (
    typeof u['id'] !== 'string' ||
    typeof u['text'] !== 'string' ||
    typeof factType !== 'string' ||
    !hasOwn.call(FACT_TYPES, factType) ||
    (documentId !== null && typeof documentId !== 'string') ||
    (chunkId !== null && typeof chunkId !== 'string') ||
    !isStrings(u['tags']) ||
    typeof u['created_at'] !== 'string'
  ) {
    return false;
  }
  const metadata = u['metadata'];
  const entities = u['entities'];
  const sources = u['source_fact_ids'];
  const state = u['state'];
  return (
    optionalString(u['context']) &&
    (metadata === undefined || isStringMap(metadata)) &&
    optionalString(u['mentioned_at']) &&
    optionalString(u['occurred_start']) &&
    optionalString(u['occurred_end']) &&
    (entities === undefined || (Array.isArray(entities) && entities.every(isEntity))) &&
    (sources === undefined || isStrings(sources)) &&
    (state === undefined || (typeof state === 'string' && hasOwn.call(STATES, state))) &&
    optionalString(u['invalidation_reason']) &&
    optionalString(u['invalidated_at']) &&
    optionalString(u['edited_at'])
  );
};
