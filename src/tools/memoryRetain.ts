/** memory_retain: store explicit raw content (durable facts, decisions) in a bank, queue-first. */
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { resolveBank } from '../config/scope.js';
import type { ToolContext } from './context.js';
import { toolParams } from './params.js';
import { fail, type ToolOutcome } from './result.js';
import { retainExplicit, retainParamDefs } from './retainExplicit.js';
import { bankParam } from './sharedParams.js';
import { defineTool } from './tool.js';

const defs = retainParamDefs('Source context: where this comes from and why it matters.');

export const MemoryRetainParams = toolParams('memory_retain', defs.required, { bank: bankParam, ...defs.optional });
export type MemoryRetainParams = t.TypeOf<typeof MemoryRetainParams.codec>;

const handler = async (params: MemoryRetainParams, ctx: ToolContext): Promise<ToolOutcome> => {
  const target = resolveBank(ctx.scope, params.bank);
  if (E.isLeft(target)) return fail('notConfigured', `${target.left.message}. Nothing was stored.`, { field: 'bank' });
  const { bank: _bank, ...rest } = params;
  return retainExplicit('memory_retain', rest, target.right, ctx);
};

export const memoryRetainTool = defineTool<MemoryRetainParams>({
  name: 'memory_retain',
  label: 'Memory Retain',
  description:
    'Retain explicit raw content in long-term memory (default: the project bank). Use for durable facts or decisions worth remembering across sessions. Pass the raw source text, not a summary, when it is available, and say in context where it comes from. The memory is written to a durable queue first and delivered when the server is reachable.',
  promptSnippet: 'memory_retain: store a durable fact or decision in project memory',
  params: MemoryRetainParams,
  handler,
});
