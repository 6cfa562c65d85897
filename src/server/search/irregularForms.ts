/**
 * Irregular past forms to their verb before stemming ("kept" -> "keep", "went" -> "go",
 * "bought" -> "buy"; the list is RosaeNLG's `english-verbs-irregular`): Porter strips regular
 * suffixes only, so "Where did Jon go?" could not meet "Jon went to Rome". Forms more often
 * read as another word are left alone ("rose", "ground", "felt", "left", "found", "born",
 * "saw"). Irregular plurals were measured too ("children" -> "child") and left out: no gain
 * on the recall bench, a small loss at R@5 (docs/recall.md).
 */
import { createRequire } from 'node:module';
import { isRecord } from '../../codecs/codecs.js';

const AMBIGUOUS: ReadonlySet<string> = new Set(
  (
    'rose ground wound felt left found born borne bore saw dove spoke lay lit bound fell lead leant meant mean fed sat shot shed spat ' +
    'cast bid hit set put cut let hurt cost quit split spread shut read beat fit'
  ).split(' '),
);

let toVerb: Map<string, string> | undefined;

const table = (): Map<string, string> => {
  if (toVerb !== undefined) return toVerb;
  const map = new Map<string, string>();
  try {
    const verbs: unknown = createRequire(import.meta.url)('english-verbs-irregular/dist/verbs.json');
    for (const [verb, forms] of Object.entries(isRecord(verbs) ? verbs : {})) {
      // Each verb's forms: [past, participle] pairs.
      for (const form of Array.isArray(forms) ? forms.flat() : []) if (typeof form === 'string' && form !== verb && !AMBIGUOUS.has(form) && !map.has(form)) map.set(form, verb);
    }
  } catch {
    // Without the package, irregular past forms stay as Porter leaves them.
  }
  toVerb = map;
  return map;
};

/** The verb an irregular lower-case past form belongs to, or the word itself. */
export const verbOfPast = (word: string): string => table().get(word) ?? word;
