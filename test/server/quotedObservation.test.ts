/**
 * Whether an observation only quotes its facts (prefer_observations drops such an echo when its
 * facts are hits too): the verdict with sources read as far as the quotes need equals the one
 * with every source read, and a large group's observation reads a handful of its facts.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { consolidate } from '../../src/server/features/observations.js';
import { onlyQuotesItsFacts } from '../../src/server/recall/quotedObservation.js';
import type { FactRecord } from '../../src/server/store/model.js';

const NOW = '2026-02-01T00:00:00+00:00';
const HEADING = /^\*\*.*\*\* \(\d+ facts?\)$/u;
const MORE = /^…and \d+ more$/u;

/** The verdict as it was first written: every source read before any line is checked. */
const everySourceRead = (observation: FactRecord, factOf: (id: string) => FactRecord | undefined): boolean => {
  const sources = (observation.source_fact_ids ?? []).flatMap((id) => factOf(id)?.text ?? []);
  const [heading, ...lines] = observation.text.split('\n');
  let verdict = sources.length > 0 && heading !== undefined && HEADING.test(heading.trim());
  for (const line of lines) {
    if (!verdict) break;
    const quoted = /^- (.*)$/u.exec(line.trim())?.[1]?.trim();
    if (quoted === undefined) verdict = false;
    else if (!MORE.test(quoted)) verdict = sources.some((text) => text.includes(quoted.endsWith('…') ? quoted.slice(0, -1).trimEnd() : quoted));
  }
  return verdict;
};

const fact = (id: string, text: string): FactRecord => ({ id, text, fact_type: 'world', document_id: 'd', chunk_id: 'd_0', tags: [], created_at: NOW, mentioned_at: NOW });

const observationOf = (text: string, sources: readonly string[]): FactRecord => ({
  id: `o-${Math.random()}`,
  text,
  fact_type: 'observation',
  document_id: null,
  chunk_id: null,
  tags: [],
  created_at: NOW,
  source_fact_ids: [...sources],
});

describe('onlyQuotesItsFacts', () => {
  it('an observation the consolidator wrote from 1,000 facts only quotes them, and reads six of them to know it', () => {
    const facts = Array.from({ length: 1_000 }, (_, i) => fact(`f${String(i).padStart(4, '0')}`, `The ${['billing', 'ledger'][i % 2] ?? ''} service deploys with turbo on host ${i}.`));
    const byId = new Map(facts.map((f) => [f.id, f]));
    const [built] = consolidate(
      facts.map((f) => ({ id: f.id, text: f.text, type: 'world', tags: [], entities: [], mentionedAt: NOW })),
      { bankId: 'b' },
    ).filter((o) => o.key === 'term:billing');
    expect(built?.sourceFactIds.length).toBe(500);
    const observation = observationOf(built?.text ?? '', built?.sourceFactIds ?? []);
    const read: string[] = [];
    expect(onlyQuotesItsFacts(observation, (id) => (read.push(id), byId.get(id)))).toBe(true);
    expect(read.length).toBeLessThanOrEqual(6);
  });

  it('gives the verdict of reading every source, over generated observations', () => {
    const sentence = fc.constantFrom('Builds use turbo.', 'Turbo saves minutes.', 'Deploys run on Fridays.', 'The cache lives in S3.', 'x'.repeat(300));
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.array(sentence, { minLength: 1, maxLength: 3 }), { nil: undefined }), { maxLength: 8 }),
        fc.array(fc.oneof(sentence, fc.constantFrom('…and 3 more', 'something new', '')), { maxLength: 6 }),
        fc.constantFrom('**turbo** (2 facts)', '**turbo** (1 fact)', 'Summary', ''),
        (sourceTexts, quoted, heading) => {
          // A source of `undefined` is a fact deleted since: named by the observation, read as missing.
          const byId = new Map<string, FactRecord>(sourceTexts.flatMap((texts, i): [string, FactRecord][] => (texts === undefined ? [] : [[`s${i}`, fact(`s${i}`, texts.join(' '))]])));
          const text = [heading, ...quoted.map((q) => `- ${q.length > 240 ? `${q.slice(0, 239)}…` : q}`)].join('\n');
          const observation = observationOf(text, sourceTexts.map((_, i) => `s${i}`));
          expect(onlyQuotesItsFacts(observation, (id) => byId.get(id))).toBe(everySourceRead(observation, (id) => byId.get(id)));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
