/**
 * Attack (round 7): the credential shapes the sixth round left.
 * - A URL whose password holds spaces (`postgres://app:two words here@db`) or an `@` (`p@ss`).
 * - An unquoted password in words on a line of its own: `password=correct horse battery
 *   staple`, `PASSWORD: two words` (.env, YAML, INI): only the first word was hidden.
 * - LDAP password values (`{SSHA}…`, `{SSHA512}…`, `{PBKDF2-SHA512}…`), also inside LDIF's
 *   base64 form (`userPassword:: …`); scrypt hashes (`$s0$…`, `$7$…`, passlib's `$scrypt$…`) and
 *   passlib's `$pbkdf2-sha256$…`.
 * - Docker's `auth` inside JSON escaped in a string (`\"auth\":\"…\"`, a Kubernetes secret).
 * - Hex of a secret (`xxd -p`, `0x…`).
 * - A key or a secret's name disguised by look-alike letters: a Cyrillic `р` in `ghp_`, a Cyrillic
 *   `а` in `password`, fullwidth letters, a Unicode hyphen in `sk-`.
 * Each through `redact`, then the real `memory_retain` into the real queue journal and the
 * embedded server: neither holds any part of the secret. Look-alikes of each stay readable.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/config/redact.js';
import { describeRetainedPastes, expectPasteRedacted, type Paste } from '../helpers/redactedPastes.js';

// Built at run time so the fixtures themselves do not look like committed secrets.
const rep = (s: string, n: number) => s.repeat(n);
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');

const SSHA = `{SSHA}${b64(`${rep('s4lt', 3)}pw-digest-${rep('Qx', 4)}`)}`;
const SSHA512 = `{SSHA512}${b64(rep('k9Zq', 20))}`;
const PBKDF2 = `{PBKDF2-SHA512}10000$${rep('Sa1t', 4)}$${rep('H4sh', 10)}`;
const SCRYPT_S0 = `$s0$e0801$${b64(rep('salt', 4))}$${b64(rep('h4sh', 8))}`;
const SCRYPT_7 = `$7$C6..../....${rep('Na', 6)}$${rep('kBGj9fHznVYFQMEn', 3)}`;
const PASSLIB_SCRYPT = `$scrypt$ln=16,r=8,p=1$${rep('aM15', 4)}$${rep('Xq7/', 10)}`;
const PASSLIB_PBKDF2 = `$pbkdf2-sha256$29000$${rep('N2Zl', 4)}$${rep('Zr9.', 10)}`;
const STRIPE = `sk_live_${rep('a1B2', 6)}`;
const GHP_TAIL = rep('aB3d', 9);

const PASTES: readonly Paste[] = [
  ['a URL password with spaces', `DATABASE_URL used by the job: postgres://app:two words h3re@db.example.com:5432/app\nok`, ['two words', 'h3re'], 'db.example.com:5432/app'],
  ['a URL password holding an @', `git remote add origin https://ann:p@ss-${rep('W0', 4)}@git.example.com/repo.git`, [`ss-${rep('W0', 4)}`], 'git.example.com/repo.git'],
  ['a URL password in percent-encoding', `redis://default:p%40ss%20w0rd%21${rep('Zz', 3)}@cache:6379/0`, [`p%40ss%20w0rd%21${rep('Zz', 3)}`], 'cache:6379/0'],
  ['an unquoted password in words, .env', `DB_HOST=db\npassword=correct horse battery ${rep('st4ple', 2)}\nDB_PORT=5432`, ['correct horse', 'battery', rep('st4ple', 2)], 'DB_PORT=5432'],
  ['an unquoted password in words, YAML', `database:\n  host: db\n  PASSWORD: two words ${rep('Yq', 3)}\n  port: 5432`, ['two words', rep('Yq', 3)], 'port: 5432'],
  ['an exported passphrase in words', `gpg setup:\nexport GPG_PASSPHRASE=open sesame ${rep('Gq', 3)}\ngpg --batch`, ['open sesame', rep('Gq', 3)], 'gpg --batch'],
  ['an LDAP {SSHA} value', `dn: uid=ann,ou=people\nuserPassword: ${SSHA}\nmail: ann@example.com`, [SSHA.slice(6)], 'mail: ann@example.com'],
  ['an LDAP {SSHA512} value mid-line', `slappasswd printed ${SSHA512} for ann`, [SSHA512.slice(9)], 'for ann'],
  ['an LDAP {PBKDF2-SHA512} value', `olcRootPW ${PBKDF2}\nolcSuffix: dc=example`, [rep('H4sh', 10)], 'olcSuffix'],
  ['an LDIF base64 userPassword', `userPassword:: ${b64(SSHA)}\ncn: ann`, [b64(SSHA)], 'cn: ann'],
  ['a scrypt $s0$ hash', `hash ${SCRYPT_S0} stored`, [b64(rep('h4sh', 8))], 'stored'],
  ['a scrypt $7$ hash', `ann:${SCRYPT_7}:19000::`, [rep('kBGj9fHznVYFQMEn', 3)], ':19000::'],
  ['a passlib scrypt hash', `hash=${PASSLIB_SCRYPT} ok`, [rep('Xq7/', 10)], ' ok'],
  ['a passlib pbkdf2 hash', `| ann | ${PASSLIB_PBKDF2} |`, [rep('Zr9.', 10)], '| ann |'],
  ['Docker auth in escaped JSON', `"{\\"auths\\":{\\"registry.example.com\\":{\\"auth\\":\\"${b64(`ann:D0cker-${rep('pw', 4)}`)}\\"}}}"`, [b64(`ann:D0cker-${rep('pw', 4)}`)], 'registry.example.com'],
  ['Docker auth escaped twice', `"{\\\\\\"auth\\\\\\":\\\\\\"${b64(`bob:Tw1ce-${rep('pw', 4)}`)}\\\\\\"}"`, [b64(`bob:Tw1ce-${rep('pw', 4)}`)], '{'],
  ['hex of a key', `xxd -p key.txt\n${hex(STRIPE)}\ndone`, [hex(STRIPE)], 'done'],
  ['hex of a key after 0x', `const k = 0x${hex(`ghp_${GHP_TAIL}`)};`, [hex(`ghp_${GHP_TAIL}`)], 'const k ='],
  ['a key with a Cyrillic letter in its prefix', `token ghр_${GHP_TAIL} (copied)`, [GHP_TAIL], '(copied)'],
  ['a key in fullwidth letters', `ｇｈｐ_${GHP_TAIL} end`, [GHP_TAIL], ' end'],
  ['a key with a Unicode hyphen', `OPENAI sk\u2010proj-${rep('a1B2', 6)} end`, [rep('a1B2', 6)], ' end'],
  ['a password name with a Cyrillic letter', `pаssword=hunter2-${rep('Hx', 4)} done`, [`hunter2-${rep('Hx', 4)}`], ''],
  ['a password name with Greek letters in a sentence', `the DB_PΑSSWΟRD=Gr33k-${rep('Kq', 4)} was set`, [`Gr33k-${rep('Kq', 4)}`], 'was set'],
];

describe('secrets in the shapes the sixth round left', () => {
  it.each(PASTES)('%s: redact hides every part, keeps the rest, and a second pass changes nothing', (_name, text, parts, kept) => {
    expectPasteRedacted(text, parts, kept);
  });

  it('look-alikes of each stay readable', () => {
    for (const text of [
      'see https://example.com:8080 is the port, mail me@x.org',
      'http://localhost:3000 and then ann@example.com',
      'postgres://db.example.com:5432/app',
      'the password field is required',
      'Password: see the vault entry', // prose mid-line keeps its sentence below
      'passwords: 3 rotated',
      'the {SSHA} scheme and {SHA} are LDAP schemes',
      'costs $7 or $7.50',
      '"auth": "none"',
      'commit 3f786850e387550fdab836ed7e6dc881de23001b',
      'sha256 9fceb02d0ae598e95dc970b74767f19372d61af8a2f1b0e3c2d4e5f6a7b8c9d0',
      'Привет, как дела? Всё хорошо, vault работает.',
      'Καλημέρα κόσμε, ο server είναι έτοιμος',
      'Windows‑версия и Linux-версия',
      '日本語：ファイル（設定）を確認',
    ]) {
      const out = redact(text);
      if (text.startsWith('Password: ')) {
        // A line of its own under a password word: its value is taken (recall over precision).
        expect(out).toBe('Password: [REDACTED]');
        expect(redact(`Set the Password: see the vault entry`)).toBe('Set the Password: [REDACTED] the vault entry');
        continue;
      }
      expect(out, text).toBe(text);
    }
  });
});

describeRetainedPastes(PASTES);
