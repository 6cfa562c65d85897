/** `agent-memory start` (`npm start`): the main job. */
import type { Command } from '../commands.js';
import { configReport } from '../report/configReport.js';
import { loadCliContext } from '../loadContext.js';

export const startCommand: Command = {
  name: 'start',
  summary: 'run the main job: show this directory\'s memory config and scope',
  usage: 'usage: agent-memory start',
  run: async () => {
    const { loaded, scope } = await loadCliContext(process.cwd());
    console.log(configReport(loaded, scope));
    return loaded.errors.length > 0 ? 1 : 0;
  },
};
