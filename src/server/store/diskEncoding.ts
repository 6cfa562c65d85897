/**
 * How a mutation is written to disk. A `document.put` would otherwise hold its text three
 * times (the document, its chunks, their facts): on disk a chunk that is a slice of the
 * document's text (items are joined with "\n", so chunks need not touch) is stored as `span: [start, end]`, and a fact whose text equals its
 * chunk's text carries `text_from_chunk: true` instead of the text. Everything else is
 * written as is. A document whose text is an item of its async retain's operation record (written
 * to the log when the retain was acknowledged) is written with `text_from: { operation_id, item }`
 * in place of `original_text` (textFromOperation.ts). Reading reverses this before the mutation
 * codec decodes the result.
 */
import type { Mutation } from './model.js';
import type { TextRef } from './textFromOperation.js';

type Json = Record<string, unknown>;

const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

/** `record` with member `from` replaced by `to` holding `value`, in its place (the same member order). */
const withMemberReplaced = (record: Json, from: string, to: string, value: unknown): Json => {
  const out: Json = {};
  for (const [key, member] of Object.entries(record)) out[key === from ? to : key] = key === from ? value : member;
  return out;
};

/** `ref`: where the document's text already is in the log (only a `document.put`'s, checked by `textRefFor`). */
export const encodeForDisk = (m: Mutation, ref?: TextRef): unknown => {
  if (m.type !== 'document.put' || m.document.original_text === null) return m;
  const text = m.document.original_text;
  const chunkText = new Map<string, string>();
  let pos = 0;
  const chunks = m.chunks.map((c) => {
    chunkText.set(c.id, c.text);
    const at = c.document_id === m.document.id ? text.indexOf(c.text, pos) : -1;
    if (at >= 0) {
      const span = [at, at + c.text.length];
      pos = at + c.text.length;
      return { id: c.id, chunk_index: c.chunk_index, span };
    }
    return c;
  });
  const facts = m.facts.map((f) => {
    if (f.chunk_id === null || chunkText.get(f.chunk_id) !== f.text) return f;
    const { text: _text, ...rest } = f;
    return { ...rest, text_from_chunk: true };
  });
  return ref === undefined ? { ...m, chunks, facts } : { ...m, document: withMemberReplaced(m.document, 'original_text', 'text_from', ref), chunks, facts };
};

/** The text of item `item` of operation `operationId` of bank `bankId`, as the state holds it now. */
export type OperationText = (bankId: string, operationId: string, item: number) => string | undefined;

/** `text_from` replaced by the text it names, in its place; left as it is (for the codec to reject) if it names nothing. */
const documentWithText = (document: Json, bankId: unknown, operationText: OperationText | undefined): Json => {
  const ref = document['text_from'];
  if (!isObject(ref) || typeof bankId !== 'string' || typeof ref['operation_id'] !== 'string' || typeof ref['item'] !== 'number') return document;
  const text = operationText?.(bankId, ref['operation_id'], ref['item']);
  return text === undefined ? document : withMemberReplaced(document, 'text_from', 'original_text', text);
};

/**
 * Rebuilds the full mutation shape (the value was just parsed from disk and has no other
 * owner, and start-up reads 100k of these); anything unexpected is left for the codec to
 * reject. `operationText` reads a `text_from` reference (the log's replay; a segment has none).
 */
export const decodeFromDisk = (value: unknown, operationText?: OperationText): unknown => {
  if (!isObject(value) || value['type'] !== 'document.put' || !isObject(value['document'])) return value;
  const document = 'text_from' in value['document'] ? documentWithText(value['document'], value['bank_id'], operationText) : value['document'];
  value['document'] = document;
  const text = document['original_text'];
  const documentId = document['id'];
  const chunks = value['chunks'];
  const facts = value['facts'];
  if (typeof text !== 'string' || !Array.isArray(chunks) || !Array.isArray(facts)) return value;
  // The chunks by id, as rebuilt: a fact takes its text and its chunk id's instance from them.
  const chunkById = new Map<unknown, Json>();
  // New objects rather than `delete`: an object that loses a property drops to dictionary
  // mode, several times larger and slower to read, and start-up makes 100k of them.
  chunks.forEach((c: unknown, i) => {
    if (!isObject(c)) return;
    const span = c['span'];
    if (Array.isArray(span) && typeof span[0] === 'number' && typeof span[1] === 'number') {
      const { span: _span, ...chunk } = c;
      chunk['document_id'] = documentId;
      chunk['text'] = text.slice(span[0], span[1]);
      chunks[i] = chunk;
      chunkById.set(chunk['id'], chunk);
    } else chunkById.set(c['id'], c);
  });
  facts.forEach((f: unknown, i) => {
    if (!isObject(f)) return;
    shareWithDocument(f, document);
    const chunk = chunkById.get(f['chunk_id']);
    if (chunk !== undefined) f['chunk_id'] = chunk['id'];
    if (f['text_from_chunk'] !== true) return;
    const { text_from_chunk: _marker, ...fact } = f;
    if (typeof chunk?.['text'] === 'string') fact['text'] = chunk['text'];
    facts[i] = fact;
  });
  return value;
};

const sameStrings = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => typeof x === 'string' && x === b[i]);

/**
 * A fact repeats its document's id, tags and dates; JSON.parse gives each copy its own string
 * and array. Pointing the fact at the document's instances lets the copies die young instead of
 * being carried through every garbage collection of start-up (records are never changed in
 * place; an edit replaces the record).
 */
const shareWithDocument = (f: Json, document: Json): void => {
  if (f['document_id'] === document['id']) f['document_id'] = document['id'];
  if (sameStrings(f['tags'], document['tags'])) f['tags'] = document['tags'];
  const created = document['created_at'];
  if (f['created_at'] === created) f['created_at'] = created;
  if (f['mentioned_at'] === created) f['mentioned_at'] = created;
  if (document['updated_at'] === created) document['updated_at'] = created;
  const params = document['retain_params'];
  if (isObject(params) && params['event_date'] === created) params['event_date'] = created;
};
