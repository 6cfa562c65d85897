/** The 3 slash commands (contract 4.3) as host-independent functions, plus their catalogue. */
import type { CommandContext, CommandReport } from './commandContext.js';
import { doctorCommand } from './doctor.js';
import { memoryHubCommand } from './memoryHub.js';
import { nextOptOutCommand } from './nextOptOut.js';

export * from './commandContext.js';
export { DEAD_LETTERS_USAGE, deadLettersCommand, type DeadLetterQueue } from './deadLetters.js';
export { doctorCommand, doctorReport } from './doctor.js';
export { HUB_ACTIONS, memoryHubCommand } from './memoryHub.js';
export { NEXT_OPT_OUT_TEXT, nextOptOutCommand } from './nextOptOut.js';
export { packageInfo, SUPPORT_POLICY } from './packageInfo.js';

export interface CommandEntry {
  readonly name: string;
  readonly description: string;
  /** `args` is the raw text after the command name. */
  readonly run: (ctx: CommandContext, args: string) => Promise<CommandReport>;
}

export const commandCatalogue: readonly CommandEntry[] = [
  {
    name: 'memory',
    description: 'Open the memory hub: status, mode, next-opt-out, mental models, import, flush, dead letters, doctor, setup.',
    run: (ctx, args) => memoryHubCommand(ctx, args),
  },
  { name: 'memory:next-opt-out', description: 'Skip automatic memory retain for the next agent run in this session.', run: (ctx) => nextOptOutCommand(ctx) },
  { name: 'memory:doctor', description: 'Memory diagnostics: server, floor, config, key (never shown), banks, queue.', run: (ctx) => doctorCommand(ctx) },
];
