/**
 * Attack (round 9): a password holding `&`. The assignment rules stopped a value at `&` (for a
 * URL's next parameter), so `x DB_PASSWORD=hunter2-Tr0ub4dor&3` kept `&3`, and a value on the
 * line after its name (`DB_PASSWORD=` then `hunter2-Tr0ub4dor&3`) kept what followed its `&`.
 * A URL's query is the query rule's (before these), so its next parameter is still kept. The
 * real redactor.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/config/redact.js';

const HIDDEN: readonly (readonly [string, string])[] = [
  ['x DB_PASSWORD=hunter2-Tr0ub4dor&3', '&3'],
  ['DB_PASSWORD=\nhunter2-Tr0ub4dor&3', '&3'],
  ['export STRIPE_SECRET=abc&def&ghi123', 'def'],
  ['password=\nq9&Zr!x7', 'Zr!x7'],
  ['the config has api_key=AbC&dEf123456 in it', 'dEf123456'],
];

describe('a secret value holding & is hidden whole', () => {
  it.each(HIDDEN)('%s', (text, rest) => {
    expect(redact(text)).not.toContain(rest);
  });

  it("keeps a URL's next parameter after a hidden one", () => {
    const out = redact('open https://example.com/login?password=abc123&next=home to sign in');
    expect(out).not.toContain('abc123');
    expect(out).toContain('&next=home to sign in');
  });
});
