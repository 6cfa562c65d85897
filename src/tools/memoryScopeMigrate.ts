/**
 * memory_scope_migrate: plans the move from legacy `repo:<path-hash>` tags to `project:<id>`.
 * Dry-run only by design: it never calls the server and never rewrites a tag or document; the
 * plan is written as a local receipt under {state_dir}/memory/ (unless writeReceipt is false).
 */
import * as path from 'node:path';
import type * as t from 'io-ts';
import type { ToolContext } from './context.js';
import { flag, list, toolParams } from './params.js';
import { fail, ok, type ToolOutcome } from './result.js';
import { tagParam } from './sharedParams.js';
import { defineTool } from './tool.js';

export const MemoryScopeMigrateParams = toolParams(
  'memory_scope_migrate',
  {},
  {
    bankTags: list(tagParam, 'Tag inventory sample from the coding bank; used only to count tags in the plan.', 10_000),
    writeReceipt: flag('true (default): write the plan to {state_dir}/memory/scope-migrate-receipt.json.', true),
  },
);
export type MemoryScopeMigrateParams = t.TypeOf<typeof MemoryScopeMigrateParams.codec>;

const scopeMigrateReceiptPath = (stateDir: string): string => path.join(stateDir, 'memory', 'scope-migrate-receipt.json');

export interface TagCounts {
  readonly projectTagHits: number;
  readonly legacyRepoTagHits: number;
  readonly otherRepoTags: number;
  readonly otherProjectTags: number;
  readonly sampleSize: number;
}

const countTags = (tags: readonly string[], projectTag: string, legacyTag: string): TagCounts => ({
  projectTagHits: tags.filter((tag) => tag === projectTag).length,
  legacyRepoTagHits: tags.filter((tag) => tag === legacyTag).length,
  otherRepoTags: tags.filter((tag) => tag.startsWith('repo:') && tag !== legacyTag).length,
  otherProjectTags: tags.filter((tag) => tag.startsWith('project:') && tag !== projectTag).length,
  sampleSize: tags.length,
});

/** The plan: pure over the scope, the clock and the optional tag sample. */
const scopeMigratePlan = (ctx: ToolContext, bankTags: readonly string[] | undefined) => {
  const { scope } = ctx;
  const { identity } = scope;
  const findings: string[] = [
    `Dual-tag window is active: every retain writes both ${identity.tag} and ${identity.legacyTag}, and project recall matches either, so nothing needs rewriting for recall to work.`,
    `The project id ${identity.id} comes from the ${identity.basis}${identity.basis === 'pin' ? ' (scope.projectId)' : identity.basis === 'remote' ? ' (git remote origin)' : ' (repository folder name)'}.`,
    `${identity.legacyTag} hashes the absolute repository path: a clone in another directory or on another machine gets a different legacy tag, while ${identity.tag} stays the same.`,
  ];
  const guidance: string[] = [];
  if (scope.projectBank.derived) {
    findings.push(`The coding bank ${scope.projectBank.bankId} is path-derived: it changes when the repository moves.`);
    guidance.push('Set projectBankId (memory_config) to a stable shared coding bank.');
  }
  if (identity.basis === 'basename') {
    findings.push('A folder-name id can collide between unrelated repositories with the same folder name.');
    guidance.push('Add a git remote origin, or pin scope.projectId in .pi/memory.json and list this project in memory.trustedProjects in ~/.pi/agent/memory.json, for a stable, unique id.');
  }
  const counts = bankTags === undefined ? undefined : countTags(bankTags, identity.tag, identity.legacyTag);
  if (counts !== undefined) {
    findings.push(
      `Tag sample (${counts.sampleSize}): ${counts.projectTagHits} ${identity.tag}, ${counts.legacyRepoTagHits} ${identity.legacyTag}, ${counts.otherRepoTags} other repo: tags, ${counts.otherProjectTags} other project: tags.`,
    );
    if (counts.legacyRepoTagHits > 0 && counts.projectTagHits === 0) {
      guidance.push('Only legacy tags were seen: keep the dual-tag window; new retains add the project: tag as memories are updated.');
    }
    if (counts.otherRepoTags > 0) guidance.push('Other repo: tags belong to other checkouts (or moved paths) of projects sharing this bank; they are not matched by this project.');
  }
  guidance.push('No server-side rewrite is planned or needed: this tool never changes tags or documents.');
  return {
    dryRun: true as const,
    rewrite: 'none' as const,
    bankId: scope.projectBank.bankId,
    pathDerivedBank: scope.projectBank.derived,
    scopeMode: scope.mode,
    projectTag: identity.tag,
    legacyRepoTag: identity.legacyTag,
    projectId: identity.id,
    projectIdBasis: identity.basis,
    projectIdSource: identity.source,
    dualTagWindow: true as const,
    pathHashFragile: true as const,
    findings,
    guidance,
    ...(counts === undefined ? {} : { remoteTagCounts: counts }),
    createdAt: new Date(ctx.clock.now()).toISOString(),
  };
};

const handler = async (params: MemoryScopeMigrateParams, ctx: ToolContext): Promise<ToolOutcome> => {
  const plan = scopeMigratePlan(ctx, params.bankTags);
  const receiptPath = scopeMigrateReceiptPath(ctx.loaded.stateDir);
  const writeReceipt = params.writeReceipt !== false;
  if (writeReceipt) {
    const error = await ctx.stateFiles.writeJson(receiptPath, { ...plan, receiptPath });
    if (error !== undefined) return fail('io', `${error}. The plan was computed but not saved; call again with writeReceipt:false to only see it.`);
  }
  const text = [
    `Scope migration plan (dry run; rewrite: none; no server call) for bank ${plan.bankId}:`,
    ...plan.findings.map((f) => `- ${f}`),
    'Guidance:',
    ...plan.guidance.map((g) => `- ${g}`),
    writeReceipt ? `Receipt: ${receiptPath}` : 'Receipt not written (writeReceipt:false).',
  ].join('\n');
  return ok(text, { ...plan, ...(writeReceipt ? { receiptPath } : {}) });
};

export const memoryScopeMigrateTool = defineTool<MemoryScopeMigrateParams>({
  name: 'memory_scope_migrate',
  label: 'Memory Scope Migrate',
  description:
    'Plan a dual-tag / legacy repo: to project: scope migration. Dry-run only: never calls the server and never rewrites tags or documents. Writes a local receipt under {state_dir}/memory/ unless writeReceipt is false. bankTags (optional) is a tag sample used only for counts.',
  promptSnippet: 'memory_scope_migrate: plan (dry run only) the repo: to project: tag migration',
  params: MemoryScopeMigrateParams,
  handler,
});
