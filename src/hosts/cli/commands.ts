/**
 * The `agent-memory` subcommands. Each lives in `commands/<name>.ts` and exports a `Command`;
 * this table is the only list of them.
 */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  /** Runs the command; resolves to the process exit code. */
  readonly run: (argv: readonly string[]) => Promise<number>;
}

import { deadLettersCliCommand } from './commands/deadLetters.js';
import { doctorCliCommand, statusCliCommand } from './commands/doctor.js';
import { flushCommand } from './commands/flush.js';
import { importCommand } from './commands/import.js';
import { scopeCommand } from './commands/scope.js';
import { serveCommand } from './commands/serve.js';
import { startCommand } from './commands/start.js';
import { uiCommand } from './commands/ui.js';
import { vizCommand } from './commands/viz.js';

export const commands: readonly Command[] = [startCommand, serveCommand, statusCliCommand, doctorCliCommand, flushCommand, deadLettersCliCommand, importCommand, scopeCommand, vizCommand, uiCommand];
