/**
 * The chat sets of fixtures/recall-quality (issue 31) are read by bench/recall-quality.bench.ts
 * as LoCoMo conversations: a gold turn id that names no turn, a session dated out of order or a
 * question without its answer would silently skew a figure measured once. This checks their
 * shape only; it ranks nothing.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { decodeWith } from '../../src/codecs/decode.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/recall-quality');

const Turn = t.intersection([
  t.type({ speaker: t.string, dia_id: t.string, text: t.string }),
  t.partial({ blip_caption: t.string }),
]);
type Turn = t.TypeOf<typeof Turn>;

const Question = t.intersection([
  t.type({ question: t.string, evidence: t.array(t.string), category: t.number }),
  t.partial({ answer: t.union([t.string, t.number]) }),
]);

const ChatSet = t.tuple([
  t.type({ sample_id: t.string, conversation: t.record(t.string, t.unknown), qa: t.array(Question) }),
]);
type ChatSet = t.TypeOf<typeof ChatSet>;

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "8:14 pm on 1 September, 2025" (the form the bench's LoCoMo reader parses) -> epoch ms. */
const sessionTime = (text: string): number | undefined => {
  const m = /^(\d{1,2}):(\d{2}) (am|pm) on (\d{1,2}) ([A-Z][a-z]+), (\d{4})$/.exec(text);
  if (m === null) return undefined;
  const month = MONTHS.indexOf((m[5] ?? '').toLowerCase());
  const hour = Number(m[1]);
  if (month < 0 || hour < 1 || hour > 12) return undefined;
  return Date.UTC(Number(m[6]), month, Number(m[4]), (hour % 12) + (m[3] === 'pm' ? 12 : 0), Number(m[2]));
};

const TurnList = t.array(Turn);

/** Every way the set breaks what the bench assumes, one line each; empty when the set is sound. */
const problemsOf = (set: ChatSet, file: string, answersRequired: boolean): string[] => {
  const [c] = set;
  const problems: string[] = [];
  if (`${c.sample_id}.json` !== file) problems.push(`sample_id ${c.sample_id} does not match the file name`);
  const conv = c.conversation;
  const speakers = new Set(['speaker_a', 'speaker_b', 'speaker_c'].flatMap((k) => (typeof conv[k] === 'string' ? [conv[k]] : [])));
  if (speakers.size < 2) problems.push('fewer than two speakers named in speaker_a/speaker_b');
  const numbers = Object.keys(conv)
    .flatMap((k) => {
      const m = /^session_(\d+)$/.exec(k);
      return m === null ? [] : [Number(m[1])];
    })
    .sort((a, b) => a - b);
  if (numbers.length === 0) problems.push('no session');
  const ids = new Set<string>();
  let previous: number | undefined;
  numbers.forEach((n, i) => {
    if (n !== i + 1) problems.push(`session_${i + 1} missing (sessions are numbered from 1 without gaps)`);
    const dated = conv[`session_${n}_date_time`];
    const time = typeof dated === 'string' ? sessionTime(dated) : undefined;
    if (time === undefined) problems.push(`session_${n}_date_time missing or not "h:mm am on D Month, YYYY": ${JSON.stringify(dated)}`);
    else {
      if (previous !== undefined && time <= previous) problems.push(`session_${n} is dated ${String(dated)}, not after the session before it`);
      previous = time;
    }
    const turns = decodeWith(TurnList, `${file} session_${n}`)(conv[`session_${n}`]);
    if (E.isLeft(turns)) {
      problems.push(turns.left.message);
      return;
    }
    turns.right.forEach((turn: Turn, j) => {
      const expected = `D${n}:${j + 1}`;
      if (turn.dia_id !== expected) problems.push(`turn ${turn.dia_id} sits where ${expected} belongs`);
      if (ids.has(turn.dia_id)) problems.push(`turn id ${turn.dia_id} used twice`);
      ids.add(turn.dia_id);
      if (!speakers.has(turn.speaker)) problems.push(`${turn.dia_id}: speaker ${turn.speaker} is not one of speaker_a/b/c`);
      if (turn.text.trim() === '' && (turn.blip_caption ?? '').trim() === '') problems.push(`${turn.dia_id}: neither text nor a photo caption`);
    });
  });
  for (const k of Object.keys(conv)) {
    const m = /^session_(\d+)_date_time$/.exec(k);
    if (m !== null && !numbers.includes(Number(m[1]))) problems.push(`${k} dates a session that has no turns`);
  }
  if (c.qa.length === 0) problems.push('no question');
  c.qa.forEach((q, i) => {
    const name = `question ${i + 1} (${q.question.slice(0, 40)})`;
    if (q.question.trim() === '') problems.push(`question ${i + 1} is empty`);
    if (q.evidence.length === 0) problems.push(`${name} has no gold turn`);
    for (const id of q.evidence) if (!ids.has(id)) problems.push(`${name}: gold turn ${id} does not exist`);
    if (new Set(q.evidence).size !== q.evidence.length) problems.push(`${name} lists a gold turn twice`);
    if (answersRequired && String(q.answer ?? '').trim() === '') problems.push(`${name} has no answer`);
  });
  return problems;
};

const read = (file: string): ChatSet => {
  const decoded = decodeWith(ChatSet, file)(JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')));
  if (E.isLeft(decoded)) throw new Error(decoded.left.message);
  return decoded.right;
};

/** chat-1 and chat-2 were written before answers were kept; every later set carries one per question. */
const SETS = [
  { file: 'chat-1.json', answers: false },
  { file: 'chat-2.json', answers: false },
  { file: 'chat-3.json', answers: true },
  { file: 'chat-4.json', answers: true },
  { file: 'chat-5.json', answers: true },
  { file: 'chat-6.json', answers: true },
  { file: 'chat-7.json', answers: true },
  { file: 'chat-8.json', answers: true },
  { file: 'chat-9.json', answers: true },
  { file: 'chat-10.json', answers: true },
  { file: 'chat-11.json', answers: true },
  { file: 'chat-12.json', answers: true },
  { file: 'chat-13.json', answers: true },
  { file: 'chat-14.json', answers: true },
  { file: 'chat-15.json', answers: true },
  { file: 'chat-16.json', answers: true },
];

describe('recall-quality chat sets', () => {
  it.each(SETS)('$file: dated sessions in order, numbered turns, every gold turn present, answers given', ({ file, answers }) => {
    expect(problemsOf(read(file), file, answers)).toEqual([]);
  });

  it('names each kind of break in a damaged copy', () => {
    const damaged = structuredClone(read('chat-5.json'));
    const [c] = damaged;
    c.qa[0] = { ...c.qa[0]!, evidence: ['D99:1'] };
    c.qa[1] = { question: c.qa[1]!.question, evidence: c.qa[1]!.evidence, category: c.qa[1]!.category };
    c.conversation['session_3_date_time'] = c.conversation['session_1_date_time'];
    expect(problemsOf(damaged, 'chat-5.json', true)).toEqual([
      'session_3 is dated 8:14 pm on 1 September, 2025, not after the session before it',
      `question 1 (${c.qa[0].question.slice(0, 40)}): gold turn D99:1 does not exist`,
      `question 2 (${c.qa[1].question.slice(0, 40)}) has no answer`,
    ]);
  });
});
