import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRight } from 'fp-ts/lib/Either.js';
import { MemoryConfig, fieldList } from '../../src/config/fields.js';
import { parseJsonText } from '../../src/config/jsonText.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { decodeWith } from '../../src/codecs/decode.js';
import { nest } from './helpers.js';

const base = { env: {}, stateDir: '/p/.pi', home: '/h' };

/** Random values at real field paths, so the decoder sees plausible-but-wrong shapes too. */
const fieldPath = fc.constantFrom(...fieldList.flatMap((f) => [f.name as string, f.path]));
const layerData = fc.oneof(
  fc.jsonValue(),
  fc.array(fc.tuple(fieldPath, fc.jsonValue()), { maxLength: 6 }).map((pairs) => Object.assign({}, ...pairs.map(([k, v]) => nest(k, v))) as unknown),
);

describe('config decoding never throws (property)', () => {
  it('random JSON in both files always yields a valid config and readable warnings', () => {
    fc.assert(
      fc.property(layerData, layerData, fc.dictionary(fc.constantFrom(...fieldList.flatMap((f) => f.env?.names ?? [])), fc.string()), (user, project, env) => {
        const resolved = resolveConfig({ ...base, env, user: { scope: 'user', path: '/h/u.json', data: user }, project: { scope: 'project', path: '/p/.pi/memory.json', data: project } });
        expect(isRight(decodeWith(MemoryConfig, 'resolved config')(resolved.config))).toBe(true);
        for (const w of resolved.warnings) {
          expect(w.location.length).toBeGreaterThan(0);
          expect(w.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('random text as a config file is either JSON or an error with an offset inside the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1)))), (text) => {
        const parsed = parseJsonText(text);
        if (isRight(parsed)) expect(parsed.right).toEqual(JSON.parse(text));
        else {
          expect(parsed.left.offset).toBeGreaterThanOrEqual(0);
          expect(parsed.left.offset).toBeLessThanOrEqual(text.length);
          expect(() => JSON.parse(text)).toThrow();
        }
      }),
      { numRuns: 1000 },
    );
  });
});
