/**
 * The redactor's prefilter (`anchors` in `src/config/redactRules.ts`): a rule is skipped for a
 * text that holds none of its literals. These tests attack that fast path: every rule, alone
 * and in order, must give with the prefilter exactly what it gives without it, over generated
 * text made of the rules' own pieces (anchors in any case, secret-looking runs, separators,
 * letters whose case mapping leaves ASCII, surrogate pairs), and over the shapes a skip could
 * get wrong: an anchor that an earlier rule's replacement makes or removes, a rule that
 * matches the empty string, a rule with no anchors, a secret at the end of the text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, rememberSecretValues, redact } from '../../src/config/redact.js';
import { applyRules, redactPatterns, redactPatternsWithoutAnchors, rules, type Rule } from '../../src/config/redactRules.js';

const rep = (s: string, n: number): string => s.repeat(n);

// The pieces texts are built from: every anchor and the words around them, secret-looking
// runs, separators, and characters whose case mapping crosses into ASCII (Kelvin sign K,
// long s, dotless i, dotted I) or that take two code units.
const anchorPieces = [...new Set(rules.flatMap((r) => r.anchors?.any ?? []))];
const PIECES = [
  ...anchorPieces,
  ...anchorPieces.map((a) => a.toUpperCase()),
  'api key', 'API_KEY', 'Token', 'PassWord', 'pass', 'sig', 'eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxIn0', '.eyJ',
  'authorization', 'Authorization: ', 'Bearer ', 'basic ', 'Cookie: ', '://', 'user:pw@', 'https://', '?', '&', '=', ':', ': ', ' is ', 'was',
  '"', "'", '\\', '\n', '\r\n', '\t', ' ', '.', ',', ';', '-', '_', '/', '@', '[', ']', REDACTED,
  rep('a1B2', 6), rep('0a1b', 10), rep('AB12', 4), rep('Zz9', 12), 'hunter2', 'abc123def',
  '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----', 'hooks.slack.com/services/', 'AKIA', 'AIza', 'SG.',
  'variable "a_token" {', ' default = "x" }', '.\neyJa', '\u212Aey', 'to\u212Aen', '\u017Fk-', 'pa\u017F\u017F', 'p\u0131n code', '\u0130', '\u{1F511}', '\u00E9', '\u2019', '\u201C',
];
const piece = fc.constantFrom(...PIECES);
const text = fc.array(fc.oneof({ weight: 4, arbitrary: piece }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) }), { maxLength: 24 }).map((xs) => xs.join(''));

/** A rule applied alone to the whole text, as it ran before the prefilter. */
const alone = (rule: Rule, input: string): string => {
  const { anchors: _anchors, ...bare } = rule;
  return applyRules([bare], input);
};

describe('redaction anchors: identical results with and without the prefilter', () => {
  it('every rule, alone: it changes no text that holds none of its anchors', () => {
    fc.assert(
      fc.property(text, (input) => {
        for (const rule of rules) expect(applyRules([rule], input), rule.name).toBe(alone(rule, input));
      }),
      { numRuns: 3_000 },
    );
    // Its cost grows with the rule count (130 rules: 11.5 s alone at load 18, 47 s beside eight
    // other test files): a guard against a hang, not a time budget.
  }, 180_000);

  it('all rules in order: the same text out', () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(redactPatterns(input)).toBe(redactPatternsWithoutAnchors(input));
      }),
      { numRuns: 3_000 },
    );
  });

  it('every anchored rule meets a text it changes in its own tests only through an anchor', () => {
    // One secret per rule, each of which the rule changes alone: the prefilter must let it run.
    const samples = [
      '-----BEGIN EC PRIVATE KEY-----\nabc', 'AUTHORIZATION= x', 'X-Api-Key: x', 'set-COOKIE: a=b', 'BEARER abcdefghij', 'Basic dXNlcjpwYXNz',
      'ftp://u:p@h', `https://${rep('x1', 12)}@h`, '?SIG=abc', '"Client_Secret": "v"', `sk-${rep('a1', 10)}`, `rk_live_${rep('a1', 6)}`,
      `whsec_${rep('a1', 11)}`, `hsk-${rep('a1', 9)}`, `ghr_${rep('a1', 11)}`, `glcbt-${rep('a1', 11)}`, 'xoxe-abcdefghijk',
      `hooks.slack.com/workflows/${rep('a1', 11)}`, `ASCA${rep('A1', 8)}`, `AIza${rep('a', 35)}`, `npm_${rep('a1', 18)}`,
      `pypi-AgEIcHlwaS5vcmc${rep('a', 40)}`, `hf_${rep('a1', 15)}`, `SG.${rep('a', 16)}.${rep('b', 16)}`, `shpss_${rep('a1', 16)}`,
      `dor_v1_${rep('a1', 32)}`, `dapi${rep('a1', 16)}`, `SK${rep('a1', 16)}`, `x.eyJhbGciOiJ.eyJzdWIiOi.sign`, 'eyJhbGciOiJ.eyJzdWIiOi.sign', 'sharedAccessSignature=x',
      'DB_CREDENTIALS=x', 'my-PWD=x', 'PIN CODE is 1234', `CREDENTIAL ${rep('a1', 11)}`,
      'redis://:pw@h', '{\\"Password\\":\\"x\\"}', `dckr_pat_${rep('a1', 10)}`, `ya29.${rep('a1', 10)}`, `discord.com/api/webhooks/1/${rep('a1', 10)}`,
      "API_TOKEN='two words'", '--PASSWORD x', 'curl -U u:p', '<Db.Password>x</Db.Password>',
      // The ninth session's: a secret's wrapped rest, a shell continuation, base64 of a secret.
      '[REDACTED]\nAbc123xyz', '--token \\\n  x', `echo ${Buffer.from(`sk-${rep('a1', 10)}`).toString('base64')} | base64 -d`,
      // The tenth session's: `=>`, `.netrc` and more providers.
      "'db_password' => 'x'", 'login u password x', `gsk_${rep('a1', 10)}`, `xai-${rep('a1', 10)}`, `lin_oauth_${rep('a1', 10)}`, `hvb.${rep('a1', 10)}`,
      `AGE-SECRET-KEY-1${rep('A1', 20)}`, `NRJS-${rep('a1', 10)}`, `ATATT3${rep('a1', 10)}`, `dp.ct.${rep('a1', 10)}`, `pul-${rep('a1', 20)}`,
      `${rep('a1', 7)}.atlasv1.${rep('a1', 20)}`, `key-${rep('a1', 16)}`, `12345678:AA${rep('a1', 15)}`,
      // The tenth session's second round: PEM headers in any case, PuTTY keys, password hashes, fish, sshpass, npm, Docker, .pgpass.
      '----begin ec private key----\nabc', 'PuTTY-User-Key-File-2: ssh-rsa\nx', `$2y$10$${rep('a1', 26)}a`, `$6$salt$${rep('a1', 11)}`, `$y$j9T$salt$${rep('a1', 11)}`,
      `$argon2i$v=19$m=1,t=1,p=1$c2FsdA$${rep('a1', 8)}`, 'SET -X API_KEY v', 'sshpass -p x', 'npm set _auth x', `pbkdf2_sha1$1$s$${rep('a1', 8)}`, `{"auth":"${Buffer.from('user:pw12').toString('base64')}"}`, 'h:5432:db:u:pw',
      // Round 7: URL passwords with spaces, password lines, LDAP and scrypt hashes, escaped Docker auth, hex of a secret.
      'A://u:two words@h', 'x\n  Db_PassWord: two words', `{SSHA512}${rep('a1', 4)}`, `$s0$e0801$c2FsdA==$${rep('a1', 8)}`, `$7$${rep('a', 11)}$${rep('a1', 11)}`,
      `$scrypt$ln=1,r=1,p=1$salt$${rep('a1', 8)}`, `$pbkdf2-sha256$1$salt$${rep('a1', 8)}`, `{\\"auth\\":\\"${Buffer.from('user:pw12').toString('base64')}\\"}`,
      Buffer.from(`sk-${rep('a1', 10)}`).toString('hex'),
      // Round 13: a JWT over lines, Terraform's secret variable default, `_PRIVATE`.
      'eyJhbGciOiJ.\neyJzdWIiOi.\nsign', 'variable "db_password" {\n  default = "x"\n}', 'STRIPE_PRIVATE=x',
      `r8_${rep('a1', 15)}`, `secret_${rep('a1', 21)}a`, `pat${rep('a1', 7)}.${rep('a1', 32)}`, `1//0${rep('a1', 20)}`, `AAAA${rep('a', 7)}:APA91b${rep('a1', 50)}`, `sk.eyJ${rep('a1', 10)}.${rep('a1', 10)}`,
      'Passwort: x', 'contraseña es x', '密码是x', 'la password è x',
    ];
    for (const sample of samples) {
      const changedBy = rules.filter((rule) => alone(rule, sample) !== sample);
      expect(changedBy.length, sample).toBeGreaterThan(0);
      for (const rule of changedBy) expect(applyRules([rule], sample), `${rule.name} on ${sample}`).toBe(alone(rule, sample));
      expect(redactPatterns(sample)).toBe(redactPatternsWithoutAnchors(sample));
    }
  });

  it('anchors in any ASCII case; letters that only look like ASCII neither hide nor add a match', () => {
    for (const input of ['TOKEN=abc123', 'ToKeN: abc123', 'my PASSWORD is hunter2', 'x-API-key: zz']) {
      expect(redact(input)).toContain(REDACTED);
      expect(redactPatterns(input)).toBe(redactPatternsWithoutAnchors(input));
    }
    // The Kelvin sign lower-cases to `k`: the prefilter lets the rule run, and the rule (no `u`
    // flag) does not take it for a `k`, exactly as without the prefilter.
    for (const input of ['to\u212Aen=abc123', '\u212Aey: value', 'pa\u017F\u017Fword is x', '\u0130\u0130 token=v \u{1F511}']) {
      expect(redactPatterns(input)).toBe(redactPatternsWithoutAnchors(input));
    }
  });

  it('a secret at the very end or start of the text, with no character after or before it', () => {
    for (const secret of [`ghp_${rep('A1b2', 9)}`, 'password: hunter2', `AKIA${rep('ABCD2345', 2)}`, 'Authorization: Bearer abcdefgh']) {
      for (const input of [secret, `x ${secret}`, `${secret} x`]) {
        expect(redactPatterns(input)).toBe(redactPatternsWithoutAnchors(input));
        expect(redactPatterns(input)).toContain(REDACTED);
      }
    }
  });

  it('a rule with no anchors runs on every text, and one that matches the empty string is applied too', () => {
    const empty: Rule = { name: 'empty match', pattern: /(?:)/g, replace: '|' };
    const unanchored: Rule = { name: 'no literal', pattern: /[0-9]{3,}/g, replace: REDACTED };
    for (const input of ['', 'abc', 'x 12345 y', '\u{1F511}']) {
      expect(applyRules([empty], input)).toBe(input.replace(/(?:)/g, '|'));
      expect(applyRules([unanchored], input)).toBe(input.replace(/[0-9]{3,}/g, REDACTED));
      expect(applyRules([...rules, empty, unanchored], input)).toBe(redactPatternsWithoutAnchors(input).replace(/(?:)/g, '|').replace(/[0-9]{3,}/g, REDACTED));
    }
  });

  it('an anchor an earlier rule removes or rewrites is looked for again in the rewritten text', () => {
    // The first rule writes the second one's anchor; the second must then run.
    const writes: Rule = { name: 'writes an anchor', pattern: /zz/g, replace: 'TOKEN' };
    const needsToken: Rule = { name: 'needs token', pattern: /token/gi, replace: REDACTED, anchors: { any: ['token'], ignoreCase: true } };
    expect(applyRules([writes, needsToken], 'a zz b')).toBe(`a ${REDACTED} b`);
    // The lower-cased copy made for an earlier rule is not reused once a rule changed the text.
    const looksEarly: Rule = { name: 'looks early', pattern: /never/g, replace: '', anchors: { any: ['foo'], ignoreCase: true } };
    expect(applyRules([looksEarly, writes, needsToken], 'FOO zz')).toBe(`FOO ${REDACTED}`);
    const removes: Rule = { name: 'removes the anchor', pattern: /token/gi, replace: 'x' };
    expect(applyRules([looksEarly, removes, needsToken], 'foo TOKEN')).toBe('foo x');
  });

  it('known values (from the config) are found whatever the anchors say', () => {
    const value = 'qqqqzzzzwwww7777';
    rememberSecretValues([value]);
    expect(redact(`plain words ${value} more`)).toBe(`plain words ${REDACTED} more`);
  });
});
