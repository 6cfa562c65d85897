/**
 * Attack: secret shapes that survived redaction (issue 12, item 2 of the attack list): Stripe
 * keys, `DB_PASS=...`, "my password is ...", Azure `AccountKey=`, a PGP private key block,
 * `TOOL_AKIA...` glued after `_`. Each goes through the real `memory_retain` tool into the
 * real queue journal on disk, and through the redactor directly.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED, redact } from '../../src/config/redact.js';
import { startHarness, type Harness } from '../tools/harness.js';

// Built at run time so the fixtures themselves do not look like committed secrets.
const rep = (s: string, n: number) => s.repeat(n);
const SHAPES: readonly (readonly [name: string, text: string, secret: string])[] = [
  ['Stripe live secret key', `charge with sk_live_${rep('4eC39HqLyjWDarjtT1zdp7dc', 1)}`, `sk_live_${rep('4eC39HqLyjWDarjtT1zdp7dc', 1)}`],
  ['Stripe test secret key', `STRIPE=sk_test_${rep('51Hx', 6)} ok`, `sk_test_${rep('51Hx', 6)}`],
  ['Stripe restricted key', `rk_live_${rep('Ab12', 6)}`, `rk_live_${rep('Ab12', 6)}`],
  ['env-style database password', 'export DB_PASS=correcthorse', 'correcthorse'],
  ['lower-case dotted pass name', 'db.pass: correcthorse2', 'correcthorse2'],
  ['generic _SECRET', 'SESSION_SECRET=keyboardcat99', 'keyboardcat99'],
  ['generic _TOKEN', 'SENTRY_AUTH_TOKEN=abc123tokenvalue', 'abc123tokenvalue'],
  ['generic _KEY', 'ENCRYPTION_KEY="q9w8e7r6t5"', 'q9w8e7r6t5'],
  ['password in prose', 'my password is hunter2.', 'hunter2'],
  ['passphrase in prose', 'The passphrase was "blue-velvet-42" yesterday', 'blue-velvet-42'],
  ['Azure AccountKey', `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${rep('Zm9vYmFy', 8)}==;EndpointSuffix=core.windows.net`, `${rep('Zm9vYmFy', 8)}==`],
  ['Azure SharedAccessKey', `Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=${rep('c2VjcmV0', 5)}=`, `${rep('c2VjcmV0', 5)}=`],
  ['PGP private key block', `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF${rep('xyz', 10)}\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----`, `lQOYBF${rep('xyz', 10)}`],
  ['OpenSSH private key', `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA${rep('Q', 20)}\n-----END OPENSSH PRIVATE KEY-----`, `b3BlbnNzaC1rZXktdjEAAAAA${rep('Q', 20)}`],
  ['AWS key id glued after _', `TOOL_AKIA${rep('IOSFODNN', 2)} failed`, `AKIA${rep('IOSFODNN', 2)}`],
  ['AWS key id glued after -', `id-ASIA${rep('Z7X6', 4)}`, `ASIA${rep('Z7X6', 4)}`],
  ['GitLab token', `glpat-${rep('x1Y2', 5)}`, `glpat-${rep('x1Y2', 5)}`],
  ['GitHub token glued after _', `MY_ghp_${rep('A1b2', 9)}`, `ghp_${rep('A1b2', 9)}`],
];

describe('secret shapes are redacted', () => {
  it.each(SHAPES)('%s: redact hides it', (_name, text, secret) => {
    const out = redact(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
    expect(redact(out)).toBe(out);
  });

  it('benign look-alikes stay readable', () => {
    for (const text of ['the password field is required', 'bypass the cache', 'sk_live is the prefix Stripe uses', 'PRIMARY KEY (id)', 'AccountName=acme']) {
      expect(redact(text)).toBe(text);
    }
  });
});

describe('secret shapes never reach the queue journal (real memory_retain, real queue files)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('every shape is replaced before the write', async () => {
    for (const [name, text] of SHAPES) {
      await h.ok('memory_retain', { content: `Note on ${name}: ${text}`, context: `ops notes ${text}` });
    }
    const journal = readFileSync(h.queuePath, 'utf8');
    for (const [name, , secret] of SHAPES) {
      expect(journal, name).toContain(`Note on ${name}`);
      expect(journal, name).not.toContain(secret);
    }
  }, 60_000);
});
