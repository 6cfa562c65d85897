/**
 * Attack: secrets where redaction never looked (issue 26, item 8). The configured key as a tag,
 * a `documentId` or a metadata key reached the server raw (the queue line showed `[REDACTED]`:
 * the journal's last guard redacts the bytes written, not the job sent); secrets in the session
 * ids and entry ids of imported pi, Claude Code and Codex files reached the server; a key
 * base64-encoded at a byte offset other than 0 was kept. The real `memory_retain` tool, the real
 * importer, queue and embedded server: nothing the server holds afterwards (documents, their
 * text, tags and metadata, memories, the tag list) has the key in any form.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { redact } from '../../src/config/redact.js';
import { createMemoryRuntime, type MemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { openImporter } from '../../src/hosts/importer.js';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { importWorkspace } from '../helpers/importWorkspace.js';
import { CODING_BANK, startHarness, type Harness } from '../tools/harness.js';
import { makeDirs } from './support.js';

// No recognisable shape: only the value redactor can know it.
const KEY = 'Zq81bnd7Kk2LpQ0xW4vT';
const B = '/v1/default/banks';
const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');

/** Every form of the key a reader could decode: raw, and base64 of it at each byte offset. */
const leaksKey = (text: string): boolean => {
  if (text.includes(KEY)) return true;
  for (const run of text.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) {
    for (let cut = 0; cut < 4; cut += 1) {
      const decoded = Buffer.from(run.slice(cut).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1');
      if (decoded.includes(KEY.slice(0, 12))) return true;
    }
  }
  return false;
};

/** Everything a bank on the server holds, as one text: documents (with their text, tags, metadata), memories, tags. */
const serverHolds = async (server: { readonly url: string }, bank: string): Promise<string> => {
  const docs = await call(server, 'GET', `${B}/${bank}/documents?limit=1000`);
  const items = docs.status === 200 ? (docs.body.items as { id: string }[]) : [];
  const each = await Promise.all(items.map(async (d) => JSON.stringify((await call(server, 'GET', `${B}/${bank}/documents/${encodeURIComponent(d.id)}`)).body)));
  const memories = await call(server, 'GET', `${B}/${bank}/memories/list?limit=1000`);
  const tags = await call(server, 'GET', `${B}/${bank}/tags`);
  return [JSON.stringify(docs.body), ...each, JSON.stringify(memories.body), JSON.stringify(tags.body)].join('\n');
};

describe('the job as sent is redacted (issue 26, item 8)', () => {
  let h: Harness;
  beforeAll(async () => {
    // The key is configured (the user file names the variable): the loader makes its value known.
    const dirs = makeDirs({ memory: { apiKeyEnv: 'JOB_REDACTION_KEY' } });
    loadConfig({ cwd: dirs.cwd, home: dirs.home, env: { JOB_REDACTION_KEY: KEY } });
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('memory_retain: the key as a tag, a documentId, a metadata key and value, and base64 at offsets 0, 1 and 2 never reach the server', async () => {
    const blobs = ['', 'a', 'ab'].map((lead) => Buffer.from(`${lead}${KEY}!`).toString('base64'));
    await h.ok('memory_retain', {
      content: `Deploy notes. Blobs: ${blobs.join(' ')}`,
      context: 'deploy notes',
      tags: [`deploy:${KEY}`],
      documentId: `doc-${KEY}`,
      metadata: { [`k-${KEY}`]: 'v', note: `v-${KEY}` },
    });
    const held = await serverHolds(h, CODING_BANK);
    expect(held).toContain('Deploy notes.');
    expect(leaksKey(held)).toBe(false);
    for (const blob of blobs) expect(held).not.toContain(blob);
  });

  it('memory_retain: a header is redacted once, and the text after it reaches the server whole', async () => {
    await h.ok('memory_retain', {
      content: 'curl -H "Authorization: Bearer abc123def456ghi" https://api.example/v1\nThe deploy window is Friday 16:00.',
      context: 'a curl call',
      documentId: 'header-line',
    });
    const held = await serverHolds(h, CODING_BANK);
    expect(held).not.toContain('abc123def456ghi');
    expect(held).toContain('The deploy window is Friday 16:00.');
  });

  it('base64 of the key at every offset is hidden by redact', () => {
    for (const lead of ['', 'a', 'ab', 'abc', 'Authorization: Basic ']) {
      for (const tail of ['', '!', 'zz']) {
        const encoded = Buffer.from(`${lead}${KEY}${tail}`).toString('base64');
        expect(leaksKey(redact(`blob ${encoded} end`)), `${lead}|${tail}`).toBe(false);
        expect(leaksKey(redact(Buffer.from(`${lead}${KEY}${tail}`).toString('base64url'))), `url ${lead}|${tail}`).toBe(false);
      }
    }
  });
});

describe('imported session and entry ids are redacted (real importer, queue and server)', () => {
  let server: TestServer;
  let runtime: MemoryRuntime | undefined;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await runtime?.close();
    await server.dispose();
  });

  it('pi, Claude Code and Codex files whose ids hold the key: nothing on the server holds it', async () => {
    const bank = 'import-redaction';
    const { cwd, home, sessions } = await importWorkspace('am-sec-import-', { serverUrl: server.url, bankId: bank, projectId: 'import-redaction', memory: { apiKeyEnv: 'JOB_REDACTION_KEY' } });
    // pi: the session id and every entry id carry the key (parent links too).
    const pi = readFileSync(path.join(FIXTURES, 'pi/sessions/pi073-linear.jsonl'), 'utf8').split('\n');
    const piHead = JSON.parse(pi[0]!) as Record<string, unknown>;
    const piBody = pi.slice(1).join('\n').replace(/"(id|parentId)":"([0-9a-f]{8})"/g, `"$1":"$2-${KEY}"`);
    writeFileSync(path.join(sessions, 'pi-session.jsonl'), [JSON.stringify({ ...piHead, id: `pi-${KEY}`, cwd }), piBody].join('\n'));
    // Claude Code: the session id and the entry uuids.
    const claude = readFileSync(path.join(FIXTURES, 'import/claude-code/session.jsonl'), 'utf8')
      .replaceAll('__CWD__', cwd)
      .replaceAll('cc-0001', `cc-${KEY}`)
      .replace(/"(uuid|parentUuid|leafUuid)":"([a-z0-9]+)"/g, `"$1":"$2-${KEY}"`);
    writeFileSync(path.join(sessions, 'claude.jsonl'), claude);
    // Codex: the session id.
    const codex = readFileSync(path.join(FIXTURES, 'import/codex/rollout-2026-05-03T10-00-00-cx-0001.jsonl'), 'utf8').replaceAll('__CWD__', cwd).replaceAll('cx-0001', `cx-${KEY}`);
    writeFileSync(path.join(sessions, 'rollout-2026-05-03T10-00-00-codex.jsonl'), codex);

    runtime = await createMemoryRuntime({ cwd, home, env: { HOME: home, JOB_REDACTION_KEY: KEY } });
    const importer = await openImporter(runtime, { home, env: { HOME: home, JOB_REDACTION_KEY: KEY } });
    try {
      const view = await importer.gate.run({ sources: [sessions], options: importer.options({ dryRun: false }) });
      expect(view).toMatchObject({ state: 'done', sessions: 3 });
    } finally {
      await importer.close();
    }
    const held = await serverHolds(server, bank);
    expect(held).toContain('How do we build this monorepo?');
    expect(held).toContain('Which bundler should this library use?');
    expect(held).toContain('Where do we deploy the staging app?');
    expect(leaksKey(held)).toBe(false);
  }, 60_000);
});
