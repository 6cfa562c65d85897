/** The three slash commands: the tools team's command logic, bound to this session's runtime. */
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { redact } from '../../config/redact.js';
import { commandCatalogue } from '../../tools/commands/index.js';
import { requireRuntime, type RuntimeHolder } from './holder.js';

export const registerMemoryCommands = (pi: ExtensionAPI, holder: RuntimeHolder): string[] => {
  for (const command of commandCatalogue) {
    pi.registerCommand(command.name, {
      description: command.description,
      handler: async (args, ctx) => {
        try {
          const runtime = await requireRuntime(holder);
          const report = await command.run(
            {
              tools: await runtime.toolContext(),
              control: { skipNextRetain: () => runtime.optOutNext(), setMode: (mode) => runtime.setMode(mode) },
            },
            args,
          );
          ctx.ui.notify(report.text, report.level);
        } catch (error) {
          ctx.ui.notify(redact(error instanceof Error ? error.message : String(error)), 'warning');
        }
      },
    });
  }
  return commandCatalogue.map((c) => c.name);
};
