/**
 * The secret shapes `redact` recognises. Patterns favour recall over precision: a redacted
 * benign token costs a little readability, a leaked key costs an incident.
 *
 * Provider rules follow the prefixes published by the providers and collected by gitleaks'
 * rule set (read as a reference; no rule text is copied). A provider key is matched after
 * any non-alphanumeric character, not at a `\b`: `TOOL_AKIA...` has no word boundary before
 * `AKIA`.
 */

export const REDACTED = '[REDACTED]';

export interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
  readonly replace: string;
}

// Not preceded by a letter or digit: a key glued to `_` or `-` is still found.
const START = '(?<![A-Za-z0-9])';
const END = '(?![A-Za-z0-9])';

// Words that make the value after them a secret: `password: x`, `API_KEY=x`, `"token": "x"`.
// A name must end in the word (or continue after `_`, `.`, `-`): `maxTokens` is a count.
const SECRET_WORD = String.raw`(?:api[_ -]?key|apikey|access[_-]?key|secret[_-]?key|account[_-]?key|shared[_-]?access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|secret|password|passphrase|passwd|pwd|credentials?|private[_-]?key|client[_-]?secret)`;
// Not already redacted.
const FRESH = String.raw`(?!\[REDACTED\])`;

const provider = (name: string, body: string, flags = 'g'): Rule => ({ name, pattern: new RegExp(`${START}${body}`, flags), replace: REDACTED });

export const rules: readonly Rule[] = [
  // Any armoured private key: RSA, EC, OPENSSH, ENCRYPTED, PGP ... KEY BLOCK. An unterminated
  // block is hidden to the end of the text.
  {
    name: 'armoured private key',
    pattern: /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    replace: REDACTED,
  },
  // A whole header line: the scheme may be anything (Bearer, Basic, Token, a raw key).
  { name: 'authorization header', pattern: new RegExp(String.raw`\b((?:proxy-)?authorization\s*[:=]\s*)${FRESH}[^\r\n]+`, 'gi'), replace: `$1${REDACTED}` },
  { name: 'api key header', pattern: new RegExp(String.raw`\b(x-api-key\s*:\s*)${FRESH}[^\r\n]+`, 'gi'), replace: `$1${REDACTED}` },
  { name: 'cookie header', pattern: new RegExp(String.raw`\b((?:set-)?cookie\s*:\s*)${FRESH}[^\r\n]+`, 'gi'), replace: `$1${REDACTED}` },
  { name: 'bearer token', pattern: new RegExp(String.raw`\b(bearer\s+)${FRESH}[A-Za-z0-9._~+/=-]{8,}`, 'gi'), replace: `$1${REDACTED}` },
  { name: 'basic credentials', pattern: new RegExp(String.raw`\b(basic\s+)${FRESH}[A-Za-z0-9+/]{12,}={0,2}`, 'gi'), replace: `$1${REDACTED}` },
  // `scheme://user:pass@host` and `scheme://longtoken@host`; a plain `git@` stays readable.
  { name: 'url credentials', pattern: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:]+):([^\s/@]*)@/gi, replace: `$1${REDACTED}@` },
  { name: 'url token user', pattern: new RegExp(String.raw`\b([a-z][a-z0-9+.-]*:\/\/)${FRESH}([A-Za-z0-9_-]{20,})@`, 'gi'), replace: `$1${REDACTED}@` },
  {
    name: 'url secret query parameter',
    pattern: new RegExp(String.raw`([?&][^=&\s#]*(?:${SECRET_WORD}|pass|sig|signature|key)[^=&\s#]*=)${FRESH}[^&\s#]+`, 'gi'),
    replace: `$1${REDACTED}`,
  },
  // JSON-ish `"apiKey": "value"` (before the bare key=value rule so the quotes survive).
  {
    name: 'json secret field',
    pattern: new RegExp(String.raw`("[^"\n]*(?:${SECRET_WORD}|[_.-]pass)(?:[_.-][^"\n]*)?"\s*:\s*")${FRESH}((?:[^"\\\n]|\\.)+)(")`, 'gi'),
    replace: `$1${REDACTED}$3`,
  },
  // Provider-shaped keys, recognisable anywhere.
  provider('openai/anthropic key', String.raw`sk-(?:proj-|ant-(?:api\d+-)?|live-|test-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}`),
  provider('stripe key', String.raw`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`),
  provider('stripe webhook secret', String.raw`whsec_[A-Za-z0-9]{20,}`),
  provider('hindsight key', String.raw`(?:hs|hsk)[_-][A-Za-z0-9_-]{16,}`),
  provider('github token', String.raw`(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`),
  provider('gitlab token', String.raw`gl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_-]{20,}`),
  provider('slack token', String.raw`xox[abposre]-[A-Za-z0-9-]{10,}`),
  { name: 'slack webhook', pattern: /hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]{20,}/g, replace: REDACTED },
  provider('aws access key id', String.raw`(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}${END}`),
  provider('google api key', String.raw`AIza[0-9A-Za-z_-]{35}`),
  provider('npm token', String.raw`npm_[A-Za-z0-9]{36}${END}`),
  provider('pypi token', String.raw`pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}`),
  provider('huggingface token', String.raw`hf_[A-Za-z0-9]{30,}`),
  provider('sendgrid key', String.raw`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`),
  provider('shopify token', String.raw`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`),
  provider('digitalocean token', String.raw`do[opr]_v1_[a-f0-9]{64}`),
  provider('databricks token', String.raw`dapi[a-f0-9]{32}`),
  provider('twilio key', String.raw`SK[0-9a-fA-F]{32}${END}`),
  provider('jwt', String.raw`eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}`),
  // Azure storage / service bus connection strings: `AccountKey=...;`, `SharedAccessKey=...`.
  {
    name: 'azure connection string key',
    pattern: new RegExp(String.raw`\b((?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*)${FRESH}[^;\s"']+`, 'gi'),
    replace: `$1${REDACTED}`,
  },
  // Env-style names in capitals: `DB_PASS=x`, `STRIPE_KEY=x`, `SESSION_SECRET: x`.
  {
    name: 'env secret assignment',
    pattern: new RegExp(String.raw`(\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:PASS|PASSWD|PASSWORD|PWD|SECRET|TOKEN|KEY|CREDENTIALS?)["']?\s*[:=]\s*["']?)${FRESH}([^\s"',;&)}\]]+)`, 'g'),
    replace: `$1${REDACTED}`,
  },
  // `NAME=value`, `password: value`, `token value` where the name looks secret.
  {
    name: 'secret assignment',
    pattern: new RegExp(String.raw`(\b(?:[A-Za-z0-9_.-]*${SECRET_WORD}|(?:[A-Za-z0-9]+[_.-])+pass)(?:[_.-][A-Za-z0-9_.-]*)?(?![A-Za-z0-9])["']?\s*[:=]\s*["']?)${FRESH}([^\s"',;&)}\]]+)`, 'gi'),
    replace: `$1${REDACTED}`,
  },
  // Prose: "my password is hunter2", "the passphrase was: x". A password word makes the next
  // word the secret, whatever it looks like.
  {
    name: 'password in prose',
    pattern: new RegExp(String.raw`(\b(?:password|passphrase|passcode|passwd|pwd|pin code)\s+(?:is|was|will be|=|:)\s*[:=]?\s*["'\u2018\u201c]?)${FRESH}([^\s"'\u2019\u201d]+?)(?=["'\u2019\u201d]?(?:[.,;!?)]*(?:\s|$)))`, 'gi'),
    replace: `$1${REDACTED}`,
  },
  {
    name: 'secret after key word',
    // A long hex/base64-looking run with at least one digit, right after a key-ish word.
    pattern: new RegExp(String.raw`(\b${SECRET_WORD}\s+(?:is\s+)?)${FRESH}(?=[A-Za-z0-9+/_=-]*\d)([A-Za-z0-9+/_=-]{20,})`, 'gi'),
    replace: `$1${REDACTED}`,
  },
];

/** Every rule applied in order. Idempotent: a rule never matches its own output. */
export const redactPatterns = (text: string): string => {
  let out = text;
  for (const rule of rules) out = out.replace(rule.pattern, rule.replace);
  return out;
};
