/**
 * A session brought in by `agent-memory import` and then resumed in pi is not stored a second
 * time at quit. The real `pi` CLI writes a session without the extension (as before it was
 * installed); the real CLI imports it into the embedded server; pi resumes it with the extension
 * (`--session FILE`, print mode) for one more turn. pi's shutdown catch-up retains what live
 * retain has not seen: before the fix, that was the whole imported history again.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { documentTexts, startTestServer, storedCopies, type TestServer } from '../../helpers/embeddedServer.js';
import { runPiCli } from '../../helpers/piCli.js';
import { piTmpEnv } from '../../helpers/piTmp.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { hostLine } from './hostLine.js';
import { makeProject, type Project } from './piSdk.js';

const repo = path.resolve(import.meta.dirname, '../../..');

/** One print-mode turn of the real pi with the scripted model and no extension of ours. */
const piWithoutMemory = (project: Project, prompt: string, answer: string): Promise<number | null> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [hostLine.cli, '--no-extensions', '-e', path.join(repo, 'fixtures/pi/faux-provider.ts'), '--provider', 'faux', '--model', 'faux-1', '--no-builtin-tools', '-p', prompt],
      { cwd: project.cwd, env: { PATH: process.env['PATH'] ?? '', HOME: project.home, PI_CODING_AGENT_DIR: project.agentDir, PI_OFFLINE: '1', ...piTmpEnv(), AM_FAUX_SCRIPT: JSON.stringify([answer]) }, stdio: 'ignore' },
    );
    child.on('error', reject);
    child.on('close', resolve);
  });

const sessionFiles = (dir: string): string[] => {
  let found: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) found = [...found, ...sessionFiles(full)];
    else if (name.endsWith('.jsonl')) found.push(full);
  }
  return found;
};

describe(`pi ${hostLine.version}: an imported session resumed`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await server.dispose();
  });

  /** How many times `needle` is stored, over every document of the project's bank. */
  const copies = async (needle: string): Promise<number> => storedCopies(await documentTexts(server, 'host-test'), needle);

  it('keeps the imported history once and retains the new turn', async () => {
    const project = await makeProject(server.url);
    expect(await piWithoutMemory(project, 'Keep delta: releases are tagged from main.', 'Noted: tags come from main.')).toBe(0);
    const [file, ...others] = sessionFiles(path.join(project.agentDir, 'sessions'));
    expect(others).toEqual([]);

    const cli = (args: string[]) => runCli(args, { cwd: project.cwd, env: { HOME: project.home } });
    const imported = await cli(['import', file!]);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    expect(await copies('Keep delta')).toBe(1);

    // The user resumes the session in pi, memory installed now.
    const resumed = await runPiCli(project, ['--session', file!, '-p', 'Keep epsilon: the changelog is generated.'], 'Noted: a generated changelog.');
    expect(resumed.stderr).not.toContain('Extension error');
    expect(resumed.code).toBe(0);
    const flushed = await cli(['flush']);
    expect(flushed.code, flushed.stdout + flushed.stderr).toBe(0);
    await waitUntil(async () => (await copies('Keep epsilon')) === 1);
    expect(await copies('Noted: a generated changelog.')).toBe(1);
    // The history the import holds is not retained again by the resumed session's catch-up.
    expect(await copies('Keep delta')).toBe(1);
    expect(await copies('Noted: tags come from main.')).toBe(1);
  }, 120_000);
});
