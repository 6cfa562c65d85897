import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderRecallBlock } from '../../../src/effects/session/recallBlock.js';
import { memoryStatements } from '../../../src/effects/session/recallConversation.js';

const delta = JSON.stringify(
  [
    { role: 'user', timestamp: '2026-11-23T09:00:00Z', content: 'Remember: deploys run\n scripts/ship.sh.' },
    { role: 'assistant', content: [{ type: 'text', text: 'Noted.' }, { type: 'toolCall', name: 'memory_retain', arguments: {} }], model: 'm' },
    { role: 'toolResult', toolName: 'bash', content: [{ type: 'text', text: 'ok' }] },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'hidden' }] },
  ],
  null,
  2,
);

const memoryLines = (text: string | undefined): string[] => (text ?? '').split('\n').filter((l) => /^\d+\. /.test(l));

describe('memoryStatements', () => {
  it('reads a retained delta as one statement per message, with its speaker; tool calls and thinking are not statements', () => {
    expect(memoryStatements(delta)).toEqual([
      { who: 'user', text: 'Remember: deploys run scripts/ship.sh.' },
      { who: 'assistant', text: 'Noted.' },
      { who: 'tool', text: 'ok', tool: 'bash' },
    ]);
  });

  it('reads a chunk of a delta cut anywhere: the texts it holds, with the roles it names', () => {
    const long = JSON.stringify(
      [
        { role: 'user', timestamp: 't', content: 'We pin "node" to 20.11 because sharp needs it.\nKeep it.' },
        { role: 'assistant', content: [{ type: 'text', text: 'Pinned node 20.11 in .nvmrc as you asked.' }], model: 'm' },
        { role: 'user', timestamp: 't', content: 'and use pnpm, never yarn' },
      ],
      null,
      2,
    );
    const cut = long.slice(long.indexOf('pin'), long.indexOf('never yarn') + 5);
    expect(memoryStatements(cut)).toEqual([
      { who: undefined, text: 'pin "node" to 20.11 because sharp needs it. Keep it.' },
      { who: 'assistant', text: 'Pinned node 20.11 in .nvmrc as you asked.' },
      { who: 'user', text: 'and use pnpm, never' },
    ]);
  });

  it("reads the consolidator's observation as its quoted sentences, without the heading", () => {
    expect(memoryStatements('**rollup** (3 facts)\n- We bundle with rollup.\n- rollup runs in CI\n- …and 1 more')).toEqual([
      { who: undefined, text: 'We bundle with rollup.' },
      { who: undefined, text: 'rollup runs in CI' },
    ]);
  });

  it('leaves anything else as one statement', () => {
    for (const raw of ['plain fact', '[1, 2]', '[{"content": "no role"}]', '{"a": 1}', 'Dani: katies bday is next sat 🎉']) expect(memoryStatements(raw)).toEqual([{ who: undefined, text: raw }]);
    expect(memoryStatements('  ')).toEqual([]);
  });

  it('never throws (property)', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.json(), fc.json().map((j) => j.slice(j.length / 3))), (raw) => void memoryStatements(raw)));
  });
});

describe('the recall block as prose', () => {
  it('shows a retained turn as one line per statement, the person first, with no JSON syntax', () => {
    const block = renderRecallBlock([{ bankId: 'b', items: [{ text: delta, tags: ['project:x'] }] }]);
    expect(memoryLines(block?.text)).toEqual(['1. User: Remember: deploys run scripts/ship.sh.', '2. Assistant: Noted.', '3. Tool (bash): ok']);
    expect(block?.text).not.toMatch(/"role"|"content"|\{|\[\{/);
  });

  it("puts every person's statement before the agent's lines, drops the agent's restatements and lines said twice, across items and banks", () => {
    const run = (user: string, agent: string): string => JSON.stringify([{ role: 'user', content: user }, { role: 'assistant', content: [{ type: 'text', text: agent }] }], null, 2);
    const block = renderRecallBlock([
      {
        bankId: 'project',
        items: [
          { text: run('we decided to bundle with rollup, not webpack', 'Got it: you decided to bundle with rollup instead of webpack.') },
          { text: '**rollup** (2 facts)\n- we decided to bundle with rollup, not webpack\n- the rollup config lives in rollup.config.mjs' },
          { text: run('tests run on vitest', 'I will also add a vitest workspace file for the two packages.') },
        ],
      },
      { bankId: 'user', items: [{ text: 'the rollup config lives in rollup.config.mjs' }, { text: 'prefers tabs' }] },
    ]);
    expect(memoryLines(block?.text)).toEqual([
      '1. User: we decided to bundle with rollup, not webpack',
      '2. the rollup config lives in rollup.config.mjs',
      '3. User: tests run on vitest',
      '4. Assistant: I will also add a vitest workspace file for the two packages.',
      '1. prefers tabs',
    ]);
    expect(block?.items).toBe(5);
  });

  it('cuts a pasted log to one bounded line', () => {
    const trace = `TypeError: x is undefined\n${'    at f (src/a.ts:1:1)\n'.repeat(100)}`;
    const [line] = memoryLines(renderRecallBlock([{ bankId: 'b', items: [{ text: trace }] }])?.text);
    expect(line?.length).toBeLessThanOrEqual(605);
    expect(line?.endsWith('…')).toBe(true);
  });
});
