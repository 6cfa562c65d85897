/** The three slash commands: thin calls into the runtime; the text comes from status. */
import type { ExtensionAPI, ExtensionCommandContext } from '@mariozechner/pi-coding-agent';
import { redact } from '../../config/redact.js';
import type { MemoryRuntime, RuntimeStatus } from '../../effects/memoryRuntime.js';
import { executeForHost, findTool } from '../../tools/catalogue.js';
import { requireRuntime, type RuntimeHolder } from './holder.js';

const statusLines = (s: RuntimeStatus): string[] => [
  `Memory: ${s.enabled ? s.setup.state : 'disabled'}${s.setup.detail === null ? '' : ` (${s.setup.detail})`}`,
  `Project bank: ${s.projectBank}, scope tag ${s.projectTag}`,
  `Session: ${s.session.phase}, mode ${s.session.mode}${s.session.nextOptOut ? ', next run will not be retained' : ''}${s.session.activity === undefined ? '' : `, last: ${s.session.activity}`}`,
  `Queue: ${s.queue === undefined ? 'not open' : `${s.queue.depth} pending, ${s.queue.state}`}`,
  ...s.problems.map((p) => `Problem: ${p}`),
];

const HUB_HELP = [
  'Commands: /memory status | mode <normal|read-only|ignored> | next-opt-out | flush | doctor',
  'Also: /memory:next-opt-out, /memory:doctor',
];

const say = (ctx: ExtensionCommandContext, text: string, level: 'info' | 'warning' | 'error' = 'info'): void => ctx.ui.notify(text, level);

const withRuntime = async (holder: RuntimeHolder, ctx: ExtensionCommandContext, run: (runtime: MemoryRuntime) => Promise<void>): Promise<void> => {
  try {
    await run(await requireRuntime(holder));
  } catch (error) {
    say(ctx, redact(error instanceof Error ? error.message : String(error)), 'warning');
  }
};

const doctor = async (runtime: MemoryRuntime, ctx: ExtensionCommandContext): Promise<void> => {
  const lines = statusLines(runtime.status());
  const statusTool = findTool('memory_status');
  if (statusTool !== undefined) {
    try {
      const result = await executeForHost(statusTool, {}, await runtime.toolContext());
      lines.push('', ...result.content.map((c) => c.text));
    } catch (error) {
      lines.push(`memory_status failed: ${redact(error instanceof Error ? error.message : String(error))}`);
    }
  }
  say(ctx, lines.join('\n'));
};

export const registerMemoryCommands = (pi: ExtensionAPI, holder: RuntimeHolder): void => {
  pi.registerCommand('memory', {
    description: 'Memory hub: status, mode, next-opt-out, flush, doctor',
    handler: async (args, ctx) =>
      withRuntime(holder, ctx, async (runtime) => {
        const [sub = 'status', value] = args.trim().split(/\s+/);
        switch (sub) {
          case '':
          case 'status':
            say(ctx, [...statusLines(runtime.status()), ...HUB_HELP].join('\n'));
            return;
          case 'mode':
            if (value !== 'normal' && value !== 'read-only' && value !== 'ignored') {
              say(ctx, 'Usage: /memory mode normal|read-only|ignored', 'warning');
              return;
            }
            await runtime.setMode(value);
            say(ctx, `Memory mode for this session: ${value}`);
            return;
          case 'next-opt-out':
            await runtime.optOutNext();
            return;
          case 'flush': {
            const report = await runtime.queue?.flush({ deadline: Date.now() + 10_000 });
            say(ctx, report === undefined ? 'The retain queue is not open.' : `Flushed ${report.delivered}; dead-lettered ${report.deadLettered}; remaining ${report.remaining}`);
            return;
          }
          case 'doctor':
            await doctor(runtime, ctx);
            return;
          default:
            say(ctx, [`Unknown /memory command: ${sub}`, ...HUB_HELP].join('\n'), 'warning');
        }
      }),
  });
  pi.registerCommand('memory:next-opt-out', {
    description: 'Skip automatic retain for the next agent run in this session',
    handler: async (_args, ctx) => withRuntime(holder, ctx, (runtime) => runtime.optOutNext()),
  });
  pi.registerCommand('memory:doctor', {
    description: 'Memory diagnostics: setup, server, banks, queue (no secrets)',
    handler: async (_args, ctx) => withRuntime(holder, ctx, (runtime) => doctor(runtime, ctx)),
  });
};
