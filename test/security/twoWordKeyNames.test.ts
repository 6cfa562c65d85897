/**
 * Attack (round 9): a key named in two words. `the api key is X` and `api key: X` were hidden, and
 * so were `secret_key: X`, `the client secret is X`; but `my AWS secret key is X`, `AWS secret
 * key: X`, `the access key is X`, `private key: X` and `account key = X` kept the key whole: the
 * one space a secret name could hold was the one in `api key`. A person pastes the AWS pair as
 * the console shows it ("Secret access key"), or says it in words. Through the real `redact` and
 * the real retain path (`cleanText`, what a turn is stored as).
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, redact } from '../../src/config/redact.js';
import { cleanText } from '../../src/effects/session/retainProjection.js';

const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const HEX = '9f8e7d6c5b4a39281706f5e4d3c2b1a0';

const HIDDEN: readonly (readonly [string, string])[] = [
  [`my AWS secret key is ${AWS_SECRET}`, AWS_SECRET],
  [`AWS secret key: ${AWS_SECRET}`, AWS_SECRET],
  [`Secret access key: ${AWS_SECRET}`, AWS_SECRET],
  [`the secret access key is ${AWS_SECRET}`, AWS_SECRET],
  [`the access key is ${HEX}`, HEX],
  [`Access key = ${HEX}`, HEX],
  [`private key: ${HEX}`, HEX],
  [`storage account key is ${HEX}`, HEX],
  [`secret key ${HEX}`, HEX],
];

// Words around such names that are not a key: kept as they are.
const KEPT = [
  'the secret key is to keep the cache warm',
  'a private key is needed for signing',
  'press the access key shortcut',
  'the key is in the drawer',
];

describe('a secret named in two words is hidden like one named in one', () => {
  it.each(HIDDEN)('%s', (text, secret) => {
    const out = redact(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
    expect(cleanText(text)).not.toContain(secret);
    // One-word names were hidden before, and still are.
    expect(redact(text.replace(/(secret|access|private|account) key/i, '$1_key'))).not.toContain(secret);
  });

  it.each(KEPT)('keeps "%s"', (text) => {
    expect(redact(text)).toBe(text);
  });
});
