/** `agent-memory scope`: the effective config and the resolved scope of the current directory. */
import type { Command } from '../commands.js';
import { configReport } from '../report/configReport.js';
import { loadCliContext } from '../loadContext.js';
import { commandUsage, fitFor } from '../helpText.js';

export const scopeCommand: Command = {
  usage: commandUsage('scope', 'usage: agent-memory scope [--all] [--cwd DIR]\n\n  --all      list every config field, not only those set\n  --cwd DIR  report on DIR instead of the current directory'),
  run: async (argv) => {
    const cwdIndex = argv.indexOf('--cwd');
    const cwd = cwdIndex >= 0 ? argv[cwdIndex + 1] : process.cwd();
    if (cwd === undefined) {
      console.error('agent-memory scope: --cwd needs a directory');
      return 2;
    }
    const { loaded, scope } = await loadCliContext(cwd);
    console.log(fitFor(process.stdout, process.env, configReport(loaded, scope, { all: argv.includes('--all') })));
    return loaded.errors.length > 0 ? 1 : 0;
  },
};
