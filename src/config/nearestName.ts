/**
 * The known name a mistyped one most likely meant ("retian" for "retain"): within two edits
 * and a third of its length, else none. A config key nobody claims was only "unknown". The
 * distance is the typo stage's (optimal string alignment: two letters swapped are one slip).
 */
import { boundedDistance } from '../codecs/editDistance.js';

export const nearestName = (name: string, known: Iterable<string>): string | undefined => {
  const limit = Math.min(2, Math.floor(name.length / 3));
  const lower = name.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const candidate of known) {
    const d = boundedDistance(lower, candidate.toLowerCase(), limit);
    if (d <= limit && (best === undefined || d < best.d)) best = { name: candidate, d };
  }
  return best?.name;
};
