/**
 * Session -> documents, on fixtures the real pi 0.73.1 wrote: golden output per mode, branch
 * choice without duplicated prefixes, deterministic ids that survive growth, redaction.
 * `UPDATE_GOLDEN=1 npx vitest run test/effects/import/importDocuments.test.ts` rewrites the
 * golden files (review the diff before committing).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { piSessionFiles } from '../../../src/adapters/sessions/piSessionFiles.js';
import { buildSessionDocuments, segmentsOf, utf8Length, type ModeOptions } from '../../../src/effects/import/documents.js';
import type { SessionRead } from '../../../src/effects/ports/sessionFiles.js';

const fixtures = path.resolve(__dirname, '../../../fixtures/pi/sessions');
const golden = path.resolve(__dirname, '../../../fixtures/import/golden');

const read = async (name: string): Promise<SessionRead> => {
  const result = await piSessionFiles.read(path.join(fixtures, name), { maxBytes: 1e9 });
  if (E.isLeft(result)) throw new Error(`${result.left.reason}: ${result.left.detail}`);
  return result.right;
};

const base: ModeOptions = { mode: 'curated', qualityProfile: 'compatible', branches: 'current-only', toolResults: 'errors-only', toolSummaryMaxChars: 500 as never };

const shape = (session: SessionRead, options: ModeOptions) =>
  buildSessionDocuments(session, options).documents.map((d) => ({
    documentId: d.documentId,
    leafId: d.leafId,
    forkedAfter: d.forkedAfter,
    items: JSON.parse(d.content) as unknown,
  }));

const CASES: readonly [string, ModeOptions][] = [
  ['curated-current', base],
  ['curated-all-leaves', { ...base, branches: 'all-leaves' }],
  ['curated-summary', { ...base, toolResults: 'summary', toolSummaryMaxChars: 10 as never }],
  ['curated-strict-content', { ...base, qualityProfile: 'strict', toolResults: 'content' }],
  ['raw-current', { ...base, mode: 'raw' }],
  ['forensic-all-leaves', { ...base, mode: 'forensic', branches: 'all-leaves' }],
];

describe('import documents (golden, real pi 0.73.1 session)', () => {
  for (const [name, options] of CASES) {
    it(`${name} matches fixtures/import/golden/${name}.json`, async () => {
      const actual = shape(await read('pi073-branched.jsonl'), options);
      const file = path.join(golden, `${name}.json`);
      if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
      expect(actual).toEqual(JSON.parse(readFileSync(file, 'utf8')));
    });
  }
});

describe('import documents', () => {
  it('current-only follows the last line; all-leaves adds the side branch once, from the fork', async () => {
    const session = await read('pi073-branched.jsonl');
    const current = segmentsOf(session, 'current-only');
    expect(current).toHaveLength(1);
    const all = segmentsOf(session, 'all-leaves');
    expect(all).toHaveLength(2);
    const ids = all.flatMap((s) => s.entries.map((e) => e.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(session.entries.length);
    const side = all[1]!;
    expect(side.after).not.toBeNull();
    const texts = JSON.stringify(buildSessionDocuments(session, { ...base, branches: 'all-leaves' }).documents.map((d) => d.content));
    // The shared first prompt appears once, the abandoned picture question once.
    expect(texts.split('Build and deploy to staging').length - 1).toBe(1);
    expect(texts.split('What is in this picture?').length - 1).toBe(1);
  });

  it('keeps tool errors, drops successful tool output in errors-only, never keeps image data, redacts secrets', async () => {
    const session = await read('pi073-branched.jsonl');
    const built = buildSessionDocuments(session, { ...base, branches: 'all-leaves' });
    const text = built.documents.map((d) => d.content).join('\n');
    expect(text).toContain('permission denied on /srv/app');
    expect(text).not.toContain('echo: hello build');
    expect(text).not.toContain('iVBORw0KGgo');
    expect(text).not.toContain('sk-live-abcdefghijklmnop1234');
    expect(text).toContain('[REDACTED]');
    expect(built.stats).toMatchObject({ keptToolErrors: 1, droppedToolResults: 1 });
  });

  it('gives the same ids after the session grows; only the last document changes', async () => {
    const session = await read('pi073-linear.jsonl');
    const before = buildSessionDocuments(session, base).documents;
    const last = session.entries[session.entries.length - 1]!;
    const grown: SessionRead = {
      ...session,
      entries: [
        ...session.entries,
        { type: 'message', id: 'feed0001', parentId: last.id, timestamp: '2026-11-24T02:00:00.000Z', message: { role: 'user', content: 'And linting?', timestamp: 1 } },
        { type: 'message', id: 'feed0002', parentId: 'feed0001', timestamp: '2026-11-24T02:00:01.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'pnpm lint' }], timestamp: 2 } },
      ],
    };
    const after = buildSessionDocuments(grown, base).documents;
    expect(after.map((d) => d.documentId)).toEqual(before.map((d) => d.documentId));
    expect(after[after.length - 1]!.content).toContain('pnpm lint');
  });

  it('chunks long sessions by turns with ids from each chunk first entry', async () => {
    const session = await read('pi073-linear.jsonl');
    const header = session.entries.slice(0, 2);
    let parent = header[header.length - 1]!.id;
    const entries = [...header];
    for (let i = 0; i < 30; i += 1) {
      const u = `u${String(i).padStart(7, '0')}`;
      const a = `a${String(i).padStart(7, '0')}`;
      entries.push({ type: 'message', id: u, parentId: parent, timestamp: '2026-11-24T02:00:00.000Z', message: { role: 'user', content: `question ${i}`, timestamp: i } });
      entries.push({ type: 'message', id: a, parentId: u, timestamp: '2026-11-24T02:00:00.000Z', message: { role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }], timestamp: i } });
      parent = a;
    }
    const docs = buildSessionDocuments({ ...session, entries }, base).documents;
    expect(docs.map((d) => d.documentId)).toEqual([`pi-import:${session.sessionId}:u0000000`, `pi-import:${session.sessionId}:u0000012`, `pi-import:${session.sessionId}:u0000024`]);
  });
});

describe('a document\'s bytes', () => {
  it('are the UTF-8 length of its content, in every mode and purpose, whatever its texts hold', async () => {
    const fixturesRead = await Promise.all(['pi073-branched.jsonl', 'pi073-linear.jsonl', 'branched-v3.jsonl', 'real-print-v3.jsonl', 'not-kept-v3.jsonl'].map(read));
    for (const session of fixturesRead) {
      for (const [, options] of CASES) {
        for (const purpose of ['final', 'estimate'] as const) {
          for (const d of buildSessionDocuments(session, options, purpose).documents) expect(d.bytes).toBe(Buffer.byteLength(d.content, 'utf8'));
        }
      }
    }
    const session = fixturesRead[1]!;
    const header = session.entries.slice(0, 2);
    // Texts of any code units (lone surrogates, emoji, invisible characters, secrets the redactor changes), many to a chunk.
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('sk-proj-abcdefghijklmnopqrstuvwx1234', 'password: hunter2 \u200b', '<private>x</private>', 'caf\u00e9 \u{1F511}'));
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 30 }), (turns) => {
        let parent = header[header.length - 1]!.id;
        const entries = [...header];
        turns.forEach(([question, answer], i) => {
          entries.push({ type: 'message', id: `u${i}`, parentId: parent, timestamp: '2026-11-24T02:00:00.000Z', message: { role: 'user', content: question, timestamp: i } });
          entries.push({ type: 'message', id: `a${i}`, parentId: `u${i}`, timestamp: '2026-11-24T02:00:00.000Z', message: { role: 'assistant', content: [{ type: 'text', text: answer }], timestamp: i } });
          parent = `a${i}`;
        });
        for (const [, options] of CASES) {
          for (const d of buildSessionDocuments({ ...session, entries }, options).documents) expect(d.bytes).toBe(Buffer.byteLength(d.content, 'utf8'));
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('utf8Length', () => {
  it('equals the encoded length for ASCII (its fast path) and for any well-formed text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })), (text) => {
        // Lone surrogates become U+FFFD, as when the text is encoded.
        const wellFormed = Buffer.from(text, 'utf8').toString('utf8');
        expect(utf8Length(wellFormed)).toBe(Buffer.byteLength(wellFormed, 'utf8'));
      }),
      { numRuns: 2_000 },
    );
    for (const text of ['', 'plain ascii \u007f', '\u0080', 'café', '日本語', '\u{1F511} key', `${'a'.repeat(100_000)}é`]) expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });
});
