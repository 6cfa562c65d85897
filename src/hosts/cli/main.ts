/** `agent-memory` entry: picks a subcommand from the table and runs it. */
import { commands } from './commands.js';

const usage = (): string =>
  [
    'usage: agent-memory <command> [options]',
    '',
    ...commands.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`),
    '',
    'Run `agent-memory <command> --help` for its options.',
  ].join('\n');

const main = async (argv: readonly string[]): Promise<number> => {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) {
    console.error(`agent-memory: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.usage);
    return 0;
  }
  return command.run(rest);
};

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`agent-memory: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
