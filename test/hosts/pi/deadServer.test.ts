/**
 * A memory server that is down or hangs never breaks a pi session: the turn completes, the
 * recall ends at its deadline (the network timeout is far longer, so only the deadline can
 * have ended it), the footer says degraded, and the retain job is kept on disk.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFaux, piAi, type ScriptedModel } from './hostLine.js';
import { makeProject, openHostSession } from './piSdk.js';
import { waitUntil } from '../../helpers/waitUntil.js';

const { fauxAssistantMessage } = piAi;


/** Accepts connections and never answers: the worst kind of dead. */
const startHungServer = async (): Promise<{ url: string; close: () => Promise<void> }> => {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};

/** A port nothing listens on: bind, note the port, close. */
const refusedUrl = async (): Promise<string> => {
  const hung = await startHungServer();
  await hung.close();
  return hung.url;
};

describe('pi session with the memory server down', () => {
  let faux: ScriptedModel;
  let hung: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    faux = await makeFaux();
    hung = await startHungServer();
  });
  afterAll(async () => {
    faux.dispose();
    await hung.close();
  });

  it('hung server: the turn completes without memory once the recall deadline passes; the job is kept', async () => {
    const project = await makeProject(hung.url, { memory: { baseUrl: hung.url, timeoutMs: 60_000 }, recall: { timeoutMs: 300 } });
    faux.setResponses([fauxAssistantMessage('Answered without memory.')]);
    const host = await openHostSession(project, faux);
    try {
      await host.session.prompt('What did we decide about caching?');
      const runtime = host.holder.runtime!;
      await runtime.session.idle();
      const context = runtime.session.view().context;
      expect(context.lastRecall?.outcome).toBe('timedOut');
      expect(context.lastRetain?.outcome).toBe('queued');
      expect(runtime.queue!.status().depth).toBeGreaterThanOrEqual(1);
      const queueFile = await readFile(path.join(project.cwd, '.pi', 'memory', 'retain-queue.jsonl'), 'utf8');
      expect(queueFile).toContain('Answered without memory.');
    } finally {
      await host.close();
    }
  }, 30_000);

  it('refused server: the footer says degraded, turns complete, and the job waits in the queue', async () => {
    const url = await refusedUrl();
    const project = await makeProject(url);
    faux.setResponses([fauxAssistantMessage('First answer.'), fauxAssistantMessage('Second answer.')]);
    const host = await openHostSession(project, faux);
    try {
      const runtime = host.holder.runtime!;
      await waitUntil(() => runtime.status().setup.state === 'degraded');
      expect(runtime.status().setup.detail).toContain('unreachable');
      // The hub's first lines show this detail: it names the next step, the extension's serve script or pi's /memory settings.
      expect(runtime.status().setup.detail).toMatch(/start it with node \S+ \S+serve\.(ts|mjs) --port \d+, or choose another server in pi's \/memory settings/);
      // pi runs agent_end handlers after prompt() resolves: wait for each run's queue write.
      const retainedAt = (): number => runtime.session.view().context.lastRetain?.at ?? 0;
      await host.session.prompt('First question about the build?');
      await waitUntil(() => retainedAt() > 0);
      const first = retainedAt();
      await host.session.prompt('Second question about the build?');
      await waitUntil(() => retainedAt() > first);
      await runtime.session.idle();
      const footer = host.ui.statuses.filter((s) => s.key === 'memory').map((s) => s.text);
      expect(footer).toContain('memory: degraded');
      expect(['failed', 'timedOut']).toContain(runtime.session.view().context.lastRecall?.outcome);
      expect(runtime.queue!.status().depth).toBeGreaterThanOrEqual(1);
      // The doctor says how to start the server with a command that runs here: pi has no
      // `agent-memory` on its PATH, so it names the extension's own serve script.
      await host.session.prompt('/memory:doctor');
      const doctor = host.ui.notifications.map((n) => n.text).find((t) => t.startsWith('agent-memory doctor')) ?? '';
      // With the port memory.baseUrl names: the bare command would start a server on 8888.
      const advice = /error: server unreachable at http:\/\/127\.0\.0\.1:(\d+): start it with node (\S+) (\S+) --port (\d+), or choose another server in pi's \/memory settings/.exec(doctor.replace(/\s*\n\s*/g, ' '));
      expect(advice, doctor).not.toBeNull();
      expect(advice?.[4]).toBe(advice?.[1]);
      expect(existsSync(advice?.[2] ?? '')).toBe(true);
      expect(advice?.[3]).toMatch(/serve\.(ts|mjs)$/);
      expect(existsSync(advice?.[3] ?? '')).toBe(true);
    } finally {
      await host.close();
    }
    // After close the jobs are still on disk for the next session.
    const queueFile = await readFile(path.join(project.cwd, '.pi', 'memory', 'retain-queue.jsonl'), 'utf8');
    expect(queueFile).toContain('Second answer.');
  }, 30_000);
});
