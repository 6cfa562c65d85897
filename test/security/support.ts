/**
 * Shared parts of the attack tests: a temp project with a user and a project file, a
 * loopback listener that records every connection (to prove nothing was sent), and file
 * scans for a secret.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { HostMessage } from '../../src/effects/session/messages.js';

export interface Dirs {
  readonly root: string;
  readonly cwd: string;
  readonly home: string;
  readonly userFile: string;
  readonly projectFile: string;
}

export const makeDirs = (user?: unknown, project?: unknown): Dirs => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  mkdirSync(path.join(cwd, '.pi'), { recursive: true });
  mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
  const userFile = path.join(home, '.pi', 'agent', 'memory.json');
  const projectFile = path.join(cwd, '.pi', 'memory.json');
  if (user !== undefined) writeFileSync(userFile, `${JSON.stringify(user, null, 2)}\n`);
  if (project !== undefined) writeFileSync(projectFile, `${JSON.stringify(project, null, 2)}\n`);
  return { root, cwd, home, userFile, projectFile };
};

/** Every file under `dir` (recursively) with its text. */
export const filesUnder = (dir: string): { file: string; text: string }[] => {
  const out: { file: string; text: string }[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push({ file: full, text: readFileSync(full, 'utf8') });
    }
  };
  walk(dir);
  return out;
};

/** The files under `dir` holding `secret` in any form a writer could use. */
export const leaks = (dir: string, secret: string): string[] => {
  const forms = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), Buffer.from(secret).toString('base64')];
  return filesUnder(dir)
    .filter(({ text }) => forms.some((f) => text.includes(f)))
    .map(({ file }) => file);
};

export interface Listener {
  readonly url: string;
  /** Every request and every bare connection, in order. */
  readonly requests: { method: string; path: string }[];
  connections: number;
  close(): Promise<void>;
}

/** A loopback HTTP listener that answers 200 `{}` and records everything that reached it. */
export const startListener = async (): Promise<Listener> => {
  const sockets = new Set<Socket>();
  const state: Listener = {
    url: '',
    requests: [],
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.requests.push({ method: req.method ?? '', path: req.url ?? '' });
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  server.on('connection', (socket: Socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
};

export const user = (text: string, timestamp: number): HostMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp });
export const assistant = (text: string, timestamp: number): HostMessage =>
  ({ role: 'assistant', content: [{ type: 'text', text }], timestamp, model: 'm', stopReason: 'stop' }) as HostMessage;
/** A failed tool call's output: retained under the default errors-only policy. */
export const failedTool = (text: string, timestamp: number): HostMessage =>
  ({ role: 'toolResult', toolCallId: `call-${timestamp}`, toolName: 'bash', content: [{ type: 'text', text }], isError: true, timestamp }) as HostMessage;

