/** Reading the command line a usage text ends with (`runAsLines` in src/hosts/cli/selfCommand.ts). */
import { expect } from 'vitest';

const RUNS_AS = / runs as \(from any directory\):$/;

/**
 * Lines past `width` columns, leaving out the one command line a usage ends with: it pastes
 * whole or not at all, and its length is the path the CLI runs from.
 */
export const wideLines = (lines: readonly string[], width = 80): string[] => lines.filter((l, i) => [...l].length > width && !RUNS_AS.test(lines[i - 1] ?? ''));

/** The command line a usage text says runs it, as printed. */
export const runAsLine = (usage: string): string => {
  const lines = usage.trimEnd().split('\n');
  expect(lines.at(-2)).toMatch(/^Here agent-memory( \S+)? runs as \(from any directory\):$/);
  return (lines.at(-1) ?? '').trim();
};
