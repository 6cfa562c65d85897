/**
 * Ninth session: the memory browser reads `{state_dir}/memory/trace`, which a cloned repository
 * can fill. A committed link there named like a journal (`session.journal.<stamp>-<pid>.jsonl`)
 * or a trace (`x.jsonl`) was followed: the live view and the replay read a file outside the
 * project and showed its records; a link to `/dev/zero` made the replay read without end, on
 * the event loop `agent-memory serve` shares with the memory server. The real browser server
 * (`startUiServer`) over HTTP with its launch token, real links, real files.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord } from '../../src/adapters/queue/recordCodec.js';
import { startUiServer, type UiServer } from '../../src/hosts/ui/uiServer.js';

const MARKER = 'OUTSIDE-THE-PROJECT-7c1e';

let ui: UiServer;
let traceDir: string;
const outsideRecord = encodeRecord({ type: 'session.started', at: '2026-11-28T00:00:00.000Z', payload: { type: 'session.started', at: 1, note: MARKER } }, 0).line;

beforeAll(async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-uilinks-'));
  const cwd = path.join(root, 'clone');
  const home = path.join(root, 'home');
  traceDir = path.join(cwd, '.pi', 'memory', 'trace');
  mkdirSync(traceDir, { recursive: true });
  mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
  // A file of the user's outside the project, in the journal format.
  const outside = path.join(root, 'elsewhere', 'notes.jsonl');
  mkdirSync(path.dirname(outside));
  writeFileSync(outside, outsideRecord);
  // What the repository committed: links named like the browser's files.
  symlinkSync(outside, path.join(traceDir, 'session.journal.2026-11-28T00-00-00-000Z-1.jsonl'));
  symlinkSync(outside, path.join(traceDir, 'setup.journal.2026-11-28T00-00-00-000Z-1.jsonl'));
  symlinkSync(outside, path.join(traceDir, 'outside.jsonl'));
  symlinkSync('/dev/zero', path.join(traceDir, 'zero.jsonl'));
  // A real trace file of the project beside them is still replayed.
  writeFileSync(path.join(traceDir, 'session.journal.2026-11-28T00-00-01-000Z-2.jsonl'), encodeRecord({ type: 'session.started', at: '2026-11-28T00:00:01.000Z', payload: { type: 'session.started', at: 2, note: 'inside' } }, 0).line);
  ui = await startUiServer({ cwd, env: { PATH: process.env['PATH'] ?? '', HOME: home, PI_CODING_AGENT_DIR: path.join(home, '.pi', 'agent') } });
});
afterAll(async () => {
  await ui.close();
});

const get = async (route: string): Promise<{ status: number; text: string }> => {
  const res = await fetch(`http://127.0.0.1:${ui.port}${route}`, { headers: { 'x-agent-memory-token': ui.token }, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, text: await res.text() };
};

/** The live view's first events over a while (it polls the trace directory every 150 ms while watched). */
const liveEvents = async (ms: number): Promise<string> => {
  const controller = new AbortController();
  const res = await fetch(`http://127.0.0.1:${ui.port}/ui/api/stream/machines`, { headers: { 'x-agent-memory-token': ui.token }, signal: controller.signal });
  const reader = res.body?.getReader();
  let text = '';
  const until = Date.now() + ms;
  while (reader !== undefined && Date.now() < until) {
    const next = await Promise.race([reader.read(), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), until - Date.now()))]);
    if (next === undefined || next.done) break;
    text += Buffer.from(next.value).toString('utf8');
  }
  controller.abort();
  return text;
};

describe('links planted in the trace directory', () => {
  it('the replay refuses a link (to a file outside, or to /dev/zero) at once, and replays a real file', async () => {
    for (const name of ['outside.jsonl', 'session.journal.2026-11-28T00-00-00-000Z-1.jsonl', 'zero.jsonl']) {
      const replay = await get(`/ui/api/replay?file=${encodeURIComponent(name)}`);
      expect(replay.status, name).toBe(400);
      expect(replay.text, name).toContain('symbolic link');
      expect(replay.text).not.toContain(MARKER);
    }
    const real = await get(`/ui/api/replay?file=${encodeURIComponent('session.journal.2026-11-28T00-00-01-000Z-2.jsonl')}`);
    expect(real.status).toBe(200);
    expect(real.text).toContain('inside');
  });

  it('the live view reads nothing through a link, and shows the project’s own journal', async () => {
    const events = await liveEvents(2_000);
    expect(events).toContain('inside');
    expect(events).not.toContain(MARKER);
  });
});
