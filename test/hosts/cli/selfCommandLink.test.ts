/**
 * A person's seventh pass: `npx agent-memory import --all --dry-run` in a clone said "Import
 * with: node ~/.npm/_npx/<hash>/node_modules/.bin/agent-memory import …": npx runs the clone's
 * CLI through a link in npm's cache, and the printed command named the link, which `npm cache
 * clean` removes. The command names the script itself. The CLI as a subprocess started through
 * a link, as npx starts it; the printed command run through `sh` after the link is gone, from
 * another directory (it named the sessions by the relative path given, and no --cwd).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runShell } from '../../helpers/cli.js';

const run = promisify(execFile);
const TSX = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;
const MAIN = realpathSync(path.resolve('src/hosts/cli/main.ts'));
const root = mkdtempSync(path.join(tmpdir(), 'am-self-link-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the command line this CLI prints for itself', () => {
  it('names the script, not the link npx started it through, and runs after the link is gone', async () => {
    const project = path.join(root, 'project');
    const home = path.join(root, 'home');
    const cache = path.join(root, 'npx-cache', 'node_modules', '.bin');
    for (const d of [project, path.join(home, '.pi', 'agent'), cache]) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: 'http://127.0.0.1:9' }, banks: { project: { bankId: 'link-bank' } }, scope: { projectId: 'link' }, setupComplete: true }));
    const link = path.join(cache, 'agent-memory');
    symlinkSync(MAIN, link);
    const env = { PATH: process.env['PATH'] ?? '', HOME: home };
    // A session of this project, named by a relative path.
    const sessions = path.join(root, 'sessions');
    mkdirSync(sessions);
    const fixture = readFileSync(path.resolve('fixtures/pi/sessions/pi073-linear.jsonl'), 'utf8');
    writeFileSync(path.join(sessions, 's.jsonl'), fixture.split('/work/fixture-project').join(project));
    const { stdout } = await run(process.execPath, ['--import', TSX, link, 'import', '../sessions', '--dry-run'], { cwd: project, env });
    expect(stdout).toContain('dry run: 1 session(s)');
    // The table names the files a real import writes, and says this run wrote neither.
    expect(stdout).toMatch(/^Checkpoint +\S+import-checkpoint\.json \(a dry run does not write it\)$/m);
    expect(existsSync(path.join(project, '.pi', 'memory', 'import-checkpoint.json'))).toBe(false);
    const line = /Import with:\n {2}(.+)/.exec(stdout)?.[1] ?? '';
    expect(line).toContain(MAIN);
    expect(line).not.toContain('npx-cache');
    rmSync(path.join(root, 'npx-cache'), { recursive: true, force: true });
    // Run as printed (a dry run, so no server is needed), from another directory.
    const again = await runShell(`${line} --dry-run`, { cwd: root, env });
    expect(again.stdout).toContain('dry run: 1 session(s)');
    expect(again.stdout).toContain('Dry run: nothing was written');
    expect(again.code).toBe(0);
  }, 60_000);
});
