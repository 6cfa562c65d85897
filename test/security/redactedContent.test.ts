/**
 * Attack: a job skips the queue's redaction without having been redacted. The queue redacts
 * every job's content, except content an import proves it redacted as it built it (one pass per
 * text instead of two). These tests forge, reuse and outdate that proof, hide secrets where the
 * import's own pass does not look (fields read from the session file, a text cut after it was
 * redacted, a JSON key), and import real session files whose secrets sit at the reader's 1 MB
 * chunk boundary and at a document boundary, through the real importer, queue and server.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED, redact, rememberSecretValues } from '../../src/config/redact.js';
import { isRedactedJson, redactingScope, type RedactedJson } from '../../src/config/redactedJson.js';
import { buildSessionDocuments } from '../../src/effects/import/documents.js';
import { prepareJobs, type NewRetainJob } from '../../src/effects/retainDelivery/jobs.js';
import { nodeIds } from '../../src/adapters/ids/nodeIds.js';
import { piSessionFiles } from '../../src/adapters/sessions/piSessionFiles.js';
import { createMemoryRuntime, type MemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { openImporter } from '../../src/hosts/importer.js';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { importWorkspace } from '../helpers/importWorkspace.js';

const GITHUB = `ghp_${'A1b2'.repeat(9)}`;
const STRIPE = `sk_live_${'9xY'.repeat(8)}`;

/** The content of the one job the queue makes of `content` (with `proof`, if any). */
const queued = (content: string, proof?: unknown): string => {
  const job = { bankId: 'b', documentId: 'd', updateMode: 'replace', item: { content }, ...(proof === undefined ? {} : { redactedContent: proof }) } as NewRetainJob;
  const prepared = prepareJobs([job], 0, nodeIds.digest);
  if (E.isLeft(prepared)) throw new Error(prepared.left);
  return prepared.right[0]!.item.content;
};

// A text the import's own pass has redacted, and which a second pass would still change (the
// header rule's value is taken again): so whether the queue redacted again shows in the job.
const ONCE = redact('Authorization: Bearer abcdefgh12345');

describe('the queue trusts only a proof the redactor issued for exactly this content', () => {
  it('a real proof over redacted text: the content is kept as the import built it', () => {
    const scope = redactingScope();
    const proof = scope.json({ content: scope.redact('Authorization: Bearer abcdefgh12345') });
    expect(proof.text).toContain(ONCE);
    expect(queued(proof.text, proof)).toBe(proof.text);
    // Without the proof the queue redacts the whole text, as before.
    expect(queued(proof.text)).toBe(redact(proof.text));
  });

  it('a hand-made proof (same shape, same generation) proves nothing', () => {
    const real = redactingScope().json({ content: 'x' });
    const content = `{"content":"${GITHUB}"}`;
    const forged: RedactedJson = { text: content, generation: real.generation };
    expect(isRedactedJson(forged, content)).toBe(false);
    expect(queued(content, forged)).not.toContain(GITHUB);
    expect(queued(content, Object.freeze({ ...real, text: content }))).not.toContain(GITHUB);
  });

  it('a real proof for other text: the job is redacted', () => {
    const proof = redactingScope().json({ content: 'harmless' });
    const content = `${proof.text} ${GITHUB}`;
    expect(queued(content, proof)).not.toContain(GITHUB);
  });

  it('a proof is frozen: its text cannot be swapped for a secret', () => {
    const proof = redactingScope().json({ content: 'harmless' });
    expect(() => {
      (proof as { text: string }).text = GITHUB;
    }).toThrow(TypeError);
  });

  it('a proof made before a secret value became known: the job is redacted again', () => {
    const value = 'vQ7zP2nW9xK4rT8m';
    const scope = redactingScope();
    const proof = scope.json({ content: scope.redact(`token value ${value} here`) });
    expect(proof.text).toContain(value);
    rememberSecretValues([value]);
    expect(isRedactedJson(proof, proof.text)).toBe(false);
    expect(queued(proof.text, proof)).not.toContain(value);
  });

  it('strings the scope did not redact itself are redacted in the proof: a field from the file, a text cut after redaction, an array item', () => {
    const scope = redactingScope();
    const kept = scope.redact('plain text');
    const proof = scope.json({ role: 'toolResult', toolName: GITHUB, content: kept, blocks: [{ type: 'text', text: `${kept} ${STRIPE}`.slice(0, 60) }] });
    expect(proof.text).not.toContain(GITHUB);
    expect(proof.text).not.toContain(STRIPE.slice(0, 20));
    expect(proof.text).toContain('plain text');
    expect(queued(proof.text, proof)).toBe(proof.text);
  });

  it('whatever mix of its own outputs and other strings a value holds, the proof is the text every string redacted gives (3,000 generated values)', () => {
    // The scope writes a value whose strings `redact` leaves alone with the plain JSON.stringify;
    // held here to the replacer that redacts every string it writes, keys and nesting included.
    const word = fc.constantFrom('user', 'toolResult', '2026-11-20T10:00:01.000Z', 'plain text', 'Bearer abcdefgh12345', 'Authorization: x', GITHUB, STRIPE, 'password=hunter2', ONCE, REDACTED, '\u212Aey=abc', '');
    const str = fc.oneof(word, fc.array(word, { maxLength: 4 }).map((ws) => ws.join(' ')), fc.string({ maxLength: 8 }));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, str, fc.integer(), fc.constant(null), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('role', 'content', 'toolName', 'timestamp'), tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, fc.array(str, { maxLength: 4 }), (input, own) => {
        const scope = redactingScope();
        const mine = own.map((text) => scope.redact(text));
        const whole = { input, mine };
        const expected = JSON.stringify(whole, (_key, v: unknown) => (typeof v === 'string' ? redact(v) : v));
        expect(scope.json(whole).text).toBe(expected);
      }),
      { numRuns: 3_000 },
    );
  });

  it('a JSON key that redact would change: the whole text is redacted, as the queue did', () => {
    const scope = redactingScope();
    const key = `password=${'hunter2'}`;
    const proof = scope.json({ [key]: scope.redact('x') });
    expect(proof.text).not.toContain('hunter2');
    expect(proof.text).toBe(redact(JSON.stringify({ [key]: 'x' })));
  });

  it('an array of proofs from another scope or made by hand: those items are redacted', () => {
    const other = redactingScope().json({ content: 'ok' });
    const scope = redactingScope();
    const own = scope.json({ content: scope.redact('mine') });
    const joined = scope.array([own, other, { text: `"${STRIPE}"`, generation: own.generation }]);
    expect(joined.text).toBe(`[${own.text},${other.text},"${REDACTED}"]`);
    expect(queued(joined.text, joined)).toBe(joined.text);
  });

  it('every document an import builds carries a proof, and the queue pass it replaces would change nothing in them', async () => {
    const fixtures = path.resolve(import.meta.dirname, '../../fixtures/pi/sessions');
    for (const name of ['pi073-branched.jsonl', 'pi073-linear.jsonl', 'branched-v3.jsonl', 'real-print-v3.jsonl']) {
      const read = await piSessionFiles.read(path.join(fixtures, name), { maxBytes: 1e9 });
      if (E.isLeft(read)) throw new Error(read.left.detail);
      for (const mode of ['curated', 'raw', 'forensic'] as const) {
        for (const toolResults of ['errors-only', 'summary', 'content'] as const) {
          const built = buildSessionDocuments(read.right, { mode, qualityProfile: 'compatible', branches: 'all-leaves', toolResults, toolSummaryMaxChars: 40 as never });
          for (const doc of built.documents) {
            expect(isRedactedJson(doc.redactedContent, doc.content), `${name} ${mode} ${toolResults}`).toBe(true);
            expect(redact(doc.content)).toBe(doc.content);
          }
          // A dry run's estimate is never proved (its texts are not redacted).
          for (const doc of buildSessionDocuments(read.right, { mode, qualityProfile: 'compatible', branches: 'all-leaves', toolResults, toolSummaryMaxChars: 40 as never }, 'estimate').documents) {
            expect(doc.redactedContent).toBeUndefined();
          }
        }
      }
    }
  });
});

describe('secrets in imported sessions never reach the server (real importer, queue and server)', () => {
  let server: TestServer;
  let runtime: MemoryRuntime | undefined;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await runtime?.close();
    await server.dispose();
  });

  it('in fields read from the file, at the reader 1 MB chunk boundary, at a document boundary, next to non-ASCII text', async () => {
    const bank = 'import-proof';
    const { cwd, home, sessions } = await importWorkspace('am-sec-proof-', { serverUrl: server.url, bankId: bank, projectId: 'import-proof' });
    const lines = [JSON.stringify({ type: 'session', version: 3, id: 'proof-session', timestamp: '2026-11-20T10:00:00.000Z', cwd })];
    let parent: string | null = null;
    let n = 0;
    const push = (message: Record<string, unknown>): void => {
      n += 1;
      const id = `e${String(n).padStart(7, '0')}`;
      lines.push(JSON.stringify({ type: 'message', id, parentId: parent, timestamp: '2026-11-20T10:00:01.000Z', message }));
      parent = id;
    };
    // Fields the import's per-text pass never cleaned: the tool name, the model, the stop reason.
    push({ role: 'user', content: [{ type: 'text', text: 'Run the deploy, café ☕ 日本' }], timestamp: 1 });
    push({ role: 'assistant', content: [{ type: 'text', text: 'ok' }, { type: 'toolCall', id: 'c1', name: GITHUB, arguments: { command: 'deploy' } }], model: STRIPE, stopReason: GITHUB, timestamp: 2 });
    // A failed tool's result is kept in every mode, with its tool name.
    push({ role: 'toolResult', toolCallId: 'c1', toolName: GITHUB, content: [{ type: 'text', text: 'deploy failed' }], isError: true, timestamp: 3 });
    // Filler up to just before 1 MB, then a message whose secret straddles the 1 MB read boundary.
    const filler = 'words of an ordinary build log '.repeat(60);
    while (lines.join('\n').length < 1_048_576 - 4_000) push({ role: 'user', content: [{ type: 'text', text: filler }], timestamp: 4 });
    const before = lines.join('\n').length + 1;
    const prefixLength = 1_048_576 - before - 120;
    push({ role: 'user', content: [{ type: 'text', text: `${'x'.repeat(Math.max(0, prefixLength))} key is here: ${STRIPE} and ${GITHUB} 日本語` }], timestamp: 5 });
    // The last message of a document (80 kB) and the first of the next both end and start with a secret.
    push({ role: 'user', content: [{ type: 'text', text: `${'y'.repeat(79_000)} ${GITHUB}` }], timestamp: 6 });
    push({ role: 'user', content: [{ type: 'text', text: `${STRIPE} ${'z'.repeat(500)}` }], timestamp: 7 });
    writeFileSync(path.join(sessions, 'proof.jsonl'), `${lines.join('\n')}\n`);

    runtime = await createMemoryRuntime({ cwd, home, env: { HOME: home } });
    const importer = await openImporter(runtime, { home, env: { HOME: home } });
    const view = await importer.gate.run({ sources: [sessions], options: importer.options({ dryRun: false }) }).finally(() => importer.close());
    expect(view).toMatchObject({ state: 'done', sessions: 1 });
    expect(view.documents).toBeGreaterThan(2);
    const documents = view.documents;
    // Async retains this large are applied when requests pause, not hurried by a read: wait for them.
    let docs = await call(server, 'GET', `/v1/default/banks/${bank}/documents?limit=1000`);
    for (let tries = 0; (docs.body.total as number) < documents && tries < 300; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      docs = await call(server, 'GET', `/v1/default/banks/${bank}/documents?limit=1000`);
    }
    expect(docs.body.total).toBe(documents);
    const ids = (docs.body.items as { id: string }[]).map((d) => d.id);
    const held = (await Promise.all(ids.map(async (id) => JSON.stringify((await call(server, 'GET', `/v1/default/banks/${bank}/documents/${encodeURIComponent(id)}`)).body)))).join('\n');
    expect(held).toContain('Run the deploy, café ☕ 日本');
    expect(held).toContain('key is here');
    expect(held).toContain('deploy failed');
    expect(held).toContain(REDACTED);
    expect(held).not.toContain(GITHUB);
    expect(held).not.toContain(STRIPE);
    expect(held).not.toContain(STRIPE.slice(0, 16));
  }, 60_000);
});

describe('the queue redacts each short text of an enqueue once, and every job gets the redacted text', () => {
  it('jobs that repeat secrets in tags, metadata, context and ids, in one enqueue: each job is what it would be enqueued alone (500 generated enqueues)', () => {
    // An import's jobs repeat most of their short texts; the queue redacts each once per
    // enqueue and hands the same output to every job that holds it. Held here to one job a call.
    const word = fc.constantFrom('project:demo', 'source:import', `session:${GITHUB}`, 'Bearer abcdefgh12345', 'password=hunter2', ONCE, STRIPE, 'cwd', '/home/me/project', '', `x${'y'.repeat(600)} ${STRIPE}`);
    const job = fc.record({ tags: fc.array(word, { maxLength: 4 }), key: word, value: word, context: word, documentId: fc.constantFrom('d1', 'd2', `d-${GITHUB}`, 'password=hunter2'), content: word });
    const asJob = (j: { tags: string[]; key: string; value: string; context: string; documentId: string; content: string }): NewRetainJob =>
      ({ bankId: 'b', documentId: j.documentId, updateMode: 'replace', identity: 'i', item: { content: j.content, context: j.context, tags: j.tags, metadata: { [j.key]: j.value, cwd: j.value }, document_id: j.documentId } }) as NewRetainJob;
    fc.assert(
      fc.property(fc.array(job, { minLength: 1, maxLength: 6 }), (jobs) => {
        const together = prepareJobs(jobs.map(asJob), 0, nodeIds.digest);
        if (E.isLeft(together)) throw new Error(together.left);
        const alone = jobs.map((j) => {
          const one = prepareJobs([asJob(j)], 0, nodeIds.digest);
          if (E.isLeft(one)) throw new Error(one.left);
          return one.right[0]!.item;
        });
        expect(together.right.map((j) => j.item)).toEqual(alone);
        const written = JSON.stringify(together.right);
        for (const secret of [GITHUB, STRIPE, 'hunter2', 'abcdefgh12345']) expect(written).not.toContain(secret);
      }),
      { numRuns: 500 },
    );
  });
});
