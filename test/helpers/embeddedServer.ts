/** Starts the embedded server in-process on 127.0.0.1:0 with a temp data dir, and cleans up. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedServer } from '../../src/server/index.js';
import type { EmbeddedServer, EmbeddedServerOptions } from '../../src/server/index.js';

export interface TestServer extends EmbeddedServer {
  readonly dataDir: string | undefined;
  /** Closes the server and removes its data dir. */
  dispose(): Promise<void>;
}

/** `persist: false` keeps the store in memory (faster, for tests that do not restart). */
export const startTestServer = async (options: EmbeddedServerOptions & { persist?: boolean } = {}): Promise<TestServer> => {
  const { persist = true, ...rest } = options;
  const dataDir = rest.dataDir ?? (persist ? await mkdtemp(join(tmpdir(), 'am-server-')) : undefined);
  const server = await startEmbeddedServer({ ...rest, port: 0, host: '127.0.0.1', ...(dataDir === undefined ? {} : { dataDir }) });
  return {
    url: server.url,
    port: server.port,
    dataDir,
    setFaults: (rules) => server.setFaults(rules),
    idle: () => server.idle(),
    close: () => server.close(),
    dispose: async () => {
      await server.close();
      if (dataDir !== undefined && rest.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
};

/** A JSON request against the server: status, parsed body (or text), headers. */
export const call = async (
  server: { readonly url: string },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  // Tests assert on arbitrary response JSON, so the body is left untyped here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any; headers: Headers }> => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the raw text: a malformed-body fault is asserted on as text
  }
  return { status: res.status, body: parsed, headers: res.headers };
};

/** Every document of `bankId` with the text it stores, by id. */
export const documentTexts = async (server: { readonly url: string }, bankId: string): Promise<Map<string, string>> => {
  const docs = `/v1/default/banks/${encodeURIComponent(bankId)}/documents`;
  const items = (await call(server, 'GET', docs)).body.items as { id: string }[];
  const texts = await Promise.all(items.map(async (d) => String((await call(server, 'GET', `${docs}/${encodeURIComponent(d.id)}`)).body.original_text ?? '')));
  return new Map(items.map((d, i) => [d.id, texts[i] ?? '']));
};

/** How many times `needle` is stored, over every document's text. */
export const storedCopies = (texts: ReadonlyMap<string, string>, needle: string): number => [...texts.values()].reduce((n, text) => n + text.split(needle).length - 1, 0);

/** A server running as a child process (`agent-memory serve`), for crash tests. */
export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Output so far, for failure messages. */
  output(): string;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
}

const repoRoot = join(import.meta.dirname, '..', '..');

/** Spawns `node --import tsx src/hosts/cli/main.ts serve --port 0 ...args` and waits for `listening on`. */
export const spawnServerProcess = async (args: readonly string[], env: Record<string, string> = {}): Promise<ServerProcess> => {
  // serve keeps its default data dir and the browser's launch-token file in pi's agent dir: a
  // test that names neither must not write them into the real ~/.pi of the person running it.
  const ownAgentDir = env['PI_CODING_AGENT_DIR'] === undefined && env['HOME'] === undefined ? { PI_CODING_AGENT_DIR: await mkdtemp(join(tmpdir(), 'am-serve-agent-')) } : {};
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/hosts/cli/main.ts', 'serve', '--port', '0', ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...ownAgentDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (): void => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1] !== undefined) {
        child.stdout.off('data', onData);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server process exited (${code}) before listening:\n${out}`)));
  });
  return {
    url,
    child,
    output: () => out,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
};
