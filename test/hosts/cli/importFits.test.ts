/**
 * What `agent-memory import` prints in an 80-column terminal (the sixth pass, in tmux): its
 * refusal without paths wrapped mid-word ("or --all f" / "or this project's pi sessions"), and
 * the dry run's "Import with:" command was cut by the terminal mid-path. The refusal is fitted
 * as the usage is; the command to run stands on a line of its own, whole.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { runAsLine, wideLines } from '../../helpers/usageLines.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'am-import-fits-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('agent-memory import at 80 columns', () => {
  it('the refusal without paths wraps at spaces, within 80 columns', async () => {
    const refused = await runCli(['import'], { cwd: root, env: { HOME: root, COLUMNS: '80' } });
    expect(refused.code).toBe(2);
    expect(wideLines(refused.stderr.split('\n'))).toEqual([]);
    // The usage's last line, the command that runs it, stands whole.
    expect(runAsLine(refused.stderr)).toMatch(/ import$/);
    expect(refused.stderr.split('\n').map((l) => l.trim()).join(' ')).toContain("say which sessions to import: one or more paths, or --all for this project's pi sessions");
  }, 60_000);

  it('the dry run names the command to run on a line of its own', async () => {
    const cwd = path.join(root, 'a-project-with-a-rather-long-name-for-the-terminal');
    await mkdir(path.join(cwd, '.pi'), { recursive: true });
    await mkdir(path.join(root, '.pi', 'agent'), { recursive: true });
    await writeFile(path.join(root, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: 'http://127.0.0.1:9' }, banks: { project: { bankId: 'fits' } }, setupComplete: true }));
    const dry = await runCli(['import', '--all', '--dry-run', '--cwd', cwd], { cwd: root, env: { HOME: root, COLUMNS: '80' } });
    expect(dry.code, dry.stderr).toBe(0);
    const lines = dry.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('Dry run: nothing was written.'));
    expect(lines[at]).toBe('Dry run: nothing was written. Import with:');
    // This CLI as a shell runs it (a clone's "agent-memory" is on no PATH), whole on its line.
    expect(lines[at + 1]).toMatch(/^ {2}node .+ import --all --cwd /);
    expect(lines[at + 1]?.endsWith(` import --all --cwd ${cwd}`)).toBe(true);
    expect(lines[at + 2] ?? '').toBe('');
  }, 60_000);
});
