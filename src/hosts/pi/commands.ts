/** The three slash commands: the tools team's command logic, bound to this session's runtime. */
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { homedir } from 'node:os';
import { redact } from '../../config/redact.js';
import { hubImporter } from '../importer.js';
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
              importer: hubImporter(runtime, {
                home: process.env['HOME'] ?? homedir(),
                sessionFile: runtime.session.view().context.sessionFile ?? undefined,
                onProgress: (text) => ctx.ui.setStatus('memory-import', text),
              }),
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
