/**
 * Observations over retained conversations: the pi extension retains each run as a JSON array
 * of pi messages, and the embedded server's observations used to quote that JSON
 * (`- "content": "Should we write the CLI in Go or Rust?"`) and could group facts by its keys.
 * Through the real server (HTTP retain, then recall of observations), each observation quotes
 * what was said, with no JSON syntax; a plain note still reads as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolidate } from '../../../src/server/features/observations.js';
import { call, startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { waitUntil } from '../../helpers/waitUntil.js';

const run = (user: string, assistant: string): string =>
  JSON.stringify(
    [
      { role: 'user', timestamp: '2026-11-28T01:00:00.000Z', content: user },
      { role: 'assistant', timestamp: '2026-11-28T01:00:05.000Z', content: [{ type: 'text', text: assistant }], model: 'faux-1', stopReason: 'stop' },
    ],
    null,
    2,
  );

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => server.dispose());

describe('observations over retained pi conversations', () => {
  it('quote what was said, never the JSON it was stored as', async () => {
    const items = [
      { content: run('Should we write the CLI in Go or Rust?', 'Go is simpler to ship: one static binary.'), document_id: 'pi-session:a', update_mode: 'append', tags: ['project:x'] },
      { content: run('We decided: the CLI is written in Go. Deploys run scripts/ship.sh.', 'Noted: Go for the CLI, ship.sh for deploys.'), document_id: 'pi-session:a', update_mode: 'append', tags: ['project:x'] },
      { content: run('The staging deploys happen every Tuesday with ship.sh.', 'Staging deploys on Tuesdays then.'), document_id: 'pi-session:b', update_mode: 'append', tags: ['project:x'] },
      { content: 'Release notes are written by Ann every Friday. Ann keeps the changelog in docs/CHANGES.md.', tags: ['project:x'] },
    ];
    for (const item of items) expect((await call(server, 'POST', '/v1/default/banks/obs/memories', { items: [item] })).status).toBe(200);
    const observations = async (query: string): Promise<string[]> => {
      const r = await call(server, 'POST', '/v1/default/banks/obs/memories/recall', { query, types: ['observation'], budget: 'mid' });
      return ((r.body.results ?? []) as { text: string }[]).map((x) => x.text);
    };
    await waitUntil(async () => (await observations('CLI language Go')).length > 0);
    const texts = [...(await observations('Which language is the CLI written in?')), ...(await observations('How do deploys work with ship.sh?'))];
    expect(texts.length).toBeGreaterThan(1);
    for (const text of texts) {
      expect(text, text).not.toMatch(/"(role|content|text|type|timestamp)"|[{}]|\\n/);
      expect(text, text).not.toMatch(/^\*\*(role|content|text|type|timestamp|assistant|user)\*\*/m);
    }
    const all = texts.join('\n');
    expect(all).toContain('- Should we write the CLI in Go or Rust?');
    expect(all).toContain('- The staging deploys happen every Tuesday with ship.sh.');
    // A plain note is read as before.
    const notes = await observations('Who writes the release notes?');
    expect(notes.join('\n')).toContain('- Release notes are written by Ann every Friday.');
  }, 60_000);

  // Tenth session: a capitalised word opening a sentence ("Noted: ...", "Port 8443, ...") was
  // taken for a name, and each such word made an observation of its own (`**Noted** (1 fact)`).
  it('a word capitalised only because it opens a sentence makes no observation; a name does', async () => {
    const items = [
      { content: run('Remember: the staging API listens on port 8443.', 'Noted: the staging API listens on port 8443.'), document_id: 'pi-session:s1', update_mode: 'append', tags: ['project:y'] },
      { content: run('Which port does the staging API use?', 'Port 8443, from memory.'), document_id: 'pi-session:s2', update_mode: 'append', tags: ['project:y'] },
      { content: 'The release is signed off by Mark every Friday.', tags: ['project:y'] },
      { content: 'Ann keeps the changelog in docs/CHANGES.md.', tags: ['project:y'] },
    ];
    for (const item of items) expect((await call(server, 'POST', '/v1/default/banks/openers/memories', { items: [item] })).status).toBe(200);
    const observations = async (): Promise<string[]> => {
      const r = await call(server, 'GET', '/v1/default/banks/openers/memories/list?type=observation&limit=100');
      return ((r.body.items ?? []) as { text: string }[]).map((x) => x.text);
    };
    await waitUntil(async () => (await observations()).some((t) => t.startsWith('**Ann**')));
    const heads = (await observations()).map((t) => t.split('\n')[0]);
    expect(heads).not.toContain('**Noted** (1 fact)');
    expect(heads).not.toContain('**Port** (1 fact)');
    // A name that is also an English word, written capitalised inside a sentence, is still one.
    expect(heads).toContain('**Mark** (1 fact)');
    expect(heads).toContain('**Ann** (1 fact)');
  }, 60_000);

  // Thirteenth session: "Deploys go out every Tuesday" made an observation headed **go** (the
  // extractor's tool list has Go, the language). A heading names a subject, never a verb.
  it('a tool name that is above all a verb heads no observation where it stands as the verb; as a name or code it does', async () => {
    const asVerb = [
      'Deploys go out every Tuesday after the standup.',
      'Go ahead and merge the branch once CI passes.',
      'We make the release notes from the changelog.',
      'The nightly jobs go to the batch queue, and failed ones go to the dead letter file.',
      'Make sure the staging database is backed up first.',
      "Let's go with Postgres for the orders service.",
    ];
    const asName = [
      'Should we write the CLI in Go or Rust?',
      'Run `go test ./...` before pushing.',
      'The build runs `make dist` on the release host.',
      'docker compose up starts the whole stack.',
    ];
    for (const content of [...asVerb, ...asName]) {
      expect((await call(server, 'POST', '/v1/default/banks/verbs/memories', { items: [{ content, tags: ['project:v'] }] })).status).toBe(200);
    }
    const observations = async (): Promise<string[]> => {
      const r = await call(server, 'GET', '/v1/default/banks/verbs/memories/list?type=observation&limit=100');
      return ((r.body.items ?? []) as { text: string }[]).map((x) => x.text);
    };
    await waitUntil(async () => (await observations()).some((t) => t.startsWith('**docker**')));
    const all = await observations();
    const headed = (word: string): string[] => all.filter((t) => new RegExp(`^\\*\\*${word}\\*\\*`, 'iu').test(t));
    // Every "go" and "make" observation quotes only sentences that use the tool by name.
    for (const text of [...headed('go'), ...headed('make')]) {
      for (const sentence of asVerb) expect(text).not.toContain(sentence);
    }
    expect(headed('go').join('\n')).toContain('- Should we write the CLI in Go or Rust?');
    expect(headed('go').join('\n')).toContain('- Run `go test ./...` before pushing.');
    expect(headed('make').join('\n')).toContain('- The build runs `make dist` on the release host.');
    expect(headed('docker')).toHaveLength(1);
    // No heading is a function word.
    const heads = all.map((t) => /^\*\*(.+?)\*\*/u.exec(t)?.[1]?.toLowerCase() ?? '');
    for (const head of heads) expect(['a', 'the', 'and', 'to', 'of', 'with', 'for', 'on', 'in', 'after', 'up', 'out']).not.toContain(head);
  }, 60_000);

  // Thirteenth session's leftover: a term two facts share headed their observation even when
  // it is a verb ("**deploy**"); a heading names what the facts are about.
  it('a shared word WordNet knows only as a verb heads no observation; a shared subject does', async () => {
    const facts = ['We deploy the billing worker every Tuesday.', 'Deploy the billing worker only after the API is up.', 'The billing worker deployed cleanly last week.'];
    for (const content of facts) {
      expect((await call(server, 'POST', '/v1/default/banks/deploys/memories', { items: [{ content, tags: ['project:d'] }] })).status).toBe(200);
    }
    const heads = async (): Promise<string[]> => {
      const r = await call(server, 'GET', '/v1/default/banks/deploys/memories/list?type=observation&limit=100');
      return ((r.body.items ?? []) as { text: string }[]).map((x) => /^\*\*(.+?)\*\*/u.exec(x.text)?.[1]?.toLowerCase() ?? '');
    };
    await waitUntil(async () => (await heads()).includes('billing'));
    expect(await heads()).not.toContain('deploy');
    expect(await heads()).not.toContain('deployed');
  }, 60_000);

  it('a chunk of a message array cut anywhere reads as its messages too', () => {
    const whole = run('Keep alpha: the build uses esbuild for the bundle.', 'Noted: esbuild bundles it.');
    const chunk = whole.slice(whole.indexOf('"content"') - 4, whole.length - 20);
    const facts = [
      { id: 'c1', text: chunk, type: 'world', tags: [], entities: [], mentionedAt: '2026-11-28T01:00:00Z' },
      { id: 'c2', text: 'The bundle is built by esbuild in CI.', type: 'world', tags: [], entities: [], mentionedAt: '2026-11-28T02:00:00Z' },
    ];
    const [observation] = consolidate(facts, { bankId: 'b' }).filter((o) => o.key === 'term:esbuild');
    expect(observation?.text).toBe('**esbuild** (2 facts)\n- Keep alpha: the build uses esbuild for the bundle.\n- The bundle is built by esbuild in CI.');
  });
});
