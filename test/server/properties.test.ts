import { crc32 } from 'node:zlib';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/server/http/errors.js';
import { compileRoute, matchRoute } from '../../src/server/http/router.js';
import { decodeOr422 } from '../../src/server/http/validation.js';
import { RecallRequest } from '../../src/wire/hindsight.js';
import { matchesFlat, matchesGroup, matchesTagFilter } from '../../src/server/recall/tagFilter.js';
import type { TagsMatch } from '../../src/server/recall/tagFilter.js';
import { appendContents } from '../../src/server/retain/appendText.js';
import { chunkText } from '../../src/server/retain/chunking.js';
import { RetainRequest } from '../../src/server/retain/codecs.js';
import { decodeMutation } from '../../src/server/store/decodeMutation.js';
import { decodeLine, decodeLineBytes, encodeLineBytes } from '../../src/server/store/logFormat.js';

/** The log line as its format's doc spells it, built apart from the writer it checks. */
const specLine = (value: unknown): Buffer => {
  const payload = Buffer.from(JSON.stringify(value), 'utf8');
  return Buffer.concat([Buffer.from(`{"crc":"${crc32(payload).toString(16).padStart(8, '0')}","m":`), payload, Buffer.from('}\n')]);
};
/** The written line as text, for the string decoder. */
const encodeLine = (value: unknown): string => encodeLineBytes(value).toString('utf8');

const tag = fc.constantFrom('a', 'b', 'c', 'd');
const tagSet = fc.uniqueArray(tag, { maxLength: 4 });
const mode = fc.constantFrom<TagsMatch>('any', 'all', 'any_strict', 'all_strict', 'exact');

const expectDecodedOr422 = (codec: Parameters<typeof decodeOr422>[0], input: unknown): void => {
  try {
    decodeOr422(codec, input);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    const e = error as HttpError;
    expect(e.status).toBe(422);
    expect(Array.isArray(e.detail)).toBe(true);
    for (const issue of e.detail as readonly { readonly loc: readonly unknown[]; readonly msg: string }[]) {
      expect(issue.loc[0]).toBe('body');
      expect(issue.msg.length).toBeGreaterThan(0);
    }
  }
};

describe('decoders never throw anything but a 422 naming body fields', () => {
  it('retain request', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        expectDecodedOr422(RetainRequest, input);
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.record({ content: fc.string(), tags: fc.option(fc.array(fc.string())), timestamp: fc.option(fc.string()) })), (items) => {
        expectDecodedOr422(RetainRequest, { items });
      }),
    );
  });
  it('recall request', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        expectDecodedOr422(RecallRequest, input);
      }),
    );
  });
  it('valid retain items decode with the blank ones named by index', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant('  '), fc.string({ minLength: 1 }).map((s) => `x${s}`)), { minLength: 1, maxLength: 6 }), (contents) => {
        const body = { items: contents.map((content) => ({ content })) };
        const blank = contents.flatMap((c, i) => (c.trim() === '' ? [i] : []));
        try {
          decodeOr422(RetainRequest, body);
          expect(blank).toEqual([]);
        } catch (error) {
          const locs = ((error as HttpError).detail as readonly { readonly loc: readonly unknown[] }[]).map((d) => d.loc);
          expect(locs).toEqual(blank.map((i) => ['body', 'items', i, 'content']));
        }
      }),
    );
  });
  it('mutation decoder returns Left for junk and names the source', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        const result = decodeMutation(input, 'log seq 7');
        if (result._tag === 'Left') expect(result.left).toContain('log seq 7');
      }),
    );
  });
});

describe('log line format', () => {
  it('round-trips any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const line = encodeLine(value);
        expect(line.endsWith('\n')).toBe(true);
        const check = decodeLine(line.slice(0, -1));
        expect(check.ok).toBe(true);
        if (check.ok) expect(check.value).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
  it('the bytes the log writes are the documented line, UTF-8 encoded, for any value (any text, lone surrogates too)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('"', '\\', '\n', 'é', '\u2028', '\ud800', '\udc00', '😀', 'a') }));
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.dictionary(text, text), fc.array(text)), (value) => {
        const bytes = encodeLineBytes(value);
        expect(bytes.equals(specLine(value))).toBe(true);
        const check = decodeLineBytes(bytes, 0, bytes.length - 1);
        expect(check.ok).toBe(true);
        if (check.ok) expect(check.value).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });
  it('the byte decoder agrees with the string decoder on intact, cut and flipped lines', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, cutAt) => {
        const line = encodeLine({ v: value }).slice(0, -1);
        for (const candidate of [line, line.slice(0, cutAt % line.length), line.replace('"v"', '"w"')]) {
          const buf = Buffer.from(`xx${candidate}yy`, 'utf8');
          const a = decodeLine(candidate);
          const b = decodeLineBytes(buf, 2, buf.length - 2);
          expect(b.ok).toBe(a.ok);
          if (a.ok && b.ok) expect(b.value).toEqual(a.value);
        }
      }),
    );
  });
  it('detects truncation and any changed character in the payload', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.nat(), (value, cutAt, flipAt) => {
        const line = encodeLine({ v: value }).slice(0, -1);
        const cut = line.slice(0, cutAt % line.length);
        expect(decodeLine(cut).ok).toBe(false);
        const i = 22 + (flipAt % (line.length - 23));
        const ch = line[i] === 'x' ? 'y' : 'x';
        const flipped = line.slice(0, i) + ch + line.slice(i + 1);
        expect(decodeLine(flipped).ok).toBe(false);
      }),
    );
  });
});

describe('tag filter laws', () => {
  it('empty request tags mean no filter except exact (untagged only)', () => {
    fc.assert(
      fc.property(mode, tagSet, (m, row) => {
        expect(matchesFlat([], m, row)).toBe(m === 'exact' ? row.length === 0 : true);
      }),
    );
  });
  it('flat modes match their definitions', () => {
    fc.assert(
      fc.property(fc.uniqueArray(tag, { minLength: 1, maxLength: 4 }), tagSet, (req, row) => {
        const overlap = req.some((t) => row.includes(t));
        const all = req.every((t) => row.includes(t));
        const untagged = row.length === 0;
        expect(matchesFlat(req, 'any', row)).toBe(untagged || overlap);
        expect(matchesFlat(req, 'all', row)).toBe(untagged || all);
        expect(matchesFlat(req, 'any_strict', row)).toBe(!untagged && overlap);
        expect(matchesFlat(req, 'all_strict', row)).toBe(!untagged && all);
        expect(matchesFlat(req, 'exact', row)).toBe(all && row.every((t) => req.includes(t)));
        expect(matchesFlat([...req].reverse(), 'exact', row)).toBe(matchesFlat(req, 'exact', row));
      }),
    );
  });
  it('a non-empty leaf equals the flat mode; not negates; groups AND with the flat filter', () => {
    fc.assert(
      fc.property(fc.uniqueArray(tag, { minLength: 1, maxLength: 4 }), mode, tagSet, (req, m, row) => {
        expect(matchesGroup({ tags: req, match: m }, row)).toBe(matchesFlat(req, m, row));
        expect(matchesGroup({ not: { not: { tags: req, match: m } } }, row)).toBe(matchesFlat(req, m, row));
        const groups = [{ tags: req, match: m }];
        expect(matchesTagFilter({ tagsMatch: 'exact', tagGroups: groups }, row)).toBe(row.length === 0 && matchesFlat(req, m, row));
      }),
    );
  });
});

describe('text helpers', () => {
  it('chunks cover the text exactly, each within the size', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), fc.integer({ min: 10, max: 300 }), (text, size) => {
        const chunks = chunkText(text, size);
        expect(chunks.join('')).toBe(text);
        for (const c of chunks) expect(c.length).toBeLessThanOrEqual(size);
      }),
    );
  });
  it('append joins with a newline unless both sides are JSON arrays of objects', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { minLength: 1, maxLength: 3 }), (old, added) => {
        const out = appendContents(old, added);
        if (out.length === 1) expect(Array.isArray(JSON.parse(out[0] ?? ''))).toBe(true);
        else expect(out).toEqual([old, ...added]);
      }),
    );
    const objs = fc.array(fc.dictionary(fc.string(), fc.string()), { maxLength: 3 });
    fc.assert(
      fc.property(objs, objs, (a, b) => {
        expect(JSON.parse(appendContents(JSON.stringify(a), [JSON.stringify(b)])[0] ?? '')).toEqual([...a, ...b]);
      }),
    );
  });
});

describe('router', () => {
  const routes = [
    compileRoute({ method: 'GET', pattern: '/v1/default/banks/{bank_id}/memories/list', handler: () => ({ body: 'list' }) }),
    compileRoute({ method: 'GET', pattern: '/v1/default/banks/{bank_id}/memories/{memory_id}', handler: () => ({ body: 'one' }) }),
    compileRoute({ method: 'GET', pattern: '/v1/default/banks/{bank_id}/documents/{document_id:path}', handler: () => ({ body: 'doc' }) }),
  ];
  it('decodes encoded path parameters, including document ids with slashes', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (bank, documentId) => {
        const m = matchRoute(routes, 'GET', `/v1/default/banks/${encodeURIComponent(bank)}/documents/${documentId.split('/').map(encodeURIComponent).join('/')}`);
        if (documentId.split('/').some((s) => s === '')) return;
        expect(m.kind).toBe('found');
        if (m.kind === 'found') expect(m.params).toEqual({ bank_id: bank, document_id: documentId });
      }),
    );
  });
  it('static segments win in table order; wrong method is 405', () => {
    const m = matchRoute(routes, 'GET', '/v1/default/banks/b/memories/list');
    expect(m.kind === 'found' && m.route.pattern.endsWith('/list')).toBe(true);
    expect(matchRoute(routes, 'POST', '/v1/default/banks/b/memories/list').kind).toBe('methodNotAllowed');
    expect(matchRoute(routes, 'GET', '/v1/default/nothing').kind).toBe('notFound');
  });
});

describe('disk encoding of mutations', () => {
  it('document.put round-trips through the compact form, which holds the text once', async () => {
    const { planRetain } = await import('../../src/server/retain/plan.js');
    const { encodeForDisk, decodeFromDisk } = await import('../../src/server/store/diskEncoding.js');
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 4000 }).filter((s) => s.trim().length > 0), { minLength: 1, maxLength: 3 }), (contents) => {
        let n = 0;
        const plan = planRetain({
          bankId: 'b',
          bank: undefined,
          items: contents.map((content) => ({ content, document_id: 'd' })),
          documentTags: ['t'],
          now: 1_700_000_000_000,
          newId: () => `id-${(n += 1)}`,
          appendSupported: true,
        });
        for (const m of plan.mutations) {
          const line = JSON.stringify(encodeForDisk(m));
          if (m.type === 'document.put') {
            const text = m.document.original_text ?? '';
            expect(line.length).toBeLessThan(JSON.stringify(m).length - text.length + 1);
          }
          expect(decodeFromDisk(JSON.parse(line))).toEqual(JSON.parse(JSON.stringify(m)));
        }
      }),
      { numRuns: 50 },
    );
  });
});
