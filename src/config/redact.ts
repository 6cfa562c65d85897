/**
 * The one redactor. Every diagnostic, error, receipt, trace line, queue write and CLI line
 * passes through `redact` (free text), `redactValue` (JSON) or `redactKnownValues` (bytes
 * already redacted by shape, such as a journal line) before it leaves memory. Known secret
 * values go first (`redactKnown.ts`), then the shapes of `redactRules.ts`.
 */
import { parseJsonValue, type JsonValue } from '../codecs/codecs.js';
import { REDACTED, redactPatterns } from './redactRules.js';
import { redactKnownValues } from './redactKnown.js';
import { withoutLookalikes } from './homoglyphs.js';
import { withoutMarks } from './markedRuns.js';

export { REDACTED } from './redactRules.js';
export { MIN_KNOWN_SECRET_LENGTH, containsKnownValue, knownSecretCount, redactKnownValues, rememberSecretValues } from './redactKnown.js';

/**
 * Terminal escape sequences (CSI such as `ESC[01;31m`, OSC to its terminator, two-byte escapes)
 * and invisible characters: format characters (zero-width space and joiners, soft hyphen, bidi
 * marks, BOM) and every other default-ignorable code point (variation selectors, the combining
 * grapheme joiner, Hangul fillers: a key split by one was kept whole until round 10).
 * `grep --color` output puts codes between `API_TOKEN` and `=`, and a key copied from a chat
 * may carry a zero-width space. Each alternative starts at its own first character and stops at
 * the next escape, so the scan is linear.
 */
// eslint-disable-next-line no-control-regex
const INVISIBLE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])|\u009b[0-?]*[ -/]*[@-~]|[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
// eslint-disable-next-line no-control-regex
const MAY_HOLD_INVISIBLE = /[\u001b\u009b\p{Cf}\p{Default_Ignorable_Code_Point}]/u;

const withoutInvisible = (text: string): string => (MAY_HOLD_INVISIBLE.test(text) ? text.replace(INVISIBLE, '') : text);

/**
 * Replaces every secret in `text` with `[REDACTED]`: first every known secret value (the
 * key this process resolved, the values of the variables the config names), then every
 * secret-looking shape. A second pass changes nothing: the retain queue redacts again what was
 * redacted where it was made.
 */
export const redact = (text: string): string => {
  const plain = withoutLookalikes(withoutMarks(withoutInvisible(text)));
  if (plain !== text) {
    // A secret split by a colour code or a zero-width character, or disguised by look-alike
    // letters (`homoglyphs.ts`) or marks and blanks (`markedRuns.ts`), is found in the text
    // without them; that text is the answer then (the codes are lost and the disguise read as
    // ASCII; the secret is not kept).
    const hidden = redactPatterns(redactKnownValues(plain));
    if (hidden !== plain) return hidden;
  }
  return redactPatterns(redactKnownValues(text));
};

/** True when `text` holds something `redact` would hide. */
export const containsSecret = (text: string): boolean => redact(text) !== text;

// A JSON field whose name alone makes its string value secret. `apiKeyEnv` names a variable and
// `maxTokens` is a count, so the name must end in the secret word.
const SECRET_FIELD = /(?:apikey|apikeydirect|accesskey|secretkey|accountkey|sharedaccesskey|token|accesstoken|refreshtoken|authtoken|secret|clientsecret|password|passphrase|passwd|authorization|cookie|setcookie|privatekey|credential|credentials)$/;

// An env-style name ending `_PRIVATE` (`STRIPE_PRIVATE`), in capitals as the shape rule reads it: `is_private` is a flag.
const PRIVATE_ENV_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_PRIVATE$/;

/** True for JSON keys such as `apiKey`, `api_key`, `Authorization`, `client-secret`, `STRIPE_PRIVATE`. */
export const isSecretFieldName = (key: string): boolean => SECRET_FIELD.test(key.toLowerCase().replace(/[^a-z]/g, '')) || PRIVATE_ENV_NAME.test(key);

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

/**
 * Known secret values removed from every string (keys included) of a JSON value, nothing
 * else changed: for records whose other text was redacted by shape already.
 */
export const redactKnownInValue = (value: JsonValue, depth = 0): JsonValue => {
  if (typeof value === 'string') return redactKnownValues(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 256) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactKnownInValue(v, depth + 1));
  const out: { [key: string]: JsonValue } = {};
  for (const [key, v] of Object.entries(value)) {
    Object.defineProperty(out, redactKnownValues(key), { value: redactKnownInValue(v, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
};

/** Redacts anything for display: JSON-able values structurally, the rest as text. */
export const redactUnknown = (value: unknown): string => {
  if (typeof value === 'string') return redact(value);
  try {
    const json = JSON.stringify(value);
    if (json === undefined) return redact(String(value));
    return JSON.stringify(redactValue(parseJsonValue(json)));
  } catch {
    return redact(String(value));
  }
};
