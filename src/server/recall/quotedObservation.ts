/**
 * Whether an observation adds anything over the facts it was built from. The consolidator
 * (features/observations.ts) writes a heading, `**key** (N facts)`, and sentences quoted from
 * its facts, `- sentence` (clipped with "…", closed by "- …and N more"): such an observation
 * says nothing its facts do not. One written otherwise (an imported summary) does add something.
 */
import type { FactRecord } from '../store/model.js';

const HEADING = /^\*\*.*\*\* \(\d+ facts?\)$/u;
const MORE = /^…and \d+ more$/u;

// A record is replaced, never changed, when its observation is rebuilt: the verdict holds per record.
const verdicts = new WeakMap<FactRecord, boolean>();

export const onlyQuotesItsFacts = (observation: FactRecord, factOf: (id: string) => FactRecord | undefined): boolean => {
  const known = verdicts.get(observation);
  if (known !== undefined) return known;
  const sources: string[] = [];
  for (const id of observation.source_fact_ids ?? []) {
    const fact = factOf(id);
    if (fact !== undefined) sources.push(fact.text);
  }
  const [heading, ...lines] = observation.text.split('\n');
  let verdict = sources.length > 0 && heading !== undefined && HEADING.test(heading.trim());
  for (const line of lines) {
    if (!verdict) break;
    const quoted = /^- (.*)$/u.exec(line.trim())?.[1]?.trim();
    if (quoted === undefined) verdict = false;
    else if (!MORE.test(quoted)) {
      const sentence = quoted.endsWith('…') ? quoted.slice(0, -1).trimEnd() : quoted;
      verdict = sources.some((text) => text.includes(sentence));
    }
  }
  verdicts.set(observation, verdict);
  return verdict;
};
