/**
 * Attack (ninth session): a secret split over lines, and a secret in base64. The shape rules
 * hid a secret up to its line's end and kept the rest: a key a terminal wrapped at its width
 * (`sk-…` then the rest of the key on the next line), a PEM or base64 body under a secret name
 * (`PRIVATE_KEY=MIIE…` then more lines of it, a YAML block), a header or a flag whose value a
 * shell continued onto the next line (`Authorization: Bearer \` / `--password \`), a key of
 * fixed length wrapped before its shape was whole (`AKIA…` cut at 16 characters). And base64
 * was hidden only for the configured key: `echo c2st… | base64 -d`, a Kubernetes secret's data
 * or a Docker config blob kept a provider key, a database URL's password or a JSON password.
 * Each goes through the redactor, then the real `memory_retain` tool into the real queue journal
 * and the embedded server: neither holds any part of it, and the line after it survives.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/config/redact.js';
import { describeRetainedPastes, expectPasteRedacted, type Paste } from '../helpers/redactedPastes.js';

// Built at run time so the fixtures themselves do not look like committed secrets.
const rep = (s: string, n: number) => s.repeat(n);
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

const KEY_HEAD = `sk-proj-${rep('Ab3x', 12)}`;
const KEY_TAIL = `Qz7${rep('kP2m', 6)}`;
const PEM_1 = `MIIEow${rep('IBAAKCAQEA9xq', 5)}`;
const PEM_2 = `Vw3${rep('ZkQ0h8Tq', 8)}`;
const PEM_3 = 'q83Lw==';
const B64_LINE_1 = `ewogICJ0eXBlIjogInNlcnZpY2VfYWNjb3VudCIs${rep('Q2x5', 4)}`;
const B64_LINE_2 = `IjogIjEyMzQ1Njc4OTAi${rep('Cn0x', 4)}`;

/** [name, pasted text, every part of the secret, the text after it that must stay readable]. */
const PASTES: readonly Paste[] = [
  ['a key a terminal wrapped at its width', `export OPENAI_API_KEY=${KEY_HEAD}\n${KEY_TAIL}\n$ npm test`, [KEY_HEAD, KEY_TAIL], '$ npm test'],
  ['a provider key wrapped, alone on its lines', `${KEY_HEAD}\n${KEY_TAIL}\nDone`, [KEY_HEAD, KEY_TAIL], 'Done'],
  ['a bearer header wrapped', `Authorization: Bearer ${rep('tK9', 14)}\n${rep('Zq4', 6)}\nHTTP/1.1 200 OK`, [rep('tK9', 14), rep('Zq4', 6)], 'HTTP/1.1 200 OK'],
  ['a PEM body under a secret name', `PRIVATE_KEY=${PEM_1}\n${PEM_2}\n${PEM_3}\nPORT=8080`, [PEM_1, PEM_2, PEM_3], 'PORT=8080'],
  ['a base64 body in a YAML block under a secret name', `service_account_key: |\n  ${B64_LINE_1}\n  ${B64_LINE_2}\nregion: eu-west-1`, [B64_LINE_1, B64_LINE_2], 'region: eu-west-1'],
  ['a key wrapped inside JSON text (escaped line break)', `{"log":"${KEY_HEAD}\\n${KEY_TAIL}\\nnext line"}`, [KEY_HEAD, KEY_TAIL], 'next line'],
  ['a header a shell continued', `curl -H "Authorization: Bearer \\\n  ${rep('hZ7', 10)}" https://api.example.com/v1`, [rep('hZ7', 10)], 'https://api.example.com/v1'],
  ['a flag a shell continued', `mysql --password \\\n  ${rep('Hu2t', 4)} -h db appdb`, [rep('Hu2t', 4)], '-h db appdb'],
  // A key of fixed length, cut before its shape is whole: the shape allows the break.
  ['an AWS key id wrapped before its shape is whole', `aws_access_key_id\n  AKIA${rep('Q7ZX', 3)}\n${rep('M2', 2)}\n[default]`, [`AKIA${rep('Q7ZX', 3)}`, `${rep('Q7ZX', 3)}\n${rep('M2', 2)}`], '[default]'],
  ['an npm token wrapped', `//registry.npmjs.org/:_authToken is npm_${rep('Ab1', 8)}\n${rep('Cd2', 4)} in .npmrc`, [`npm_${rep('Ab1', 8)}`, rep('Cd2', 4)], 'in .npmrc'],
  ['base64 of a provider key', `echo ${b64(`${KEY_HEAD}${KEY_TAIL}`)} | base64 -d > key.txt`, [b64(`${KEY_HEAD}${KEY_TAIL}`), KEY_HEAD], '| base64 -d > key.txt'],
  ['Kubernetes secret data: a database URL in base64', `data:\n  DATABASE_URL: ${b64('postgres://admin:Hunter2Pw9@db.example.com:5432/app')}\n  LOG_LEVEL: aW5mbw==`, [b64('postgres://admin:Hunter2Pw9@db.example.com:5432/app')], 'LOG_LEVEL: aW5mbw=='],
  ['a Docker config blob: JSON in base64', `.dockerconfigjson: ${b64('{"auths":{"registry.example.com":{"password":"r3gistryPw-77"}}}')}`, [b64('{"auths":{"registry.example.com":{"password":"r3gistryPw-77"}}}')], '.dockerconfigjson:'],
];

describe('secrets split over lines, and secrets in base64, are redacted', () => {
  it.each(PASTES)('%s: redact hides every part, keeps the line after it, and a second pass changes nothing', (_name, text, parts, kept) => {
    expectPasteRedacted(text, parts, kept);
  });

  it('look-alikes stay readable: a line after a hidden secret that is not its rest, and base64 of ordinary text', () => {
    const after = [
      // Words, paths, assignments and numbers on the line after a hidden secret.
      ['token: abc123xyz9', 'Done'],
      ['token: abc123xyz9', 'src/config/redactRules.ts'],
      ['token: abc123xyz9', 'PORT=8080'],
      ['token: abc123xyz9', 'Thanks, that worked.'],
      ['token: abc123xyz9', 'return'],
      ['password is hunter2', 'next step: npm test'],
    ] as const;
    for (const [secret, next] of after) {
      const out = redact(`${secret}\n${next}`);
      expect(out, next).toContain(`\n${next}`);
      expect(out).not.toContain(secret.split(' ').pop());
    }
    for (const text of [
      `plain: ${b64('hello world, this is not a secret at all')}`,
      'sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'The retainDeliveryQueueStore internationalization configuration',
      `image: ${b64('\u0000\u0001binary\u00ff\u00fe bytes of a picture, not text \u0002')}`,
      'git log --oneline 8a5c8a5f0e1d2c3b4a5968778695a4b3c2d1e0f9',
    ]) {
      expect(redact(text), text).toBe(text);
    }
  });
});

describeRetainedPastes(PASTES);
