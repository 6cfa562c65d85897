/** Property and table tests of the failure mapping and the wire decoders. */
import * as fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  capabilityFromDetail,
  detailText,
  failureFromStatus,
  failureFromTransport,
  parseRetryAfter,
} from '../../../src/adapters/server/failures.js';
import { decodeBody } from '../../../src/adapters/server/wire.js';
import { RecallResult, RetainResult, VersionInfo } from '../../../src/wire/hindsight.js';
import { failureClass, RetainItem } from '../../../src/effects/ports/memoryServer.js';
import { decodeWith } from '../../../src/codecs/decode.js';

const NOW = 1_750_000_000_000;

describe('failureFromStatus', () => {
  it('classes every status as the reliability table says', () => {
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 599 }), fc.option(fc.string(), { nil: undefined }), (status, detail) => {
        const body = detail === undefined ? '' : JSON.stringify({ detail });
        const failure = failureFromStatus({ status, body }, NOW);
        const expected =
          status === 408 || status === 429 || status >= 500
            ? 'retry'
            : [401, 403, 404, 410].includes(status)
              ? 'pause'
              : detail !== undefined && detail.includes('capability_unavailable:')
                ? 'report'
                : 'deadLetter';
        expect(failureClass(failure)).toBe(expected);
      }),
    );
  });

  it('never lets a secret in the detail through', () => {
    fc.assert(
      fc.property(fc.string(), fc.stringMatching(/^[A-Za-z0-9]{24,40}$/), fc.integer({ min: 400, max: 599 }), (prefix, secret, status) => {
        const key = `sk-${secret}`;
        const failure = failureFromStatus({ status, body: JSON.stringify({ detail: `${prefix} Authorization: Bearer ${key}` }) }, NOW);
        expect(JSON.stringify(failure)).not.toContain(key);
      }),
    );
  });
});

describe('detailText', () => {
  it('never throws, and yields a string or nothing', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        const text = detailText(body);
        expect(text === undefined || typeof text === 'string').toBe(true);
      }),
    );
  });

  it('clips long details', () => {
    expect(detailText({ detail: 'x'.repeat(5_000) })?.length).toBeLessThanOrEqual(301);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta seconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), (seconds) => {
        expect(parseRetryAfter(String(seconds), NOW)).toBe(seconds * 1000);
      }),
    );
  });

  it('reads an HTTP date and never goes negative', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }), (offsetSeconds) => {
        const at = new Date(NOW + offsetSeconds * 1000).toUTCString();
        expect(parseRetryAfter(at, NOW)).toBe(Math.max(0, offsetSeconds * 1000));
      }),
    );
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('failureFromTransport', () => {
  it.each([
    [{ name: 'RequestError', code: 'ECONNREFUSED', event: undefined }, 'unreachable'],
    [{ name: 'RequestError', code: 'ECONNRESET', event: undefined }, 'unreachable'],
    [{ name: 'RequestError', code: 'EPIPE', event: undefined }, 'unreachable'],
    [{ name: 'RequestError', code: 'ENOTFOUND', event: undefined }, 'unreachable'],
    [{ name: 'TimeoutError', code: 'ETIMEDOUT', event: 'request' }, 'timeout'],
    [{ name: 'AbortError', code: 'ERR_ABORTED', event: undefined }, 'aborted'],
  ] as const)('maps %o to %s', (facts, tag) => {
    expect(failureFromTransport(facts, { aborted: false, timeoutMs: 100, route: 'GET /x' })._tag).toBe(tag);
  });

  it('says aborted whenever the caller aborted, whatever got reported', () => {
    expect(failureFromTransport({ name: 'TimeoutError', code: 'ETIMEDOUT', event: 'request' }, { aborted: true, timeoutMs: 1, route: 'r' })).toEqual({ _tag: 'aborted' });
  });
});

describe('capabilityFromDetail', () => {
  it('reads the feature name after the prefix', () => {
    expect(capabilityFromDetail('capability_unavailable: dry-run-refresh is not supported by the embedded server')).toBe('dry-run-refresh');
    expect(capabilityFromDetail('something else')).toBeUndefined();
  });
});

describe('wire decoders', () => {
  it('never throw on arbitrary text and name the route on failure', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
        for (const codec of [RecallResult, RetainResult, VersionInfo] as const) {
          const result = decodeBody(codec as typeof RecallResult, 'POST /r')(text);
          if (E.isLeft(result)) {
            expect(result.left._tag).toBe('badResponse');
            expect(result.left._tag === 'badResponse' && result.left.detail).toContain('POST /r');
          }
        }
      }),
    );
  });

  it('accept absent and null alike for optional recall fields', () => {
    const hit = fc.record(
      { id: fc.string(), text: fc.string(), document_id: fc.option(fc.string(), { nil: null }), tags: fc.option(fc.array(fc.string()), { nil: null }) },
      { requiredKeys: ['id', 'text'] },
    );
    fc.assert(
      fc.property(fc.array(hit), (results) => {
        const decoded = decodeBody(RecallResult, 'recall')(JSON.stringify({ results }));
        expect(E.isRight(decoded)).toBe(true);
      }),
    );
  });

  it('round-trip every valid retain item and name the bad field of an invalid one', () => {
    const item = fc.record(
      {
        content: fc.string(),
        document_id: fc.string(),
        tags: fc.array(fc.string()),
        metadata: fc.dictionary(fc.string(), fc.string()),
        update_mode: fc.constantFrom('append' as const, 'replace' as const),
        observation_scopes: fc.oneof(fc.constantFrom('per_tag' as const, 'shared' as const), fc.array(fc.array(fc.string()))),
      },
      { requiredKeys: ['content'] },
    );
    fc.assert(
      fc.property(item, (value) => {
        const decoded = decodeWith(RetainItem, 'retain item')(JSON.parse(JSON.stringify(value)));
        expect(decoded).toEqual(E.right(value));
      }),
    );
    const bad = decodeWith(RetainItem, 'retain item')({ content: 'x', update_mode: 'merge' });
    expect(E.isLeft(bad) && bad.left.message).toContain('field update_mode');
  });
});
