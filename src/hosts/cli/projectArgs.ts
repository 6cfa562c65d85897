/**
 * A project command's arguments (`status`, `doctor`, `flush`, `dead-letters`), read strictly: `--cwd DIR` names the project (as
 * `ui` takes it too), and an option the command does not know is refused with its usage
 * rather than passed over (`flush --cwd X` once flushed the current directory's queue and said
 * "Nothing queued.").
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { redact } from '../../config/redact.js';

export interface ProjectArgs {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
  /** The project directory (`--cwd`, else the current one), absolute. */
  readonly cwd: string;
}

const isDirectory = (dir: string): boolean => {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
};

/** Why `--cwd dir` cannot name the project (checked at `at`), or undefined when it is a directory. */
export const cwdRefusal = (dir: string, at = dir): string | undefined =>
  isDirectory(at) ? undefined : `--cwd ${JSON.stringify(redact(dir).slice(0, 200))} is not a directory; give the project's directory`;

/** The parsed arguments, or the one line to print (with the usage) before exiting 2. */
export const parseProjectArgs = (argv: readonly string[], name: string, usage: string, options: NonNullable<ParseArgsConfig['options']>, positionals = false): ProjectArgs | string => {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: { ...options, cwd: { type: 'string' } }, strict: true, allowPositionals: positionals });
  } catch (error) {
    const reason = redact(error instanceof Error ? error.message : String(error)).slice(0, 200);
    return `agent-memory ${name}: ${reason}\n${usage}`;
  }
  const given = parsed.values['cwd'];
  const dir = typeof given === 'string' ? given : undefined;
  const cwd = path.resolve(dir ?? process.cwd());
  const refused = dir === undefined ? undefined : cwdRefusal(dir, cwd);
  if (refused !== undefined) return `agent-memory ${name}: ${refused}`;
  return { values: parsed.values, positionals: parsed.positionals, cwd };
};
