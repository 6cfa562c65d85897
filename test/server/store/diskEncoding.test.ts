import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeFromDisk, encodeForDisk } from '../../../src/server/store/diskEncoding.js';
import type { Mutation } from '../../../src/server/store/model.js';

const at = '2026-11-26T08:00:00.000+00:00';
const text = 'We decided to bundle with rollup.\nTests run with vitest.';
const put: Mutation = {
  type: 'document.put',
  bank_id: 'b',
  document: { id: 'd1', original_text: text, content_hash: null, created_at: at, updated_at: at, tags: ['repo:web'], retain_params: { event_date: at } },
  chunks: [
    { id: 'b_d1_0', document_id: 'd1', chunk_index: 0, text: 'We decided to bundle with rollup.' },
    { id: 'b_d1_1', document_id: 'd1', chunk_index: 1, text: 'Tests run with vitest.' },
  ],
  facts: [
    { id: 'f1', text: 'We decided to bundle with rollup.', fact_type: 'world', document_id: 'd1', chunk_id: 'b_d1_0', tags: ['repo:web'], created_at: at, mentioned_at: at },
    { id: 'f2', text: 'The team tests with vitest.', fact_type: 'world', document_id: 'd1', chunk_id: 'b_d1_1', tags: ['repo:web', 'x'], created_at: at },
  ],
};

const readBack = (m: Mutation): Mutation => decodeFromDisk(JSON.parse(JSON.stringify(encodeForDisk(m)))) as Mutation;

describe('decodeFromDisk', () => {
  it('rebuilds the records with exactly their own fields, no disk markers left', () => {
    const back = readBack(put);
    expect(back).toEqual(put);
    if (back.type !== 'document.put') throw new Error('not a document.put');
    for (const c of back.chunks) expect(Object.keys(c).sort()).toEqual(['chunk_index', 'document_id', 'id', 'text']);
    expect(Object.keys(back.facts[0] ?? {})).not.toContain('text_from_chunk');
  });

  it('a fact with its document\'s tags shares the document\'s array; other tags stay its own', () => {
    const back = readBack(put);
    if (back.type !== 'document.put') throw new Error('not a document.put');
    expect(back.facts[0]?.tags).toBe(back.document.tags);
    expect(back.facts[1]?.tags).not.toBe(back.document.tags);
    expect(back.facts[1]?.tags).toEqual(['repo:web', 'x']);
  });

  it('leaves the records in fast mode: a deleted property would make each one a dictionary', () => {
    // V8 says whether an object keeps fast properties only behind --allow-natives-syntax, so ask a child.
    const module = fileURLToPath(new URL('../../../src/server/store/diskEncoding.ts', import.meta.url));
    const script = `
      const { decodeFromDisk, encodeForDisk } = await import(${JSON.stringify(module)});
      const fast = new Function('o', 'return %HasFastProperties(o)');
      const m = decodeFromDisk(JSON.parse(JSON.stringify(encodeForDisk(${JSON.stringify(put)}))));
      process.stdout.write(JSON.stringify([...m.chunks, ...m.facts, m.document].map((o) => fast(o))));
    `;
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual([true, true, true, true, true]);
  });
});
