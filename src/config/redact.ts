/**
 * The one redaction function. Every diagnostic, error, receipt, trace line and queue write
 * passes text through `redact` (free text) or `redactValue` (JSON) before it leaves memory.
 * Patterns favour recall over precision: a redacted benign token costs a little readability,
 * a leaked key costs an incident.
 */
import type { JsonValue } from '../machines/shared/codecs.js';

/** What replaces a secret. Constant, so redaction is idempotent and greppable. */
export const REDACTED = '[REDACTED]';

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
  readonly replace: string | ((match: string, ...groups: string[]) => string);
}

// Words that make the value after them a secret: `password: x`, `API_KEY=x`, `"token": "x"`.
// A name must end in the word (or continue after `_`, `.`, `-`): `maxTokens` is a count.
const SECRET_WORD = String.raw`(?:api[_ -]?key|apikey|access[_-]?key|secret[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|secret|password|passwd|pwd|credentials?|private[_-]?key|client[_-]?secret)`;

const rules: readonly Rule[] = [
  {
    name: 'pem private key',
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    replace: REDACTED,
  },
  // A whole header line: the scheme may be anything (Bearer, Basic, Token, a raw key).
  { name: 'authorization header', pattern: /\b((?:proxy-)?authorization\s*[:=]\s*)(?!\[REDACTED\])[^\r\n]+/gi, replace: `$1${REDACTED}` },
  { name: 'cookie header', pattern: /\b((?:set-)?cookie\s*:\s*)(?!\[REDACTED\])[^\r\n]+/gi, replace: `$1${REDACTED}` },
  { name: 'bearer token', pattern: /\b(bearer\s+)(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{8,}/gi, replace: `$1${REDACTED}` },
  { name: 'basic credentials', pattern: /\b(basic\s+)(?!\[REDACTED\])[A-Za-z0-9+/]{12,}={0,2}/gi, replace: `$1${REDACTED}` },
  // `scheme://user:pass@host` and `scheme://longtoken@host`; a plain `git@` stays readable.
  {
    name: 'url credentials',
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:]+):([^\s/@]*)@/gi,
    replace: `$1${REDACTED}@`,
  },
  { name: 'url token user', pattern: /\b([a-z][a-z0-9+.-]*:\/\/)(?!\[REDACTED\])([A-Za-z0-9_-]{20,})@/gi, replace: `$1${REDACTED}@` },
  {
    name: 'url secret query parameter',
    pattern: new RegExp(String.raw`([?&][^=&\s#]*(?:${SECRET_WORD}|sig|signature|key)[^=&\s#]*=)(?!\[REDACTED\])[^&\s#]+`, 'gi'),
    replace: `$1${REDACTED}`,
  },
  // JSON-ish `"apiKey": "value"` (before the bare key=value rule so the quotes survive).
  {
    name: 'json secret field',
    pattern: new RegExp(String.raw`("[^"\n]*${SECRET_WORD}(?:[_.-][^"\n]*)?"\s*:\s*")(?!\[REDACTED\])((?:[^"\\\n]|\\.)+)(")`, 'gi'),
    replace: `$1${REDACTED}$3`,
  },
  // Provider-shaped keys, recognisable anywhere.
  { name: 'openai/anthropic key', pattern: /\bsk-(?:proj-|ant-(?:api\d+-)?|live-|test-)?[A-Za-z0-9_-]{16,}/g, replace: REDACTED },
  { name: 'hindsight key', pattern: /\b(?:hs|hsk)[_-][A-Za-z0-9_-]{16,}/g, replace: REDACTED },
  { name: 'github token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, replace: REDACTED },
  { name: 'slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: REDACTED },
  { name: 'aws access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: REDACTED },
  { name: 'google api key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replace: REDACTED },
  { name: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, replace: REDACTED },
  { name: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/g, replace: REDACTED },
  // `NAME=value`, `password: value`, `token value` where the name looks secret.
  {
    name: 'secret assignment',
    pattern: new RegExp(String.raw`(\b[A-Za-z0-9_.-]*${SECRET_WORD}(?:[_.-][A-Za-z0-9_.-]*)?(?![A-Za-z0-9])["']?\s*[:=]\s*["']?)(?!\[REDACTED\])([^\s"',;&)}\]]+)`, 'gi'),
    replace: `$1${REDACTED}`,
  },
  {
    name: 'secret after key word',
    // A long hex/base64-looking run with at least one digit, right after a key-ish word.
    pattern: new RegExp(String.raw`(\b${SECRET_WORD}\s+(?:is\s+)?)(?!\[REDACTED\])(?=[A-Za-z0-9+/_=-]*\d)([A-Za-z0-9+/_=-]{20,})`, 'gi'),
    replace: `$1${REDACTED}`,
  },
];

/** Replaces every secret-looking span of `text` with `[REDACTED]`. Idempotent. */
export const redact = (text: string): string => {
  let out = text;
  for (const rule of rules) {
    out = out.replace(rule.pattern, rule.replace as string);
  }
  return out;
};

/** True when `text` holds something `redact` would hide. */
export const containsSecret = (text: string): boolean => redact(text) !== text;

// A JSON field whose name alone makes its string value secret. `apiKeyEnv` names a variable and
// `maxTokens` is a count, so the name must end in the secret word.
const SECRET_FIELD = /(?:apikey|apikeydirect|accesskey|secretkey|token|accesstoken|refreshtoken|authtoken|secret|clientsecret|password|passwd|authorization|cookie|setcookie|privatekey|credential|credentials)$/;

/** True for JSON keys such as `apiKey`, `api_key`, `Authorization`, `client-secret`. */
export const isSecretFieldName = (key: string): boolean => SECRET_FIELD.test(key.toLowerCase().replace(/[^a-z]/g, ''));

/**
 * Redacts a JSON value: string values of secret-named fields become `[REDACTED]`, every
 * other string goes through `redact`. Keys, numbers and the shape are kept.
 */
export const redactValue = (value: JsonValue, depth = 0): JsonValue => {
  if (depth > 64) return REDACTED;
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: { [key: string]: JsonValue } = {};
  for (const [key, v] of Object.entries(value)) {
    const safe = isSecretFieldName(key) && typeof v === 'string' && v.length > 0 ? REDACTED : redactValue(v, depth + 1);
    // defineProperty: a `__proto__` key stays a plain field, never a prototype.
    Object.defineProperty(out, key, { value: safe, enumerable: true, writable: true, configurable: true });
  }
  return out;
};

/** Redacts anything for display: JSON-able values structurally, the rest as text. */
export const redactUnknown = (value: unknown): string => {
  if (typeof value === 'string') return redact(value);
  try {
    const json = JSON.stringify(value);
    if (json === undefined) return redact(String(value));
    return JSON.stringify(redactValue(JSON.parse(json) as JsonValue));
  } catch {
    return redact(String(value));
  }
};
