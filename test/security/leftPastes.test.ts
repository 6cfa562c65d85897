/**
 * Round 13: the pastes round 12 left whole, each failing on the code before it:
 * - a JWT broken over lines at its dots (`….` then the next part on the next line, or the dot
 *   starting it, real or escaped in JSON), or with its payload wrapped at a terminal's width;
 * - Terraform's `variable "db_password" { … default = "x" }`, the name and the value lines apart;
 * - an env-style name ending `_PRIVATE` (`STRIPE_PRIVATE=x`), and a quoted value under an env
 *   name that is no secret word of the quoted rule (`DB_PW="two words"` kept `words`).
 * Each through `redact` and the run's `cleanText`, and through the real `memory_retain` (real
 * queue, embedded server): the journal and the server hold the note and no part of its secret.
 */
import { describe, expect, it } from 'vitest';
import { redactValue } from '../../src/config/redact.js';
import { cleanText } from '../../src/effects/session/retainProjection.js';
import { describeRetainedPastes, itHidesEachPaste, type Paste } from '../helpers/redactedPastes.js';

const H = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9';
const P = 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ';
const G = 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const JWT_PARTS = [H.slice(3), P.slice(3, 40), P.slice(40), G];
const S = 'Zq8vR2mXk4Lw9Tn3Yp7Hd1Fs6Gj0Bc5Q';

const PASTES: readonly Paste[] = [
  ['jwt broken after its dots', `pasted:\n${H}.\n${P}.\n${G}\nexpires in 1h`, JWT_PARTS, 'expires in 1h'],
  ['jwt broken before its dots', `curl -H @- <<<\n${H}\n.${P}\n.${G}\ndone`, JWT_PARTS, 'done'],
  ['jwt broken with indentation and CRLF', `  ${H}.\r\n  ${P}.\r\n  ${G}\r\nok`, JWT_PARTS, 'ok'],
  ['jwt broken inside JSON text', `{"id_token": "x", "raw": "${H}.\\n${P}.\\n${G}", "n": 1}`, JWT_PARTS, '"n": 1'],
  ['jwt payload wrapped at the width', `${H}.${P.slice(0, 40)}\n${P.slice(40)}.${G}\nnext`, JWT_PARTS, 'next'],
  [
    'terraform variable default',
    `variable "db_password" {\n  description = "The database password"\n  type        = string\n  sensitive   = true\n  default     = "${S}"\n}\n\nvariable "region" {\n  default = "eu-west-1"\n}`,
    S,
    'default = "eu-west-1"',
  ],
  ['terraform variable default, one line', `variable "api_token" { default = "${S} ochre" }`, [S, 'ochre'], 'variable "api_token"'],
  ['terraform heredoc default', `variable "tls_private_key" {\n  default = <<-EOT\n    ${S}\n    ${S.toLowerCase()}\n  EOT\n}\noutput "x" {}`, [S, S.toLowerCase()], 'output "x"'],
  ['env _PRIVATE', `STRIPE_PUBLIC=pk_live_abc\nSTRIPE_PRIVATE=${S}\nSTRIPE_MODE=live`, S, 'STRIPE_MODE=live'],
  ['env _PRIVATE quoted, in words', `export APP_PRIVATE="${S} umber"`, [S, 'umber'], 'export APP_PRIVATE='],
  ['env _PW quoted, in words', `DB_PW='${S} sienna tint'\nDB_USER=app`, [S, 'sienna tint'], 'DB_USER=app'],
];

describe('the pastes round 12 left (round 13)', () => {
  itHidesEachPaste(PASTES);

  it('a JSON field named STRIPE_PRIVATE is hidden whole', () => {
    expect(redactValue({ STRIPE_PRIVATE: 'two words', is_private: 'yes' })).toEqual({ STRIPE_PRIVATE: '[REDACTED]', is_private: 'yes' });
  });

  it('what only looks like them stays as written', () => {
    for (const text of [
      'variable "region" {\n  default = "eu-west-1"\n}',
      'variable "db_password" {\n  type = string\n  default = null\n}',
      'variable "password_length" {',
      'is_private = true',
      'IS_PRIVATE_REPO: yes it is',
      `eyJhbGciOi\nsomething else.\nmore`,
      `${H}\nnot a token`,
      `${H}.\n${P}\nand then a sentence.`,
      'Private: true',
    ]) {
      expect(cleanText(text), text).toBe(text);
    }
  });
});

describeRetainedPastes(PASTES);
