/**
 * Attack: a command's output freezes pi (issue 26, item 5). pi runs the `agent_end` hook
 * synchronously and the hook redacts what the run printed: a failing command that printed 8 KB
 * of `?key` made one turn take 36 s instead of 3.5 s. The real pi CLI, a scripted model calling
 * the real `bash` tool (a failing command printing 40 KB of `?key`), and a test tool returning
 * 8 MB of text that the old rules read cubically: each turn ends, pi exits 0, and the run is on
 * disk for the retain queue, redacted, and cut to the hook's bound (head, tail and a note).
 */
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_KEPT_CHARS } from '../../src/effects/session/retainProjection.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { hostLine } from '../hosts/pi/hostLine.js';
import { makeProject, type Project } from '../hosts/pi/piSdk.js';
import { piExtension } from '../helpers/piExtension.js';
import { piTmpEnv } from '../helpers/piTmp.js';

const repo = path.resolve(import.meta.dirname, '..', '..');
const fauxProvider = path.join(repo, 'fixtures/pi/faux-provider.ts');
const emitTool = path.join(repo, 'fixtures/pi/emit-tool.ts');

// The old rules took minutes on either output; a turn that has not ended by then is a frozen pi.
const FROZEN_AFTER_MS = 100_000;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly killed: boolean;
}

type Step = string | { readonly tool: string; readonly args: Record<string, unknown> };

const runPi = (project: Project, prompt: string, script: readonly Step[], tools: readonly string[]): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [hostLine.cli, '--no-extensions', '-e', fauxProvider, '-e', piExtension(), ...tools, '--provider', 'faux', '--model', 'faux-1', '-p', prompt], {
      cwd: project.cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: project.home, PI_CODING_AGENT_DIR: project.agentDir, PI_OFFLINE: '1', ...piTmpEnv(), AM_FAUX_SCRIPT: JSON.stringify(script) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const guard = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, FROZEN_AFTER_MS);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr, killed });
    });
  });

/** The retain jobs the queue journal holds, as their item contents. */
const queuedContents = async (project: Project): Promise<string[]> => {
  const dir = path.join(project.cwd, '.pi', 'memory');
  const contents: string[] = [];
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.jsonl'))) {
    for (const line of (await readFile(path.join(dir, name), 'utf8')).split('\n')) {
      if (!line.includes('"retain.enqueued"')) continue;
      const record = JSON.parse(line) as { payload?: { jobs?: { item?: { content?: string } }[] } };
      for (const job of record.payload?.jobs ?? []) if (typeof job.item?.content === 'string') contents.push(job.item.content);
    }
  }
  return contents;
};

describe('agent_end never freezes pi, whatever a command printed (real pi CLI)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('a failing command printing 40 KB of `?key` (the real bash tool): the turn ends and is kept', async () => {
    const project = await makeProject(server.url);
    const command = `node -e "process.stdout.write('?key'.repeat(10000)); process.exit(3)"`;
    const run = await runPi(project, 'Run the check.', [{ tool: 'bash', args: { command } }, 'The check failed with exit code 3.'], []);
    expect(run.killed, 'pi was still in its turn after 100 s').toBe(false);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The check failed with exit code 3.');
    const kept = (await queuedContents(project)).join('\n');
    expect(kept).toContain('The check failed with exit code 3.');
    expect(kept).toContain('?key'.repeat(100));
  }, 150_000);

  it('a failed tool output of 8 MB: the turn ends, the kept run is cut to the bound with a note, and its secrets are hidden', async () => {
    const project = await makeProject(server.url);
    const secret = `sk-live-${'Q7'.repeat(12)}`;
    const unit = `pass.${secret} `;
    const run = await runPi(project, 'Dump the log.', [{ tool: 'emit_text', args: { unit, times: Math.ceil(8_000_000 / unit.length), isError: true } }, 'The log is dumped.'], ['-e', emitTool]);
    expect(run.killed, 'pi was still in its turn after 100 s').toBe(false);
    expect(run.code).toBe(0);
    const contents = await queuedContents(project);
    const kept = contents.join('\n');
    expect(kept).toContain('The log is dumped.');
    expect(kept).toMatch(/characters not kept: over the retain size limit/);
    expect(kept).not.toContain(secret);
    // The run's text is bounded (JSON framing and the redaction marks add a little).
    for (const content of contents) expect(content.length).toBeLessThan(RUN_KEPT_CHARS * 1.5);
  }, 150_000);
});
