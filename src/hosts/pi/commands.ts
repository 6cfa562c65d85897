/**
 * The three slash commands: the command logic of `src/tools/commands/`, bound to this session's runtime.
 * With a UI, `/memory` opens the interactive hub, `/memory setup` the guided setup and
 * `/memory settings` the settings editor (`person.ts`, `hub.ts`, loaded when first used);
 * without one (print, json) they answer as text.
 */
import type { ExtensionAPI, ExtensionCommandContext } from '@mariozechner/pi-coding-agent';
import { homedir } from 'node:os';
import { redact } from '../../config/redact.js';
import { terminalText } from '../../config/memoryText.js';
import { hubImporter } from '../importer.js';
import { commandCatalogue, type CommandContext } from '../../tools/commands/index.js';
import type { MemoryRuntime } from '../memoryRuntime.js';
import { disabledMessage, HUB_ACTIONS_OFF_WHEN_DISABLED, isDisabled } from './disabled.js';
import { requireRuntime, type RuntimeHolder } from './holder.js';
import { embeddedServerCommand } from './serverCommand.js';
import { fitNotice, piColumns } from './noticeFit.js';

const commandContext = async (runtime: MemoryRuntime, ctx: ExtensionCommandContext): Promise<CommandContext> => ({
  tools: await runtime.toolContext(),
  control: { skipNextRetain: () => runtime.send({ type: 'session.optOut.requested' }), setMode: (mode) => runtime.send({ type: 'session.mode.set', mode }) },
  ...(runtime.queue === undefined ? {} : { deadLetters: runtime.queue }),
  importer: hubImporter(runtime, {
    home: process.env['HOME'] ?? homedir(),
    sessionFile: runtime.session.view().context.sessionFile ?? undefined,
    onProgress: (text) => ctx.ui.setStatus('memory-import', text === undefined ? undefined : terminalText(text)),
  }),
  serverCommand: embeddedServerCommand(),
});

/** The interactive flows of `/memory` (hub, setup, settings); undefined: answer as text. */
const interactive = async (holder: RuntimeHolder, ctx: ExtensionCommandContext, runtime: MemoryRuntime, action: string): Promise<boolean> => {
  if (!ctx.hasUI || !['', 'setup', 'settings'].includes(action)) return false;
  const person = await import('./person.js');
  if (action === 'setup') await person.guidedSetup(holder, ctx, 'command');
  else if (action === 'settings') await person.settingsEditor(holder, ctx, runtime);
  else {
    const { openHub } = await import('./hub.js');
    await openHub(holder, ctx, runtime, await commandContext(runtime, ctx));
  }
  return true;
};

export const registerMemoryCommands = (pi: ExtensionAPI, holder: RuntimeHolder): string[] => {
  for (const command of commandCatalogue) {
    pi.registerCommand(command.name, {
      description: command.description,
      handler: async (args, ctx) => {
        try {
          const runtime = await requireRuntime(holder);
          const action = args.trim().split(/\s+/)[0] ?? '';
          if (command.name === 'memory' && (await interactive(holder, ctx, runtime, action))) return;
          if (command.name === 'memory' && isDisabled(runtime) && HUB_ACTIONS_OFF_WHEN_DISABLED.has(action)) {
            ctx.ui.notify(terminalText(disabledMessage(runtime, `/memory ${action}`)), 'warning');
            return;
          }
          const report = await command.run(await commandContext(runtime, ctx), args);
          ctx.ui.notify(terminalText(ctx.hasUI ? fitNotice(report.text, report.level, piColumns()) : report.text), report.level);
        } catch (error) {
          ctx.ui.notify(terminalText(redact(error instanceof Error ? error.message : String(error))), 'warning');
        }
      },
    });
  }
  return commandCatalogue.map((c) => c.name);
};
