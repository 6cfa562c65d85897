/**
 * Issue 12.9: a server (or anything at baseUrl) answering a recall with hundreds of megabytes.
 * The client adapter stops reading at its cap (8 MB), fails with `responseTooLarge`, and the
 * process's peak RSS stays far below the size on offer. Run in a child process so its peak RSS
 * is its own; the loopback server counts the bytes it managed to send before the client hung up.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const TSX = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;
const CHILD = path.resolve('test/security/support/recallChild.ts');

const OFFERED = 400 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');
const MB = 1024 * 1024;

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** Streams `{"results":[{"text":"aaaa…` up to 400 MB; resolves the bytes written before the client left. */
const hugeServer = async (declareLength: boolean): Promise<{ url: string; sent: Promise<number> }> => {
  let report!: (n: number) => void;
  const sent = new Promise<number>((resolve) => (report = resolve));
  server = createServer((req, res: ServerResponse) => {
    req.resume();
    if (!req.url?.includes('/memories/recall')) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end('{"detail":"Not Found"}');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', ...(declareLength ? { 'Content-Length': String(OFFERED) } : {}) });
    let written = 0;
    const pump = (): void => {
      while (written < OFFERED && !res.destroyed) {
        written += CHUNK.length;
        if (!res.write(CHUNK)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!res.destroyed) res.end();
    };
    res.on('close', () => report(written));
    res.write('{"results":[{"text":"');
    pump();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent };
};

const recallInChild = async (url: string): Promise<{ outcome: string; detail: { route: string; limitBytes: number } | null; rssBeforeBytes: number; maxRssBytes: number }> => {
  const { stdout } = await run(process.execPath, ['--import', TSX, CHILD, url], { env: { PATH: process.env['PATH'] ?? '' }, maxBuffer: MB });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as never;
};

describe('the client caps response bodies', () => {
  it.each([
    { label: 'streamed without a length', declareLength: false },
    { label: 'with a declared 400 MB Content-Length', declareLength: true },
  ])('a 400 MB recall answer ($label) fails with responseTooLarge and peak RSS stays bounded', async ({ declareLength }) => {
    const { url, sent } = await hugeServer(declareLength);
    const child = await recallInChild(url);
    expect(child.outcome).toBe('responseTooLarge');
    expect(child.detail).toMatchObject({ route: 'POST /v1/default/banks/cap-bank/memories/recall', limitBytes: 8 * MB });
    // The child held at most the cap and socket buffers: nothing like the 400 MB on offer.
    expect(child.maxRssBytes - child.rssBeforeBytes).toBeLessThan(100 * MB);
    // The server could push little more than the cap before the client hung up.
    expect(await sent).toBeLessThan(64 * MB);
  }, 60_000);
});
