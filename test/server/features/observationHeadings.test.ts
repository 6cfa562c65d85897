/**
 * Observation headings a person recognises. The fifth pass's memory browser showed headings
 * made from a verb's past form or a number (`**ran**`, `**twelve**`) and an observation quoting
 * a JSON fragment ("- } ],"). Through the real server (HTTP retain, the observation pass, the
 * list a browser reads): a number word or a past form heads nothing, the nouns the facts share
 * still do, and no quoted line is JSON syntax.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { waitUntil } from '../../helpers/waitUntil.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => server.dispose());

const observations = async (bank: string): Promise<string[]> => {
  const r = await call(server, 'GET', `/v1/default/banks/${bank}/memories/list?type=observation&limit=100`);
  return ((r.body.items ?? []) as { text: string }[]).map((x) => x.text);
};

describe('observation headings', () => {
  it('a number word or a past form heads no observation; a shared noun does', async () => {
    const notes = [
      'I ran the migration on staging and it took twelve minutes.',
      'We ran the backfill overnight and twelve tables were copied.',
      'The migration ran twice before the backfill finished.',
      'Ann went through the backfill logs and found twelve warnings.',
      'Mark went to the planning review on Friday.',
      // Unrelated notes: a term in most facts of a scope keys none (60%).
      'The release notes live in docs/CHANGES.md.',
      'Lint errors block the merge queue.',
      'Coverage reports are uploaded after each build.',
    ];
    for (const content of notes) expect((await call(server, 'POST', '/v1/default/banks/heads/memories', { items: [{ content, tags: ['project:h'] }] })).status).toBe(200);
    await waitUntil(async () => (await observations('heads')).some((t) => t.startsWith('**backfill**')), 20_000, 'a backfill observation');
    const heads = (await observations('heads')).map((t) => t.split('\n')[0] ?? '');
    for (const word of ['ran', 'twelve', 'went', 'took']) expect(heads.filter((h) => h.startsWith(`**${word}**`)), heads.join(' | ')).toEqual([]);
    expect(heads.some((h) => h.startsWith('**backfill**'))).toBe(true);
  }, 60_000);

  it('no observation quotes JSON syntax, whatever the first line of a fact is', async () => {
    const items = [
      // A fact whose first line is the tail of a stored message array, and whose term ("query",
      // from "queries") no sentence contains as written: the first line was quoted.
      { content: '} ],\n"stopReason": "stop"\nThe slow queries hit the orders table.', tags: ['project:j'] },
      { content: 'Both queries time out when the orders table is locked.', tags: ['project:j'] },
    ];
    for (const item of items) expect((await call(server, 'POST', '/v1/default/banks/json/memories', { items: [item] })).status).toBe(200);
    await waitUntil(async () => (await observations('json')).some((t) => t.startsWith('**query**') || t.startsWith('**order')), 20_000, 'an observation');
    const texts = await observations('json');
    for (const text of texts) {
      for (const line of text.split('\n')) expect(line, text).not.toMatch(/^- (?:[[\]{}]|"[^"]*"\s*:)/);
    }
    expect(texts.join('\n')).toContain('- The slow queries hit the orders table.');
  }, 60_000);

  // Sixth pass, the memory browser: `**git** (2 facts)` over "We decided billing uses Postgres 16."
  // and "All twelve memory tools ran.": "git" came from the stored JSON (a tool call of
  // memory_seed_git), not from anything said, and the heading quoted sentences without it.
  it('a name only the stored JSON holds (a tool call), not what was said, heads nothing', async () => {
    const run = (said: string, answer: string): string =>
      JSON.stringify(
        [
          { role: 'user', timestamp: '2026-11-28T01:00:00.000Z', content: said },
          { role: 'assistant', timestamp: '2026-11-28T01:00:01.000Z', content: [{ type: 'toolCall', name: 'memory_seed_git', arguments: '{"dryRun":true}' }] },
          { role: 'assistant', timestamp: '2026-11-28T01:00:02.000Z', content: [{ type: 'text', text: answer }] },
        ],
        null,
        2,
      );
    const items = [
      { content: run('We decided billing uses Postgres 16.', 'Noted: Postgres 16 for billing.'), document_id: 'pi-session:g1', update_mode: 'append', tags: ['project:g'] },
      { content: run('Run every memory tool.', 'All twelve memory tools ran.'), document_id: 'pi-session:g2', update_mode: 'append', tags: ['project:g'] },
      { content: 'Ann reviews the billing schema on Fridays.', tags: ['project:g'] },
    ];
    for (const item of items) expect((await call(server, 'POST', '/v1/default/banks/git/memories', { items: [item] })).status).toBe(200);
    await waitUntil(async () => (await observations('git')).some((t) => t.startsWith('**Ann**')), 20_000, 'an Ann observation');
    const texts = await observations('git');
    const heads = texts.map((t) => t.split('\n')[0] ?? '');
    expect(heads.filter((h) => /^\*\*(git|memory_seed_git|toolCall|dryRun)\*\*/i.test(h)), texts.join('\n---\n')).toEqual([]);
  }, 60_000);
});
