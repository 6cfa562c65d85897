/** `agent-memory` entry: picks a subcommand from the table and runs it. */
import { redact } from '../../config/redact.js';
import { commands } from './commands.js';
import { HELP_WIDTH, wrapWords } from './helpText.js';
import { runAsLines } from './selfCommand.js';
import { installRedactedOutput } from './redactedOutput.js';

installRedactedOutput();

/**
 * One column for every command's name (the widest, dead-letters, pushed its summary out of
 * line) and summaries wrapped under it, so no line runs past an 80-column terminal.
 */
const usage = (): string => {
  const column = Math.max(...commands.map((c) => c.name.length)) + 3;
  return [
    'usage: agent-memory <command> [options]',
    '',
    ...commands.flatMap((c) => wrapWords(c.summary, HELP_WIDTH - column).map((line, i) => `${i === 0 ? `  ${c.name}`.padEnd(column) : ' '.repeat(column)}${line}`)),
    '',
    'Add --help to a command for its options.',
    '',
    runAsLines(undefined),
  ].join('\n');
};

const main = async (argv: readonly string[]): Promise<number> => {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (entry === undefined) {
    console.error(`agent-memory: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.usage);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    // A command reading its options with parseArgs throws on one it does not take: say which,
    // with that command's usage, as the commands that check their own options do.
    const code: unknown = error instanceof Error ? Reflect.get(error, 'code') : undefined;
    if (error instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
      console.error(`agent-memory ${name}: ${redact(error.message)}\n${command.usage}`);
      return 2;
    }
    throw error;
  }
};

// Library timers (retry backoff, breaker cool-down) are unref'd so they never hold a host
// open; a command waiting only on one would let node exit silently with code 0 (a dead server
// made `status` print nothing). The command itself holds the process until it has answered.
const keepAlive = setInterval(() => undefined, 60_000);

main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`agent-memory: ${redact(error instanceof Error ? error.message : String(error))}`);
      process.exitCode = 1;
    },
  )
  .finally(() => clearInterval(keepAlive));
