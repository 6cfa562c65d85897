/**
 * The command table: `agent-memory --help` lists each command from the table alone, and a
 * command's module is loaded only to run it (so `serve` never loads the client or the importer).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../../src/hosts/cli/commands.js';
import { fitUsage } from '../../../src/hosts/cli/helpText.js';
import { runAsLines } from '../../../src/hosts/cli/selfCommand.js';
import { runCli, runShell } from '../../helpers/cli.js';
import { runAsLine, wideLines } from '../../helpers/usageLines.js';

describe('agent-memory commands', () => {
  it('loads, for each name in the table, the command whose usage is that name\'s', async () => {
    expect(new Set(commands.map((c) => c.name)).size).toBe(commands.length);
    for (const entry of commands) {
      const command = await entry.load();
      expect(command.usage).toMatch(new RegExp(`^usage: agent-memory ${entry.name}\\b`));
    }
  });

  it('lists every command with its summary, and prints a command\'s usage from its module', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    const lines = help.stdout.trimEnd().split('\n');
    // Every summary starts in one column, whole (wrapped lines rejoined), and no line passes 80 columns.
    const column = Math.max(...commands.map((c) => c.name.length)) + 3;
    for (const entry of commands) {
      const at = lines.findIndex((l) => l.startsWith(`  ${entry.name} `));
      expect(lines[at]?.slice(0, column)).toBe(`  ${entry.name}`.padEnd(column));
      let end = at + 1;
      while (lines[end]?.startsWith(' '.repeat(column)) === true) end += 1;
      expect(lines.slice(at, end).map((l) => l.slice(column)).join(' ')).toBe(entry.summary);
    }
    expect(wideLines(lines)).toEqual([]);
    const serve = await runCli(['serve', '--help']);
    expect(serve.code).toBe(0);
    expect(serve.stdout).toMatch(/^usage: agent-memory serve \[--port N\]/);
    expect(serve.stdout).toContain('--no-ui');
  });

  it('prints every command\'s --help within 80 columns, each wrapped line under its own column (serve\'s were 164 wide)', async () => {
    for (const entry of commands) {
      const usage = (await entry.load()).usage;
      expect(wideLines(usage.split('\n')), entry.name).toEqual([]);
    }
    const serve = (await runCli(['serve', '--help'])).stdout.trimEnd().split('\n');
    expect(wideLines(serve)).toEqual([]);
    // The usage line goes on under its first option; an option's description under its first word.
    expect(serve[1]).toMatch(/^ {26}\S/);
    const noUi = serve.findIndex((l) => l.startsWith('  --no-ui '));
    const column = (serve[noUi] ?? '').indexOf('do not serve');
    expect(serve[noUi + 1]?.slice(0, column).trim()).toBe('');
    expect(serve[noUi + 1]?.[column]).toMatch(/\S/);
  });

  it('fits help text without losing or reordering a word', () => {
    const text = ['usage: agent-memory x [--a A] [--bbbbbbbbbbbb B] [--cccccccccccccc C] [--dddddddddddddd D] [--e]', '', '  --a A   one two three four five six seven eight nine ten eleven twelve thirteen fourteen', '          fifteen sixteen', 'A plain paragraph of words that runs on past the eightieth column of the terminal window.'].join('\n');
    const fitted = fitUsage(text);
    expect(fitted.split('\n').filter((l) => l.length > 80)).toEqual([]);
    expect(fitted.split(/\s+/).filter(Boolean)).toEqual(text.split(/\s+/).filter(Boolean));
  });

  it('each usage ends with the command line that runs it from any directory, and pasted as printed it does (agent-memory is on no PATH from a clone)', async () => {
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'am-usage-'));
    const env = { PATH: process.env['PATH'] ?? '', HOME: elsewhere };
    const main = runAsLine((await runCli(['--help'])).stdout);
    expect(main).toMatch(/ <command> \[options\]$/);
    const status = await runShell(main.replace(/ <command> \[options\]$/, ' status --help'), { cwd: elsewhere, env });
    expect(status.stdout).toMatch(/^usage: agent-memory status /);
    for (const name of ['flush', 'dead-letters', 'import']) {
      const help = await runCli([name, '--help'], { cwd: elsewhere, env });
      const pasted = await runShell(`${runAsLine(help.stdout)} --help`, { cwd: tmpdir(), env });
      expect(pasted.code, name).toBe(0);
      expect(pasted.stdout, name).toBe(help.stdout);
    }
    // A refusal carries the usage too, and so the line.
    const refused = await runCli(['flush', '--bogus'], { cwd: elsewhere, env });
    expect(refused.code).toBe(2);
    expect((await runShell(`${runAsLine(refused.stderr)} --help`, { cwd: elsewhere, env })).stdout).toMatch(/^usage: agent-memory flush /);
  }, 120_000);

  it("pi's serve.mjs is the serve command on its own: its usage names the script with no word after it", () => {
    const argv = ['/usr/bin/node', '/opt/am/dist/pi/serve.mjs'];
    expect(runAsLines('serve', argv, [])).toBe('Here agent-memory serve runs as (from any directory):\n  node /opt/am/dist/pi/serve.mjs');
    expect(runAsLines('serve', ['/usr/bin/node', '/opt/am/dist/cli.mjs'], [])).toBe('Here agent-memory serve runs as (from any directory):\n  node /opt/am/dist/cli.mjs serve');
  });
});
