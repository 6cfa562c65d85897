/** memory_scope: the active project identity, scope mode and banks. Read-only, no server call. */
import type * as t from 'io-ts';
import { redact } from '../config/redact.js';
import type { ToolContext } from './context.js';
import { toolParams } from './params.js';
import { ok, type ToolOutcome } from './result.js';
import { defineTool } from './tool.js';

export const MemoryScopeParams = toolParams('memory_scope', {}, {});
export type MemoryScopeParams = t.TypeOf<typeof MemoryScopeParams.codec>;

const describeScope = (ctx: ToolContext) => {
  const { scope } = ctx;
  const { identity } = scope;
  return {
    scopeMode: scope.mode,
    memoryProfile: scope.profile,
    projectId: identity.id,
    basis: identity.basis,
    source: redact(identity.source),
    projectTag: identity.tag,
    legacyRepoTag: identity.legacyTag,
    codingBankId: scope.projectBank.bankId,
    codingBankDerived: scope.projectBank.derived,
    ...(scope.userBank.active && scope.userBank.bankId !== null ? { lifeBankId: scope.userBank.bankId } : {}),
    dualTagWindow: true,
    problems: scope.problems.map(redact),
  };
};

const handler = async (_params: MemoryScopeParams, ctx: ToolContext): Promise<ToolOutcome> => {
  const d = describeScope(ctx);
  const text = [
    `Project scope: ${d.projectTag} (from ${d.basis}: ${d.source})`,
    `Legacy tag: ${d.legacyRepoTag} (dual-tag window: recall matches either; retain writes both)`,
    `Scope mode: ${d.scopeMode}; profile: ${d.memoryProfile}`,
    `Coding bank: ${d.codingBankId}${d.codingBankDerived ? ' (path-derived)' : ''}`,
    `Life bank: ${d.lifeBankId ?? 'disabled'}`,
    ...d.problems.map((p) => `note: ${p}`),
  ].join('\n');
  return ok(text, d);
};

export const memoryScopeTool = defineTool<MemoryScopeParams>({
  name: 'memory_scope',
  label: 'Memory Scope',
  description:
    'Show the active project identity: the project: tag and how it was derived (pin, remote or basename), the legacy repo: tag, scope.mode (domain-tagged or isolated-bank), and the coding and life bank ids. Read-only; takes no parameters.',
  promptSnippet: 'memory_scope: show the project tag, scope mode and bank ids',
  runsWhenDisabled: true,
  params: MemoryScopeParams,
  handler,
});
