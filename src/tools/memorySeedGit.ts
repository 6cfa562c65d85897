/**
 * memory_seed_git: opt-in cold-repo seed from git commit subjects into the project bank
 * (strategy gitlog). Previews by default; with dryRun:false the seed document is queued
 * (and flushed unless flush:false) and a receipt records the HEAD it was taken at.
 */
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { redact } from '../config/redact.js';
import { projectTagKey } from '../config/projectId.js';
import type { GitLog } from '../effects/ports/git.js';
import type { ToolContext } from './context.js';
import { flag, int, toolParams } from './params.js';
import type { RetainJobInput } from '../effects/ports/toolQueue.js';
import { fail, ok, type ToolOutcome } from './result.js';
import { dryRunParam } from './sharedParams.js';
import { cleanText } from './text.js';
import { defineTool } from './tool.js';

const SEED_DEFAULT_LIMIT = 300;
const SEED_MAX_LIMIT = 2000;

export const MemorySeedGitParams = toolParams(
  'memory_seed_git',
  {},
  {
    limit: int(`Maximum commits to read (default ${SEED_DEFAULT_LIMIT}).`, 1, SEED_MAX_LIMIT, SEED_DEFAULT_LIMIT),
    dryRun: dryRunParam,
    flush: flag('Only with dryRun:false: flush the retain queue right after queueing (default true).', true),
  },
);
export type MemorySeedGitParams = t.TypeOf<typeof MemorySeedGitParams.codec>;

export const gitSeedReceiptPath = (stateDir: string): string => path.join(stateDir, 'memory', 'git-seed-receipt.json');

/** `{state_dir}/memory/git-seed-receipt.json`: which HEAD was seeded into which bank, and when. */
export const GitSeedReceipt = t.type({
  bankId: t.string,
  documentId: t.string,
  headSha: t.string,
  commitCount: t.number,
  seededAt: t.string,
});
export type GitSeedReceipt = t.TypeOf<typeof GitSeedReceipt>;

/**
 * The seed document's id: the project and the HEAD. A fork shares its upstream's commits (and
 * often the shared coding bank), so an id of the HEAD alone would let the fork's seed replace
 * the upstream's.
 */
const gitSeedDocumentId = (projectTag: string, headSha: string): string => `pi-gitlog:${projectTagKey(projectTag)}:${headSha.slice(0, 12)}`;

/** The seed document's content: one `<sha12> <subject>` line per commit, newest first. */
const gitSeedContent = (log: GitLog, limit: number): string =>
  [`# Git commit message history (newest first, limit ${limit})`, '', ...log.commits.map((c) => `${c.sha.slice(0, 12)} ${redact(cleanText(c.subject, 500))}`)].join('\n');

const buildGitSeedJob = (log: GitLog, limit: number, bankId: string, ctx: ToolContext): RetainJobInput => {
  const documentId = gitSeedDocumentId(ctx.scope.identity.tag, log.head);
  const { identity } = ctx.scope;
  return {
    bankId,
    documentId,
    updateMode: 'replace',
    item: {
      content: gitSeedContent(log, limit),
      context: `Git commit-message seed for ${identity.id} (HEAD ${log.head.slice(0, 12)})`,
      document_id: documentId,
      update_mode: 'replace',
      tags: [...new Set([...ctx.scope.projectRetainTags, 'session:git-seed', 'source:git', 'strategy:gitlog'])],
      metadata: { cwd: ctx.loaded.cwd, imported: 'true', seed: 'gitlog', head_sha: log.head, source: 'agent-memory', retainSource: 'git-seed' },
      timestamp: new Date(ctx.clock.now()).toISOString(),
    },
  };
};

const handler = async (params: MemorySeedGitParams, ctx: ToolContext): Promise<ToolOutcome> => {
  const limit = params.limit ?? SEED_DEFAULT_LIMIT;
  const dryRun = params.dryRun !== false;
  const target = ctx.scope.explicit.write[0];
  if (target === undefined) {
    return fail('notConfigured', `memory_seed_git needs an active project bank, but memoryProfile is ${ctx.scope.profile}. Nothing was read or sent.`);
  }
  if (!dryRun && ctx.session !== undefined && !ctx.session.retainAllowed) {
    return fail('sessionRefused', `Memory retain is disabled for this session (mode ${ctx.session.mode ?? 'read-only'}). Nothing was queued.`);
  }
  const log = await ctx.git.readLog(ctx.loaded.cwd, limit);
  if (E.isLeft(log)) return fail('notConfigured', `memory_seed_git: ${log.left.message}. Nothing was queued.`, { details: { reason: log.left._tag } });
  const job = buildGitSeedJob(log.right, limit, target.bankId, ctx);
  const summary = {
    bankId: target.bankId,
    documentId: job.documentId,
    headSha: log.right.head,
    commitCount: log.right.commits.length,
  };
  if (dryRun) {
    const preview = log.right.commits.slice(0, 5).map((c) => `  ${c.sha.slice(0, 12)} ${redact(cleanText(c.subject, 120))}`);
    return ok(
      [
        `Preview (dryRun): would retain ${summary.commitCount} commit subject(s) (HEAD ${log.right.head.slice(0, 12)}) into ${target.bankId} as ${job.documentId} (replace).`,
        ...preview,
        ...(log.right.commits.length > 5 ? [`  … ${log.right.commits.length - 5} more`] : []),
        'Nothing was queued and no receipt was written. Call again with dryRun:false to seed.',
      ].join('\n'),
      { dryRun: true, ok: true, ...summary, contentChars: job.item.content.length },
    );
  }
  let queuedJobs;
  try {
    queuedJobs = await ctx.queue.enqueue([job]);
  } catch (cause) {
    return fail('io', `memory_seed_git: could not write to the retain queue (${redact(cause instanceof Error ? cause.message : String(cause))}); nothing was queued.`);
  }
  const receipt: GitSeedReceipt = { ...summary, seededAt: new Date(ctx.clock.now()).toISOString() };
  const receiptPath = gitSeedReceiptPath(ctx.loaded.stateDir);
  const receiptError = await ctx.stateFiles.writeJson(receiptPath, receipt);
  const flush = params.flush !== false;
  const report = flush ? await ctx.queue.flush({ deadline: ctx.clock.now() + ctx.loaded.config.timeoutMs }) : undefined;
  const status = ctx.queue.status();
  const delivered = report !== undefined && status.depth === 0 && report.deadLettered === 0;
  const text = [
    `Seeded ${summary.commitCount} commit subject(s) (HEAD ${log.right.head.slice(0, 12)}) for ${target.bankId} as ${job.documentId}: ${
      delivered ? 'delivered' : `queued, ${status.depth} job(s) pending${status.lastError === undefined ? '' : ` (${status.lastError})`}`
    }.`,
    receiptError === undefined ? `Receipt: ${receiptPath}` : `warning: ${receiptError}; the seed is queued but memory_status will report it as missing`,
  ].join('\n');
  return ok(text, {
    dryRun: false,
    ok: true,
    ...summary,
    queued: true,
    queueJobId: queuedJobs[0]?.jobId ?? null,
    flushed: report === undefined ? false : { delivered: report.delivered, remaining: status.depth, deadLettered: report.deadLettered },
    receipt: { ...receipt },
    ...(receiptError === undefined ? { receiptPath } : { receiptError }),
  });
};

export const memorySeedGitTool = defineTool<MemorySeedGitParams>({
  name: 'memory_seed_git',
  label: 'Memory Seed Git',
  description:
    'Opt-in cold-repo seed: retain recent git commit subjects (strategy gitlog) into the project bank as one document keyed by HEAD. Previews by default (dryRun true); dryRun:false queues the retain and, unless flush:false, flushes the queue. Never automatic.',
  promptSnippet: 'memory_seed_git: seed project memory from git commit history (preview first)',
  params: MemorySeedGitParams,
  handler,
});
