/**
 * Attack (tenth session, second round): the credential shapes helper 58 found the redactor
 * still passed.
 * - `SSHPASS=x` and `sshpass -p x`: `pass` glued to `SSH` is no secret word.
 * - fish's `set -x NAME value` / `set -gx NAME value`: no `=` or `:` between name and value.
 * - `npm config set //registry/:_authToken value` and `.npmrc`'s `_auth=<base64 of user:pw>`.
 * - Password hashes: bcrypt (`$2b$…`), crypt (`$6$…`, `$5$…`, `$1$…`, `$y$…`), Apache's
 *   `$apr1$…` (htpasswd), argon2 (`$argon2id$…`): a hash leaks the password to a cracker.
 * - A PEM private key with a lower-case or four-dash header (`-----begin rsa private key-----`).
 * - A PuTTY private key (`PuTTY-User-Key-File-3:` … `Private-Lines:` …).
 * - A `.pgpass` line (`host:port:db:user:password`).
 * - Docker's `"auth": "<base64 of user:pw>"`.
 * Kept here too, hidden before this round: a quoted password with spaces, `Authorization: Basic`,
 * `.npmrc`'s scoped `_authToken=`.
 * Each goes through the redactor, then the real `memory_retain` tool into the real queue
 * journal and the embedded server: neither holds any part of the secret.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/config/redact.js';
import { describeRetainedPastes, expectPasteRedacted, type Paste } from '../helpers/redactedPastes.js';

// Built at run time so the fixtures themselves do not look like committed secrets.
const rep = (s: string, n: number) => s.repeat(n);
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

const BCRYPT = `$2b$12$${rep('R9h/cIPz0gi.', 4)}${rep('Kx', 2)}q`;
const SHA512_CRYPT = `$6$s4ltS4lt$${rep('qFmFH.bQmmtXzyBY0s9v7', 4)}Oi/`;
const ARGON2 = `$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$${rep('RdescudvJCsgt3ub', 3)}`;
const APR1 = `$apr1$Qm9vYmFy$${rep('Xy7/zQ', 4)}`;
const PEM_BODY = `MIIEpAIBAAKCAQEA${rep('x9Kq3ZwP', 6)}`;
const PUTTY_PRIVATE = `AAAAIHd9kQz7mP3x${rep('Yq8Lr2', 5)}`;
const PUTTY_MAC = rep('8a7f3b2c', 8);

const PASTES: readonly Paste[] = [
  ['SSHPASS in the environment', `SSHPASS=Hunt3r-${rep('ssH', 3)} sshpass -e ssh deploy@web1\nuptime`, [`Hunt3r-${rep('ssH', 3)}`], 'uptime'],
  ['SSHPASS exported, quoted with a space', `export SSHPASS="two w0rds ${rep('Pq', 4)}"\nls`, ['two w0rds', rep('Pq', 4)], '\nls'],
  ['sshpass -p', `sshpass -p 'S3cret${rep('Zx', 4)}' ssh ann@host uptime`, [`S3cret${rep('Zx', 4)}`], 'ssh ann@host uptime'],
  ['fish set -x', `set -x API_TOKEN tok${rep('9fQ2', 5)}\nset -x PATH /usr/bin`, [`tok${rep('9fQ2', 5)}`], 'set -x PATH /usr/bin'],
  ['fish set -gx, quoted', `set -gx DB_PASSWORD "correct horse ${rep('b4', 4)}"; echo ok`, ['correct horse', rep('b4', 4)], 'echo ok'],
  ['fish set -Ux of a lower-case name', `set -Ux github_token ghx${rep('Qw7', 6)}`, [`ghx${rep('Qw7', 6)}`], 'set -Ux github_token'],
  ['npm config set of an auth token', `npm config set //registry.npmjs.org/:_authToken ${rep('aZ4k', 6)}\nnpm publish`, [rep('aZ4k', 6)], 'npm publish'],
  ['.npmrc _auth in base64', `registry=https://npm.example.com/\n_auth=${b64(`ci:Npm-${rep('pw9', 4)}`)}\nalways-auth=true`, [b64(`ci:Npm-${rep('pw9', 4)}`)], 'always-auth=true'],
  ['bcrypt hash in a users table', `INSERT INTO users VALUES ('ann', '${BCRYPT}');`, [BCRYPT, BCRYPT.slice(7)], "VALUES ('ann'"],
  ['sha512-crypt line of /etc/shadow', `root:${SHA512_CRYPT}:19000:0:99999:7:::`, [SHA512_CRYPT, SHA512_CRYPT.slice(12)], ':19000:0:99999:7:::'],
  ['argon2id hash', `password_hash = ${ARGON2}\nuser = ann`, [ARGON2, rep('RdescudvJCsgt3ub', 3)], 'user = ann'],
  ['htpasswd line', `admin:${APR1}\nguest:x`, [APR1, rep('Xy7/zQ', 4)], 'guest:x'],
  ['lower-case PEM header', `-----begin rsa private key-----\n${PEM_BODY}\n-----end rsa private key-----\nnext`, [PEM_BODY], 'next'],
  ['four-dash PEM header', `----BEGIN OPENSSH PRIVATE KEY----\n${PEM_BODY}\n----END OPENSSH PRIVATE KEY----\nnext`, [PEM_BODY], 'next'],
  [
    'PuTTY private key',
    `cat id.ppk\nPuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ann@laptop\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIOx\nAAAA\nPrivate-Lines: 1\n${PUTTY_PRIVATE}\nPrivate-MAC: ${PUTTY_MAC}\n$ done`,
    [PUTTY_PRIVATE, PUTTY_MAC],
    '$ done',
  ],
  ['.pgpass line', `db.example.com:5432:app:ann:pg-${rep('Pa55', 3)}!\n*:*:*:replica:r3pl-${rep('Qz', 4)}`, [`pg-${rep('Pa55', 3)}!`, `r3pl-${rep('Qz', 4)}`], 'db.example.com:5432:app:ann:'],
  ['.pgpass line echoed', `echo 'localhost:5432:*:postgres:Pg${rep('w0rd', 3)}' >> ~/.pgpass`, [`Pg${rep('w0rd', 3)}`], '>> ~/.pgpass'],
  ['Docker config auth', `{"auths":{"registry.example.com":{"auth":"${b64(`ann:D0cker-${rep('pw', 4)}`)}"}}}`, [b64(`ann:D0cker-${rep('pw', 4)}`)], 'registry.example.com'],
  // Hidden before this round: kept so this round's rules cannot lose them.
  ['.npmrc scoped _authToken', `//npm.pkg.github.com/:_authToken=${rep('gH5t', 6)}\n@acme:registry=https://npm.pkg.github.com`, [rep('gH5t', 6)], '@acme:registry'],
  ['a quoted password with spaces', `password = "two words ${rep('Wq', 3)}"\nhost = db`, ['two words', rep('Wq', 3)], 'host = db'],
  ['an HTTP header with user and password in base64', `Authorization: Basic ${b64(`ann:B4sic-${rep('pw', 4)}`)}\nAccept: */*`, [b64(`ann:B4sic-${rep('pw', 4)}`)], 'Accept: */*'],
];

describe('credential lines, password hashes and key files are redacted', () => {
  it.each(PASTES)('%s: redact hides every part, keeps the rest, and a second pass changes nothing', (_name, text, parts, kept) => {
    expectPasteRedacted(text, parts, kept);
  });

  it("each new rule's look-alike stays readable", () => {
    for (const text of [
      'set -x PATH /usr/bin',
      'set -gx EDITOR vim',
      'set -l token_count 3',
      'sshpass -e ssh deploy@web1',
      'COMPASS=north and BYPASS_CACHE=1',
      'npm config set registry https://registry.npmjs.org/',
      'the _auth field of .npmrc holds base64',
      'write `_auth=`, then the value',
      'costs $2 and $6 each, $5$ total',
      'echo $2$1 and $1$2',
      'the -----BEGIN PUBLIC KEY----- block',
      '----- begin section -----',
      'PuTTY-User-Key-File-3 is the format name',
      'src/a.ts:10:5: error: unused',
      'src/a.ts:10:5:error:unused',
      '12:30:45:00:01',
      'fe80:0:0:0:1',
      '{"auth":"none","authMode":"basic"}',
    ]) {
      expect(redact(text), text).toBe(text);
    }
  });
});

describeRetainedPastes(PASTES);
