/**
 * Which code computes observations, as a hash of it: a bank's "observations cover its facts"
 * marker holds it, so a build whose observations may differ (any change to the code) passes over
 * the bank again once, as every start did before. Built, the pass sits in the chunk that holds this
 * module (checked: the chunk must define `consolidateInput`); its text is hashed (0.6-1 MB, a few
 * ms once per process) with the names of the chunks beside it, which carry their content's hash,
 * so a change to shared code it calls counts too. From source (tests, tsx) the pass's own modules
 * are hashed. Null when the code cannot be read: no marker ever matches, and every start runs the
 * pass as before.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_MODULES = ['observations.ts', 'observationInput.ts', 'consolidator.ts', 'terms.ts', 'entities.ts', 'observationCode.ts'];

let cached: string | null | undefined;

const compute = (): string | null => {
  try {
    const own = fileURLToPath(import.meta.url);
    const hash = createHash('sha256');
    if (own.endsWith('.ts')) {
      for (const name of SOURCE_MODULES) hash.update(readFileSync(join(dirname(own), name), 'utf8'));
      return hash.digest('hex');
    }
    const text = readFileSync(own, 'utf8');
    // A bundle split so that the pass sits in another chunk would hash the wrong code.
    if (!text.includes('function* consolidateInput(')) return null;
    hash.update(text);
    for (const name of readdirSync(dirname(own)).filter((n) => n.endsWith('.mjs') || n.endsWith('.cjs')).sort()) hash.update(`\0${name}`);
    return hash.digest('hex');
  } catch {
    return null;
  }
};

export const observationCodeId = (): string | null => {
  if (cached === undefined) cached = compute();
  return cached;
};
