/** /memory:next-opt-out: skip automatic retain for the next agent run in this session. */
import { redact } from '../../config/redact.js';
import type { CommandContext, CommandReport } from './commandContext.js';

export const NEXT_OPT_OUT_TEXT = 'Memory will not save the next run of this session (the footer says memory: skip next until it ends).';

export const nextOptOutCommand = async (ctx: CommandContext): Promise<CommandReport> => {
  if (ctx.control === undefined) {
    return { level: 'error', text: 'next-opt-out needs a host session: this host has no session to skip a retain in.', details: { nextRetain: 'unchanged' } };
  }
  try {
    await ctx.control.skipNextRetain();
  } catch (cause) {
    return { level: 'error', text: `next-opt-out failed: ${redact(cause instanceof Error ? cause.message : String(cause))}`, details: { nextRetain: 'unchanged' } };
  }
  // Not ready, the footer's state word (degraded, paused…) takes the room "skip next" would need
  // (status.maxLength, 24 by default): the text said the footer showed it when it did not.
  const state = ctx.tools.status?.().setup?.state;
  const text =
    state === undefined || state === 'ready'
      ? NEXT_OPT_OUT_TEXT
      : `Memory will not save the next run of this session (until it ends, /memory status says "next run skipped"; the footer shows memory's state first).`;
  return { level: 'info', text, details: { nextRetain: 'off' } };
};
