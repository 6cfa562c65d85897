/**
 * JSON text whose every string went through `redact` where it was made: the proof the retain
 * queue takes in place of redacting a whole document a second time (an import redacts each
 * message as it builds the document; the queue redacted the joined JSON again).
 *
 * - Only this module issues a `RedactedJson` (a frozen object recorded in a private WeakSet):
 *   no caller can make one over text that did not go through `redact`, and one whose text is
 *   not the job's content proves nothing (`isRedactedJson` compares them).
 * - A scope's `json` keeps a string as it is only when it is an output of the scope's own
 *   `redact`; any other string (a tool name read from the session file, a summary cut after
 *   redaction) is redacted there, and a key `redact` would change makes the whole text go
 *   through `redact` as before.
 * - Redacted under the rules and known secret values of one moment: once a new value is known
 *   (`knownValuesGeneration` moved), an older proof is refused and the queue redacts again.
 */
import { redact } from './redact.js';
import { knownValuesGeneration } from './redactKnown.js';

export interface RedactedJson {
  readonly text: string;
  readonly generation: number;
}

const issued = new WeakSet<object>();

const isIssued = (proof: unknown): proof is RedactedJson => typeof proof === 'object' && proof !== null && issued.has(proof);

const issue = (text: string, generation: number): RedactedJson => {
  const proof = Object.freeze({ text, generation });
  issued.add(proof);
  return proof;
};

/** True when `proof` was issued here, under the known values of now, for exactly `text`. */
export const isRedactedJson = (proof: unknown, text: string): boolean => isIssued(proof) && proof.generation === knownValuesGeneration() && proof.text === text;

export interface RedactingScope {
  /** `redact`, its output remembered as redacted for this scope's `json`. */
  readonly redact: (text: string) => string;
  /** `JSON.stringify(value)` with every string in it redacted: kept when this scope's `redact` made it, redacted here otherwise. */
  readonly json: (value: unknown) => RedactedJson;
  /** The JSON array of `items` (`[a,b,…]`), each this scope's own proof; another item's text is redacted whole. */
  readonly array: (items: readonly RedactedJson[]) => RedactedJson;
  /** True when `proof` is this scope's own: `array` then writes its text as it is. */
  readonly owns: (proof: RedactedJson) => boolean;
}

/** One document build's scope (its remembered outputs are dropped with it). */
export const redactingScope = (): RedactingScope => {
  const generation = knownValuesGeneration();
  const outputs = new Set<string>();
  const keyKept = new Map<string, boolean>();
  const own = (proof: RedactedJson): boolean => isIssued(proof) && proof.generation === generation;
  const keptKey = (key: string): boolean => {
    let kept = keyKept.get(key);
    if (kept === undefined) keyKept.set(key, (kept = redact(key) === key));
    return kept;
  };
  /**
   * True when every string `JSON.stringify` would write of `value` is an output of this scope
   * (and every key stays as it is). A string that is not yet one (a role, a timestamp, a tool
   * name) is redacted here: when `redact` leaves it as it is, it is an output from now on, and
   * the plain `JSON.stringify` writes what the replacer would.
   */
  const alreadyRedacted = (value: unknown, depth: number): boolean => {
    if (typeof value === 'string') return outputs.has(value) || scopeRedact(value) === value;
    if (typeof value !== 'object' || value === null) return true;
    // `toJSON` (a Date) or a deep value: left to the replacer, which sees what is written.
    if (depth > 32 || 'toJSON' in value) return false;
    if (Array.isArray(value)) return value.every((item: unknown) => alreadyRedacted(item, depth + 1));
    for (const [key, item] of Object.entries(value)) if (!keptKey(key) || !alreadyRedacted(item, depth + 1)) return false;
    return true;
  };
  const scopeRedact = (text: string): string => {
    const out = redact(text);
    outputs.add(out);
    return out;
  };
  return {
    redact: scopeRedact,
    json: (value) => {
      // Most values hold only this scope's outputs and plain keys: checked by a walk, then
      // written by the plain `JSON.stringify` (a replacer is called from native code per value).
      if (alreadyRedacted(value, 0)) return issue(JSON.stringify(value), generation);
      let keysKept = true;
      const text = JSON.stringify(value, (key, v: unknown) => {
        if (keysKept && key !== '') keysKept = keptKey(key);
        return typeof v === 'string' && !outputs.has(v) ? redact(v) : v;
      });
      return issue(keysKept ? text : redact(text), generation);
    },
    array: (items) => issue(`[${items.map((item) => (own(item) ? item.text : redact(item.text))).join(',')}]`, generation),
    owns: own,
  };
};
