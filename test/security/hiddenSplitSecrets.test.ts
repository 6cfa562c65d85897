/**
 * Attack (tenth session): secrets the shape rules did not see because something sat inside them
 * or because their shape was unknown.
 * - Split by a terminal colour code: `grep --color=always TOKEN .env` prints
 *   `ESC[01;31mESC[KAPI_TOKENESC[mESC[K=value`, so no rule saw `API_TOKEN=`; a key printed in two
 *   colours kept both halves.
 * - Split by an invisible character: a key copied from a chat with a zero-width space, a soft
 *   hyphen or a word joiner in it.
 * - PHP and Ruby hashes (`'password' => 'x'`, `:password => "x"`): the rules took `>` for the
 *   value and kept the password.
 * - A `.netrc` line (`machine h login u password x`): no `=` or `:` before the value.
 * - A URL whose password holds a `/` (generated passwords do): the rule stopped at the slash.
 * - Keys of providers with a known prefix that no rule had: Groq, xAI, Linear, Vault, age, New
 *   Relic, Atlassian, Doppler, Pulumi, Terraform Cloud, Mailgun, Telegram bots.
 * Each goes through the redactor, then the real `memory_retain` tool into the real queue
 * journal and the embedded server: neither holds any part of the secret.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/config/redact.js';
import { describeRetainedPastes, expectPasteRedacted, type Paste } from '../helpers/redactedPastes.js';

// Built at run time so the fixtures themselves do not look like committed secrets.
const rep = (s: string, n: number) => s.repeat(n);
const ESC = '\u001b';

/** [name, pasted text, parts of the secret (none may survive), a part of the text that must stay readable]. */
const PASTES: readonly Paste[] = [
  ['grep --color of a .env line', `.env:3:${ESC}[01;31m${ESC}[KAPI_TOKEN${ESC}[m${ESC}[K=tok_${rep('8f3a', 6)}\nPORT=8080`, [`tok_${rep('8f3a', 6)}`], 'PORT=8080'],
  ['grep --color of a password', `${ESC}[35mconfig/db.yml${ESC}[m:${ESC}[01;31mDB_PASSWORD${ESC}[m=hunter2-${rep('s3cr', 3)}`, [`hunter2-${rep('s3cr', 3)}`], 'config/db.yml'],
  ['a token printed in two colours', `printed ${ESC}[1mghp_${rep('AbCd', 3)}${ESC}[0m${rep('EfGh', 4)}12 done`, [`ghp_${rep('AbCd', 3)}`, `${rep('EfGh', 4)}12`], 'done'],
  ['an OSC title inside a key', `sk_live_${rep('9Zq', 3)}${ESC}]0;title\u0007${rep('Wx7', 6)} end`, [`sk_live_${rep('9Zq', 3)}`, rep('Wx7', 6)], 'end'],
  ['a zero-width space in a key', `use ghp_${rep('AbCd', 3)}\u200b${rep('EfGh', 4)}12 here`, [`ghp_${rep('AbCd', 3)}`, `${rep('EfGh', 4)}12`], 'here'],
  ['a soft hyphen in an AWS key id', `AKIA\u00ad${rep('IOSF', 4)} is the id`, [`${rep('IOSF', 4)}`], 'is the id'],
  ['a word joiner in a secret name', `pass\u2060word=${rep('Hq9', 5)}`, [rep('Hq9', 5)], 'word='],
  ['a PHP config array', `'host' => 'db',\n'password' => '${rep('PhP9', 4)}',`, [rep('PhP9', 4)], "'host' => 'db'"],
  ['a Ruby hash', `{ :user => "ann", :password => "${rep('Rb7x', 4)}" }`, [rep('Rb7x', 4)], ':user => "ann"'],
  ['a .netrc line', `machine api.example.com login bob password ${rep('N3trc', 3)}\nmachine b`, [rep('N3trc', 3)], 'machine b'],
  ['Groq key', `GROQ: gsk_${rep('aB3d', 13)}`, [rep('aB3d', 13)], 'GROQ'],
  ['xAI key', `key xai-${rep('aB3d', 20)}`, [rep('aB3d', 20)], 'key'],
  ['Linear key', `linear lin_api_${rep('aB3d', 10)}`, [rep('aB3d', 10)], 'linear'],
  ['Vault token', `VAULT hvs.CAES${rep('aB3d', 20)}`, [rep('aB3d', 20)], 'VAULT'],
  ['age secret key', `AGE-SECRET-KEY-1${rep('QX7Z', 14)}`, [rep('QX7Z', 14)], ''],
  ['New Relic key', `nr NRAK-${rep('A7BC', 7)}`, [rep('A7BC', 7)], 'nr'],
  ['Atlassian token', `jira ATATT3xFfGF0${rep('aB3d', 12)}`, [rep('aB3d', 12)], 'jira'],
  ['Doppler token', `dp.st.dev.${rep('aB3d', 10)}`, [rep('aB3d', 10)], ''],
  ['Pulumi token', `pul-${rep('0a1b', 10)}`, [rep('0a1b', 10)], ''],
  ['Terraform Cloud token', `${rep('aB3d', 3)}ab.atlasv1.${rep('aB3d', 16)}`, [rep('aB3d', 16)], ''],
  ['Mailgun key', `MG key-${rep('3ax6', 8)} ok`, [rep('3ax6', 8)], 'ok'],
  ['a database URL whose password holds slashes', `DATABASE_URL=postgres://app:wJal${rep('rX/K7', 4)}Zz@db.internal:5432/app`, [`wJal${rep('rX/K7', 4)}Zz`, 'rX/K7'], 'db.internal:5432/app'],
  ['a service-account OAuth token', `gcloud auth print-access-token\nya29.c.b0AXv0${rep('zTPq', 8)}`, [rep('zTPq', 8)], 'gcloud auth'],
  ['Telegram bot URL', `https://api.telegram.org/bot123456789:AA${rep('Hdq7', 8)}x/sendMessage`, [rep('Hdq7', 8)], '/sendMessage'],
];

describe('secrets split by invisible characters, hashes, .netrc and more providers are redacted', () => {
  it.each(PASTES)('%s: redact hides every part, keeps the rest, and a second pass changes nothing', (_name, text, parts, kept) => {
    expectPasteRedacted(text, parts, kept);
  });

  it('look-alikes stay readable, colour codes and all', () => {
    for (const text of [
      `${ESC}[32mPASS${ESC}[0m tests/config.test.ts (12 tests)`,
      `${ESC}[1mwarning${ESC}[0m: unused variable \`token\``,
      'a family emoji 👨\u200d👩\u200d👧 and a soft\u00adhyphen',
      "'count' => 3, :name => \"x\"",
      'machine api.example.com login bob',
      'key-value store',
      'https://registry.npmjs.org:443/@scope/pkg',
      'http://localhost:3000/api/@me and https://example.com/users/@alice',
      'http://[::1]:8080/@x',
    ]) {
      expect(redact(text)).toBe(text);
    }
  });
});

describeRetainedPastes(PASTES);
