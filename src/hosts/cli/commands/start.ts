/** `agent-memory start` (`npm start`): the main job, then this directory's own memory set-up. */
import type { Command } from '../commands.js';
import { configReport } from '../report/configReport.js';
import { loadCliContext } from '../loadContext.js';
import { commandUsage, fitFor } from '../helpText.js';

export const startCommand: Command = {
  usage: commandUsage('start', 'usage: agent-memory start [--workspace DIR]\n\n  --workspace DIR  where the run keeps its server data, queue, traces and visualiser (default: a new temp dir)'),
  run: async (argv) => {
    const at = argv.indexOf('--workspace');
    const workspace = at >= 0 ? argv[at + 1] : undefined;
    console.log('agent-memory: the main job, on the embedded memory server');
    // Loaded lazily: the main job needs the pi packages, the other commands do not.
    const mainJob = await import('../../demo/mainJob.js').catch((error: unknown) => {
      console.error(`agent-memory start: the pi packages are needed for the main job (${error instanceof Error ? error.message : String(error)}); run npm ci in the repository, or install @mariozechner/pi-coding-agent`);
      return undefined;
    });
    if (mainJob === undefined) return 1;
    const report = await mainJob.runMainJob(workspace === undefined ? {} : { workspace });
    const { loaded, scope } = await loadCliContext(process.cwd());
    console.log(`\nThis directory (${process.cwd()}), if you used memory here:`);
    console.log(fitFor(process.stdout, process.env, configReport(loaded, scope)));
    return report.recalledBlock === '' || report.sessionFileHasBlock ? 1 : 0;
  },
};
