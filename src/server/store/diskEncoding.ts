/**
 * How a mutation is written to disk. A `document.put` would otherwise hold its text three
 * times (the document, its chunks, their facts): on disk a chunk that is a slice of the
 * document's text is stored as `span: [start, end]`, and a fact whose text equals its
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
    if (c.document_id === m.document.id && text.startsWith(c.text, pos)) {
      const span = [pos, pos + c.text.length];
      pos += c.text.length;
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

/** Rebuilds the full mutation shape; anything unexpected is passed through for the codec to reject. */
export const decodeFromDisk = (value: unknown): unknown => {
  if (!isObject(value) || value['type'] !== 'document.put' || !isObject(value['document'])) return value;
  const document = value['document'];
  const text = document['original_text'];
  const documentId = document['id'];
  if (typeof text !== 'string' || !Array.isArray(value['chunks']) || !Array.isArray(value['facts'])) return value;
  const chunkText = new Map<unknown, string>();
  const chunks = value['chunks'].map((c: unknown) => {
    if (!isObject(c)) return c;
    const span = c['span'];
    if (Array.isArray(span) && typeof span[0] === 'number' && typeof span[1] === 'number') {
      const { span: _span, ...rest } = c;
      const full = { ...rest, document_id: documentId, text: text.slice(span[0], span[1]) };
      chunkText.set(c['id'], full.text);
      return full;
    }
    if (typeof c['text'] === 'string') chunkText.set(c['id'], c['text']);
    return c;
  });
  const facts = value['facts'].map((f: unknown) => {
    if (!isObject(f) || f['text_from_chunk'] !== true) return f;
    const { text_from_chunk: _flag, ...rest } = f;
    const from = chunkText.get(f['chunk_id']);
    return from === undefined ? rest : { ...rest, text: from };
  });
  return { ...value, chunks, facts };
};
