/**
 * How a mutation is written to disk. A `document.put` would otherwise hold its text three
 * times (the document, its chunks, their facts): on disk a chunk that is a slice of the
 * document's text (items are joined with "\n", so chunks need not touch) is stored as `span: [start, end]`, and a fact whose text equals its
 * chunk's text carries `text_from_chunk: true` instead of the text. Everything else is
 * written as is. Reading reverses this before the mutation codec decodes the result.
 */
import type { Mutation } from './model.js';

type Json = Record<string, unknown>;

export const encodeForDisk = (m: Mutation): unknown => {
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
  return { ...m, chunks, facts };
};

const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * Rebuilds the full mutation shape in place (the value was just parsed from disk and has no
 * other owner, and start-up reads 100k of these); anything unexpected is left for the codec
 * to reject.
 */
export const decodeFromDisk = (value: unknown): unknown => {
  if (!isObject(value) || value['type'] !== 'document.put' || !isObject(value['document'])) return value;
  const document = value['document'];
  const text = document['original_text'];
  const documentId = document['id'];
  const chunks = value['chunks'];
  const facts = value['facts'];
  if (typeof text !== 'string' || !Array.isArray(chunks) || !Array.isArray(facts)) return value;
  const chunkText = new Map<unknown, string>();
  for (const c of chunks as unknown[]) {
    if (!isObject(c)) continue;
    const span = c['span'];
    if (Array.isArray(span) && typeof span[0] === 'number' && typeof span[1] === 'number') {
      delete c['span'];
      c['document_id'] = documentId;
      c['text'] = text.slice(span[0], span[1]);
    }
    if (typeof c['text'] === 'string') chunkText.set(c['id'], c['text']);
  }
  for (const f of facts as unknown[]) {
    if (!isObject(f) || f['text_from_chunk'] !== true) continue;
    delete f['text_from_chunk'];
    const from = chunkText.get(f['chunk_id']);
    if (from !== undefined) f['text'] = from;
  }
  return value;
};
