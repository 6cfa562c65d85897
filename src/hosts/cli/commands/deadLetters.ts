/** `agent-memory dead-letters [list|requeue ID|drop ID] [--json]`: the queue's dead letters from a shell. */
import type { Command } from '../commands.js';
import { DEAD_LETTERS_USAGE, deadLettersCommand } from '../../../tools/commands/deadLetters.js';
import { withRuntime } from '../runtimeCommand.js';
import { parseProjectArgs } from '../projectArgs.js';
import { commandUsage } from '../helpText.js';
import { cliQueueCommands } from '../selfCommand.js';

export const deadLettersCliCommand: Command = {
  usage: commandUsage('dead-letters', [
    `usage: agent-memory ${DEAD_LETTERS_USAGE} [--cwd DIR] [--json]`,
    '',
    '  --cwd DIR     the queue of the project in DIR (default: this directory)',
    '  list          each dead letter: job id, bank, HTTP status, when, the server\'s reason (default)',
    '  requeue ID    put it back in the retain queue (after fixing the cause); ID may be all',
    '  drop ID       remove it for good; ID may be all',
    '  --json        print the details as JSON',
    '',
    'Exits 1 on an unknown id or action.',
  ].join('\n')),
  run: async (argv) => {
    const args = parseProjectArgs(argv, 'dead-letters', deadLettersCliCommand.usage, { json: { type: 'boolean' } }, true);
    if (typeof args === 'string') {
      console.error(args);
      return 2;
    }
    const json = args.values['json'] === true;
    return withRuntime(args.cwd, 'dead-letters', async (runtime) => {
      const report = await deadLettersCommand(runtime.queue, args.positionals, cliQueueCommands(args.cwd));
      console.log(json ? JSON.stringify(report.details, null, 2) : report.text);
      return report.level === 'error' ? 1 : 0;
    });
  },
};
