/**
 * Ninth session: what the automatic recall sends. A turn is redacted and its `<private>` regions
 * removed before it is queued, but the recall made before the answer sent the user's newest
 * words to the memory server as they were typed: a pasted password, a provider key and a
 * `<private>` region reached the server in the query (a remote Hindsight may log or keep its
 * requests). Performed with the real pi CLI (scripted model) and the embedded server behind a
 * loopback proxy that records every request body it passes on.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { runPi } from './support/piRun.js';

const BANK = 'sec-recall-query';
const PROJECT = 'query-app';
const SECRETS = ['correct horse battery staple', `sk_live_${'9fK2mQ7xLp4RzT8vWc3NbY6d'}`, 'my mother maiden name is Okonkwo'];

let server: TestServer;
let proxy: Server;
let proxyUrl = '';
const bodies: string[] = [];
beforeAll(async () => {
  server = await startTestServer({ persist: false });
  const target = new URL(server.url);
  // Every request body is recorded, then passed on unchanged.
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(`${req.method ?? ''} ${req.url ?? ''} ${body.toString('utf8')}`);
      const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 5000 });
  const stored = await client.retain(BANK, { items: [{ content: 'The query app deploys through the blue-green pipeline.', tags: [`project:${PROJECT}`, 'source:pi'] }] })();
  if (E.isLeft(stored)) throw new Error(`seeding failed: ${stored.left._tag}`);
});
afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await server.dispose();
});

/** A project whose user file points memory at the recording proxy, set up and pinned to PROJECT. */
const project = (prefix: string): { cwd: string; home: string; agentDir: string } => {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  const cwd = path.join(root, 'app');
  const home = path.join(root, 'home');
  const agentDir = path.join(root, 'agent');
  for (const dir of [path.join(cwd, '.pi'), home, agentDir]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(agentDir, 'memory.json'),
    JSON.stringify({ memory: { baseUrl: proxyUrl }, banks: { project: { bankId: BANK } }, scope: { projectIdStrategy: 'pin', projectId: PROJECT }, setupComplete: true }),
  );
  return { cwd, home, agentDir };
};

describe('the automatic recall query', () => {
  it('reaches the server redacted and without <private> regions, and still recalls', async () => {
    const { cwd, home, agentDir } = project('am-sec-query-');
    const prompt = `How does the query app deploy? I set DB_PASSWORD="${SECRETS[0]}" and STRIPE=${SECRETS[1]} <private>${SECRETS[2]}</private> before the pipeline.`;
    const run = await runPi({ cwd, home, agentDir, prompt, script: ['Through the blue-green pipeline.'] });
    expect(run.code).toBe(0);
    // Recalled: the memory reached the model.
    expect(run.seen[0]?.join('\n')).toContain('blue-green');
    const recalls = bodies.filter((b) => b.startsWith('POST') && b.includes('/memories/recall'));
    expect(recalls.length).toBeGreaterThan(0);
    const received = bodies.join('\n');
    expect(recalls.join('\n')).toContain('query app deploy');
    for (const secret of SECRETS) expect(received).not.toContain(secret);
  }, 120_000);

  it('text the model writes into a tool call (a query, a mental model, a knowledge page) reaches the server redacted', async () => {
    const { cwd, home, agentDir } = project('am-sec-query-tools-');
    const pasted = `DB_PASSWORD="${SECRETS[0]}" and ${SECRETS[1]}`;
    const run = await runPi({
      cwd,
      home,
      agentDir,
      prompt: 'Keep track of how the query app deploys.',
      script: [
        { tool: 'memory_recall', args: { query: `query app deploy ${pasted}` } },
        { tool: 'memory_reflect', args: { query: `How does the query app deploy with ${pasted}?` } },
        { tool: 'memory_mental_model', args: { action: 'create', name: `Deploys (${SECRETS[1]})`, sourceQuery: `How does the query app deploy with ${pasted}?`, dryRun: false } },
        { tool: 'memory_knowledge', args: { action: 'create_page', name: `Deploy ${SECRETS[1]}`, sourceQuery: `deploy ${pasted}`, dryRun: false } },
        'Done.',
      ],
    });
    expect(run.code).toBe(0);
    const sent = bodies.filter((b) => /^(POST|PATCH|PUT) /.test(b) && /\/(memories\/recall|reflect|mental-models|knowledge)/.test(b));
    expect(sent.filter((b) => b.includes('/memories/recall')).length).toBeGreaterThan(0);
    expect(sent.filter((b) => b.includes('/mental-models')).length).toBeGreaterThan(0);
    for (const secret of SECRETS.slice(0, 2)) expect(sent.join('\n')).not.toContain(secret);
  }, 120_000);
});
