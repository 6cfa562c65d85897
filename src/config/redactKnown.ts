/**
 * Redaction by value: the secrets this process knows (the resolved API key, the value of every
 * environment variable a config names as a key variable, `apiKeyDirect`, the embedded
 * server's own key). Patterns only recognise shapes; a key of no known shape, printed by a
 * failed `printenv` or echoed by a server's error detail, is only caught by its value.
 *
 * The set is per process and only grows: a value once known stays hidden for the life of
 * the process, whichever config is loaded later.
 */

/** Shorter values would match ordinary words and numbers; patterns still apply to them. */
export const MIN_KNOWN_SECRET_LENGTH = 8;

const REPLACEMENT = '[REDACTED]';

const known = new Set<string>();
/** Every written form of every known value, longest first (a shorter form inside a longer one goes with it). */
let forms: readonly string[] = [];
/** Bumped whenever the set grows: text redacted before then may hold a value known since. */
let generation = 0;

/**
 * The base64 characters that encode `bytes` wherever they sit in a longer encoded text: at a
 * byte offset of 0, 1 or 2 within a three-byte group the same bytes give different characters,
 * and the characters shared with the bytes around them are left out (a first character mixing
 * in the bytes before, a last one mixing in the bytes after).
 */
const base64Cores = (bytes: Buffer): string[] =>
  [0, 1, 2].flatMap((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    return [core, core.replace(/\+/g, '-').replace(/\//g, '_')];
  });

/** The forms a value takes in what we write: raw, inside a JSON string, URL-encoded, base64 (whole, and at any offset). */
const variants = (value: string): string[] => {
  const forms = new Set<string>([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]);
  forms.add(Buffer.from(value, 'utf8').toString('base64'));
  forms.add(Buffer.from(value, 'utf8').toString('base64url'));
  for (const core of base64Cores(Buffer.from(value, 'utf8'))) forms.add(core);
  // A form that the replacement itself contains would make redaction grow on every pass.
  return [...forms].filter((f) => f.length >= MIN_KNOWN_SECRET_LENGTH && !REPLACEMENT.includes(f));
};

/**
 * Plain string search, not one alternation regex: a repository's project file could name a
 * 100 KB `apiKeyDirect`, and the regex of its forms was too big to compile, so every later
 * redaction in the process threw and took each hook down with it.
 */
const rebuild = (): void => {
  forms = [...new Set([...known].flatMap(variants))].sort((a, b) => b.length - a.length);
  generation += 1;
};

/**
 * Adds values to the process's known secrets. Blank, short and already-known values are
 * skipped; surrounding whitespace is ignored (an env value read with a trailing newline is
 * still the same key).
 */
export const rememberSecretValues = (values: Iterable<string | undefined>): void => {
  let changed = false;
  for (const raw of values) {
    if (raw === undefined) continue;
    for (const value of new Set([raw, raw.trim()])) {
      if (value.length < MIN_KNOWN_SECRET_LENGTH || known.has(value)) continue;
      known.add(value);
      changed = true;
    }
  }
  if (changed) rebuild();
};

/** Which set of known values `redactKnownValues` hides now: a later one may hide more. */
export const knownValuesGeneration = (): number => generation;

/** How many values are known (for diagnostics and tests; never the values). */
export const knownSecretCount = (): number => known.size;

/** Replaces every known secret value (in any of its written forms) with `[REDACTED]`. */
export const redactKnownValues = (text: string): string => {
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REPLACEMENT);
  return out;
};

/** True when `text` holds a known secret value. */
export const containsKnownValue = (text: string): boolean => forms.some((form) => text.includes(form));
