/**
 * Whether an observation adds anything over the facts it was built from. The consolidator
 * (features/observations.ts) writes a heading, `**key** (N facts)`, and sentences quoted from
 * its facts, `- sentence` (clipped with "…", closed by "- …and N more"): such an observation
 * says nothing its facts do not. One written otherwise (an imported summary) does add something.
 */
import { spokenText } from '../../codecs/conversationText.js';
import type { FactRecord } from '../store/model.js';

const HEADING = /^\*\*.*\*\* \(\d+ facts?\)$/u;
const MORE = /^…and \d+ more$/u;

// A record is replaced, never changed, when its observation is rebuilt: the verdict holds per record.
const verdicts = new WeakMap<FactRecord, boolean>();

export const onlyQuotesItsFacts = (observation: FactRecord, factOf: (id: string) => FactRecord | undefined): boolean => {
  const known = verdicts.get(observation);
  if (known !== undefined) return known;
  // Its sources are read only as far as the quoted sentences need: they quote the first facts of
  // the group, in source order, and a large bank's observation names thousands of facts.
  const ids = observation.source_fact_ids ?? [];
  const sources: string[] = [];
  let unread = 0;
  const readNext = (): string | undefined => {
    while (unread < ids.length) {
      const fact = factOf(ids[unread] ?? '');
      unread += 1;
      if (fact !== undefined) {
        // A conversation's observation quotes what was said (`spokenText`), not its JSON.
        const spoken = spokenText(fact.text);
        const text = spoken === fact.text ? fact.text : `${fact.text}\n${spoken}`;
        sources.push(text);
        return text;
      }
    }
    return undefined;
  };
  const quotes = (sentence: string): boolean => {
    if (sources.some((text) => text.includes(sentence))) return true;
    for (let text = readNext(); text !== undefined; text = readNext()) if (text.includes(sentence)) return true;
    return false;
  };
  const [heading, ...lines] = observation.text.split('\n');
  let verdict = readNext() !== undefined && heading !== undefined && HEADING.test(heading.trim());
  for (const line of lines) {
    if (!verdict) break;
    const quoted = /^- (.*)$/u.exec(line.trim())?.[1]?.trim();
    if (quoted === undefined) verdict = false;
    else if (!MORE.test(quoted)) verdict = quotes(quoted.endsWith('…') ? quoted.slice(0, -1).trimEnd() : quoted);
  }
  verdicts.set(observation, verdict);
  return verdict;
};
