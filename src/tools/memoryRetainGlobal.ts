/**
 * memory_retain_global: explicit durable user memory in the configured user bank (stable
 * identity, preferences, cross-project workflows). Never written automatically.
 */
import type * as t from 'io-ts';
import type { ToolContext } from './context.js';
import { toolParams } from './params.js';
import { fail, type ToolOutcome } from './result.js';
import { retainExplicit, retainParamDefs } from './retainExplicit.js';
import { defineTool } from './tool.js';

const defs = retainParamDefs('Why this is durable user context (identity, preference, cross-project workflow).');

export const MemoryRetainGlobalParams = toolParams('memory_retain_global', defs.required, defs.optional);
export type MemoryRetainGlobalParams = t.TypeOf<typeof MemoryRetainGlobalParams.codec>;

const handler = async (params: MemoryRetainGlobalParams, ctx: ToolContext): Promise<ToolOutcome> => {
  const target = ctx.scope.explicit.writeGlobal;
  if (target === null) {
    const reason =
      ctx.scope.userBank.bankId === null
        ? 'User memory bank ID is not configured: the user sets globalBankId (banks.global.bankId) in /memory settings; a tool call may not set it in the user file.'
        : 'User memory bank is disabled: the user turns it on in /memory settings (banks.global.enabled or memoryProfile project+global).';
    return fail('notConfigured', `${reason} Nothing was stored.`);
  }
  return retainExplicit('memory_retain_global', params, target, ctx);
};

export const memoryRetainGlobalTool = defineTool<MemoryRetainGlobalParams>({
  name: 'memory_retain_global',
  label: 'Memory Retain User',
  description:
    'Retain explicit durable USER memory in the configured user bank: only stable user identity, preferences and cross-project workflows, never project details. context must say why this is durable user context. Fails clearly when no user bank is configured.',
  promptSnippet: 'memory_retain_global: store a durable user preference in the user bank',
  params: MemoryRetainGlobalParams,
  handler,
});
