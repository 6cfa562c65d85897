/**
 * Attack (eighth session): an object id that is a path step. Ids go into request paths escaped
 * with `encodeURIComponent`, which leaves `.` and `..` as they are, and the URL parser then
 * resolves them: `deleteMentalModel(bank, '..')` sent `DELETE /v1/default/banks/<bank>/` (the
 * bank's own address: on Hindsight, deleting it deletes every project's memories in a shared
 * bank), `updateMentalModel` a PATCH of the bank, `getDocument` a read of it. The embedded
 * server and Hindsight refuse the trailing slash today; a proxy that normalises it would not.
 * The real client adapter against a recording listener that answers every path: a dot-segment
 * id is refused before anything is sent, naming the id; the tools refuse it as a parameter; the
 * memory browser's line (which deletes a memory's source document by the id the server gives)
 * refuses it too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { loadConfig } from '../../src/config/load.js';
import { bankPath, hindsightLine } from '../../src/hosts/ui/hindsight.js';
import type { ServerFailure } from '../../src/effects/ports/serverFailure.js';
import { startHarness, type Harness } from '../tools/harness.js';
import { makeDirs } from './support.js';

const BANK = 'coding-bank';

interface Recorder {
  readonly url: string;
  readonly requests: { method: string; path: string }[];
  close(): Promise<void>;
}

/** A Hindsight-like server (0.9.1: mental models and knowledge pages) that answers every path with 200 and records it, as one behind a slash-normalising proxy would. */
const startRecorder = async (): Promise<Recorder> => {
  const requests: { method: string; path: string }[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '' });
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(req.url === '/version' ? '{"api_version":"0.9.1"}' : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

describe('the client adapter never sends a dot-segment id', () => {
  let listener: Recorder;
  beforeAll(async () => {
    listener = await startRecorder();
  });
  afterAll(async () => {
    await listener.close();
  });

  it('`.` and `..` as a model, document, page, node or operation id: refused by name, nothing reaches the server', async () => {
    const client = createMemoryServer({ baseUrl: listener.url, timeoutMs: 10_000, retry: { attempts: 1, baseMs: 1, capMs: 1 } });
    for (const id of ['..', '.']) {
      const calls: readonly (readonly [string, () => Promise<E.Either<ServerFailure, unknown>>])[] = [
        ['getDocument', client.getDocument(BANK, id)],
        ['getOperation', client.getOperation(BANK, id)],
        ['getMentalModel', client.getMentalModel(BANK, id, 'metadata')],
        ['updateMentalModel', client.updateMentalModel(BANK, id, { name: 'mine now' })],
        ['deleteMentalModel', client.deleteMentalModel(BANK, id)],
        ['getKnowledgePage', client.getKnowledgePage(BANK, id)],
        ['updateKnowledgeNode', client.updateKnowledgeNode(BANK, id, { name: 'mine now' })],
        ['deleteKnowledgeNode', client.deleteKnowledgeNode(BANK, id)],
      ];
      for (const [name, run] of calls) {
        const before = listener.requests.length;
        const result = await run();
        const sent = listener.requests.slice(before).filter((r) => r.path.startsWith(`/v1/default/banks/${BANK}`));
        expect(sent, `${name}(${id}) sent ${JSON.stringify(sent)}`).toEqual([]);
        expect(E.isLeft(result), name).toBe(true);
        if (E.isLeft(result)) {
          expect(result.left._tag, name).toBe('invalidRequest');
          expect(result.left._tag === 'invalidRequest' ? result.left.detail : '', name).toContain(`id: "${id}" is a path step`);
        }
      }
    }
    expect(listener.requests.filter((r) => /\/banks\/coding-bank\/?$/.test(r.path))).toEqual([]);
  });
});

describe('the memory browser never sends a dot-segment id', () => {
  it('a delete of a memory whose document id is `..` is answered 400 naming it; nothing reaches the server', async () => {
    const recorder = await startRecorder();
    try {
      const dirs = makeDirs();
      const line = hindsightLine(loadConfig({ cwd: dirs.cwd, home: dirs.home, env: {} }), {}, { baseUrl: recorder.url });
      for (const [method, path] of [
        ['DELETE', bankPath(BANK, `/documents/${encodeURIComponent('..')}`)],
        ['PATCH', bankPath(BANK, `/memories/${encodeURIComponent('..')}`)],
        ['GET', bankPath(BANK, `/memories/${encodeURIComponent('.')}`)],
      ] as const) {
        const answer = await line.call(method, path);
        expect(answer.status, `${method} ${path}`).toBe(400);
        expect(JSON.stringify(answer.body)).toContain('is a path step');
      }
      expect(recorder.requests).toEqual([]);
    } finally {
      await recorder.close();
    }
  });
});

describe('the tools refuse a dot-segment id as a parameter (real tools, embedded server)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('memory_mental_model, memory_knowledge and memory_retain name the field', async () => {
    for (const [tool, params, field] of [
      ['memory_mental_model', { action: 'delete', id: '..', dryRun: false }, 'id'],
      ['memory_mental_model', { action: 'update', id: '.', name: 'x', dryRun: false }, 'id'],
      ['memory_knowledge', { action: 'delete', id: '..', dryRun: false }, 'id'],
      ['memory_knowledge', { action: 'create', name: 'x', sourceQuery: 'q', parentId: '..', dryRun: false }, 'parentId'],
      ['memory_retain', { content: 'a note', documentId: '..' }, 'documentId'],
    ] as const) {
      const error = await h.fails(tool, params);
      expect(error.code, `${tool} ${JSON.stringify(params)}`).toBe('invalidParams');
      expect(error.message, `${tool} ${JSON.stringify(params)}`).toContain(field);
      expect(error.message).toContain('path step');
    }
  });
});
