/**
 * The command table: `agent-memory --help` lists each command from the table alone, and a
 * command's module is loaded only to run it (so `serve` never loads the client or the importer).
 */
import { describe, expect, it } from 'vitest';
import { commands } from '../../../src/hosts/cli/commands.js';
import { runCli } from '../../helpers/cli.js';

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
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    const serve = await runCli(['serve', '--help']);
    expect(serve.code).toBe(0);
    expect(serve.stdout).toMatch(/^usage: agent-memory serve \[--port N\]/);
    expect(serve.stdout).toContain('--no-ui');
  });
});
