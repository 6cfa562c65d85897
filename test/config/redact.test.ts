import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { REDACTED, containsSecret, isSecretFieldName, redact, redactUnknown, redactValue } from '../../src/config/redact.js';

// Built at run time so the fixtures themselves do not look like committed secrets.
const rep = (s: string, n: number) => s.repeat(n);
const SECRETS: readonly (readonly [string, string])[] = [
  ['openai key', `sk-${rep('a1B2', 12)}`],
  ['openai project key', `sk-proj-${rep('Zx9_', 10)}`],
  ['anthropic key', `sk-ant-api03-${rep('Qw3-', 12)}`],
  ['hindsight hs_ key', `hs_${rep('k9', 12)}`],
  ['hindsight hsk- key', `hsk-${rep('m4', 12)}`],
  ['github classic token', `ghp_${rep('A1b2', 9)}`],
  ['github oauth token', `gho_${rep('C3d4', 9)}`],
  ['github fine-grained pat', `github_pat_${rep('11AB', 6)}_${rep('cd', 20)}`],
  ['slack bot token', `xoxb-${rep('1234', 3)}-${rep('abcd', 4)}`],
  ['slack user token', `xoxp-${rep('9876', 3)}-${rep('wxyz', 4)}`],
  ['aws access key id', `AKIA${rep('ABCD2345', 2)}`],
  ['google api key', `AIza${rep('Sy', 17)}x`],
  ['npm token', `npm_${rep('aB3d', 9)}`],
  ['jwt', `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${rep('sig_', 8)}`],
];

describe('redact: provider-shaped keys', () => {
  it.each(SECRETS)('hides a %s anywhere in text', (_name, secret) => {
    const out = redact(`request failed with ${secret} in the body`);
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
    expect(out.startsWith('request failed with ')).toBe(true);
  });
});

describe('redact: headers, tokens and credentials', () => {
  const cases: readonly (readonly [string, string, string])[] = [
    ['bearer token', `GET /x Bearer ${rep('tok3n', 6)}`, rep('tok3n', 6)],
    ['Authorization header', 'Authorization: Token abc123', 'abc123'],
    ['authorization header, any case', 'authorization: Basic dXNlcjpwYXNzd29yZA==', 'dXNlcjpwYXNzd29yZA=='],
    ['cookie header', 'Cookie: session=s3cr3tvalue', 's3cr3tvalue'],
    ['url credentials', 'fetch https://alice:hunter2@example.com/repo.git', 'hunter2'],
    ['url token as user', `clone https://${rep('x1y2', 8)}@github.com/o/r`, rep('x1y2', 8)],
    ['url secret query parameter', 'GET https://h.example/api?access_token=abc123def&x=1', 'abc123def'],
    ['env-style assignment', 'MEMORY_API_KEY=supersecretvalue1', 'supersecretvalue1'],
    ['password colon', 'request failed: password: hunter2', 'hunter2'],
    ['json apiKey field', '{"apiKey": "plainvalue-123", "other": 1}', 'plainvalue-123'],
    ['json token field', '{"access_token":"abcdef"}', 'abcdef'],
    ['json secret field', '{"client_secret": "zzz"}', 'zzz'],
    ['long hex after key word', `the api key is ${rep('0a1b2c3d', 5)}`, rep('0a1b2c3d', 5)],
    ['long base64 after token word', `token ${rep('QUJD', 8)}9`, `${rep('QUJD', 8)}9`],
    ['pem private key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----', 'MIIEabc'],
  ];
  it.each(cases)('hides a %s', (_name, text, secret) => {
    const out = redact(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
  });

  // The retain queue redacts a job that was redacted where it was made: a second pass must
  // change nothing (a header rule took ` [REDACTED]` and the rest of the line again).
  it.each(cases)('redacts a %s once: a second pass changes nothing, and keeps what follows', (_name, text) => {
    for (const framed of [text, `${text}\nnext line stays`, JSON.stringify({ content: `${text}\nnext line stays`, more: 'kept' })]) {
      const once = redact(framed);
      expect(redact(once)).toBe(once);
      expect(once).toMatch(/next line stays|^[^\n]*$/);
    }
  });

  it('keeps a header value redacted once whatever the spaces before it', () => {
    for (const header of ['Authorization:', 'x-api-key:', 'Set-Cookie:']) {
      for (const gap of [' ', '   ', '\t']) {
        const once = redact(`${header}${gap}Token abc123\nnext`);
        expect(once).toBe(`${header}${gap}${REDACTED}\nnext`);
        expect(redact(once)).toBe(once);
      }
    }
  });

  it('keeps the example from the seed readable', () => {
    expect(redact('request failed: password: hunter2')).toBe(`request failed: password: ${REDACTED}`);
  });

  it('leaves benign text alone: git SHAs, UUIDs, plain URLs, ssh remotes, token counts', () => {
    const benign = [
      'commit 3f9a1c2e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a',
      'id 123e4567-e89b-12d3-a456-426614174000',
      'see https://github.com/org/repo and git@github.com:org/repo.git',
      'ssh://git@github.com/org/repo.git',
      'maxTokens 800, recall.maxTokens = 800 tokens',
      'the tokenizer counts tokens',
    ];
    for (const text of benign) expect(redact(text)).toBe(text);
  });
});

describe('redactValue', () => {
  it('blanks secret-named fields and redacts other strings, keeping shape and numbers', () => {
    const input = {
      apiKey: 'abc',
      api_key: 'def',
      Authorization: 'Bearer xyz',
      nested: { password: 'p', note: `uses sk-${rep('a1B2', 12)}`, maxTokens: 800, apiKeyEnv: 'MEMORY_API_KEY' },
      list: [{ token: 't' }, 'plain'],
    };
    expect(redactValue(input)).toEqual({
      apiKey: REDACTED,
      api_key: REDACTED,
      Authorization: REDACTED,
      nested: { password: REDACTED, note: `uses ${REDACTED}`, maxTokens: 800, apiKeyEnv: 'MEMORY_API_KEY' },
      list: [{ token: REDACTED }, 'plain'],
    });
  });

  it('keeps a __proto__ key as data, never as a prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": 1}') as { [k: string]: never };
    const out = redactValue(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.keys(out)).toContain('__proto__');
  });

  it('names secret fields by suffix only', () => {
    expect(isSecretFieldName('apiKeyDirect')).toBe(true);
    expect(isSecretFieldName('x-api-key')).toBe(true);
    expect(isSecretFieldName('apiKeyEnv')).toBe(false);
    expect(isSecretFieldName('maxTokens')).toBe(false);
  });

  it('redactUnknown handles errors and cycles without throwing', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    expect(() => redactUnknown(cyclic)).not.toThrow();
    expect(redactUnknown(new Error(`boom Bearer ${rep('q', 20)}`))).not.toContain(rep('q', 20));
  });
});

describe('redact properties', () => {
  it('is idempotent and never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const once = redact(s);
        expect(redact(once)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });

  it('hides a key embedded in any surrounding text', () => {
    const secret = fc.constantFrom(...SECRETS.map(([, s]) => s));
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), secret, fc.string({ maxLength: 40 }), (before, s, after) => {
        expect(redact(`${before} ${s} ${after}`)).not.toContain(s);
      }),
      { numRuns: 300 },
    );
  });

  it('containsSecret agrees with redact', () => {
    expect(containsSecret(`x ${SECRETS[0]?.[1] ?? ''}`)).toBe(true);
    expect(containsSecret('nothing here')).toBe(false);
  });
});
