/** `agent-memory doctor` and `agent-memory status`: the diagnostics of /memory:doctor and the hub's status, from a shell. */
import type { Command } from '../commands.js';
import { doctorCommand } from '../../../tools/commands/doctor.js';
import { memoryHubCommand } from '../../../tools/commands/memoryHub.js';
import { withRuntime } from '../runtimeCommand.js';

export const doctorCliCommand: Command = {
  name: 'doctor',
  summary: 'diagnose memory in this directory: server, floor, key (never shown), banks, queue',
  usage: 'usage: agent-memory doctor\n\nExits 1 when the report has an error.',
  run: async () =>
    withRuntime(process.cwd(), async (runtime) => {
      const report = await doctorCommand({ tools: await runtime.toolContext() });
      console.log(report.text);
      return report.level === 'error' ? 1 : 0;
    }),
};

export const statusCliCommand: Command = {
  name: 'status',
  summary: 'memory status of this directory: setup, banks, queue, last recall and retain',
  usage: 'usage: agent-memory status',
  run: async () =>
    withRuntime(process.cwd(), async (runtime) => {
      const report = await memoryHubCommand({ tools: await runtime.toolContext() }, 'status');
      console.log(report.text);
      return report.level === 'error' ? 1 : 0;
    }),
};
