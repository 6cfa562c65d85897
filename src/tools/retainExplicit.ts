/**
 * Explicit retain, shared by memory_retain and memory_retain_global. Queue-first: the job is
 * durable on disk before anything is sent. With an empty queue it is delivered at once; with
 * older jobs pending it waits its turn (so an outage does not burn retries), and the answer
 * says which happened.
 */
import { createHash } from 'node:crypto';
import { RESERVED_METADATA_KEYS } from '../codecs/retainItem.js';
import * as t from 'io-ts';
import type { BankTarget } from '../config/scope.js';
import { redact } from '../config/redact.js';
import type { RetainItem } from '../effects/ports/memoryServer.js';
import type { ToolContext } from './context.js';
import { custom, flag, objectId, oneOf, stringMap, text, textCodec, type Param } from './params.js';
import type { RetainJobInput } from '../effects/ports/toolQueue.js';
import { fail, ok, type ToolOutcome } from './result.js';
import { foreignProjectTags } from './objectScope.js';
import { tagsParam } from './sharedParams.js';
import { retainTimestamp } from './timestamps.js';


// Not exact: extra keys are dropped when the job is built (only text and type are copied).
const Entity = t.intersection([t.type({ text: textCodec(256) }), t.partial({ type: textCodec(64) })]);

const OBSERVATION_SCOPE_MODES = ['per_tag', 'combined', 'all_combinations', 'shared'] as const;
const ScopeMode = t.keyof({ per_tag: null, combined: null, all_combinations: null, shared: null });
const ObservationScopesCodec = t.union([ScopeMode, t.array(t.array(textCodec(128)))], 'per_tag | combined | all_combinations | shared | string[][]');

const maxList = <C extends t.Mixed>(codec: C, max: number) =>
  new t.Type<t.TypeOf<C>[], unknown, unknown>(
    `${codec.name}[] (at most ${max})`,
    (u): u is t.TypeOf<C>[] => t.array(codec).is(u) && u.length <= max,
    (u, c) => (Array.isArray(u) && u.length > max ? t.failure(u, c, `at most ${max} items`) : t.array(codec).validate(u, c)),
    t.identity,
  );

/** The parameters of memory_retain other than `bank` (memory_retain_global takes exactly these). */
export const retainParamDefs = (contextDescription: string) => ({
  required: {
    content: text('Raw content to remember (the source text, not a summary, when the source is available).', 100_000),
    context: text(contextDescription, 2000),
  },
  optional: {
    tags: tagsParam('Tags added to the automatic scope tags. A project: or repo: tag naming another project is refused.'),
    entities: custom(
      maxList(Entity, 64),
      { type: 'array', maxItems: 64, items: { type: 'object', properties: { text: { type: 'string' }, type: { type: 'string' } }, required: ['text'], additionalProperties: false } },
      'Entities to associate: [{text, type?}].',
    ),
    documentId: objectId('Document id. Default: a deterministic explicit-retain id, so repeating the same memory updates one document.', 512),
    timestamp: custom(retainTimestamp, { type: 'string' }, 'ISO timestamp of the memory, or the literal "unset"; passed through as given.'),
    metadata: stringMap('Caller metadata (string values). cwd, host_session_file, source and retainSource are set by the service and cannot be overridden.'),
    updateMode: oneOf(['append', 'replace'], 'replace (default) rewrites the document; append adds to it.', 'replace'),
    observationScopes: custom(
      ObservationScopesCodec,
      { anyOf: [{ type: 'string', enum: [...OBSERVATION_SCOPE_MODES] }, { type: 'array', items: { type: 'array', items: { type: 'string' } } }] },
      'Observation scopes for this call: per_tag, combined, all_combinations, shared, or a list of tag lists. In a project bank every scope holds this project\'s tag: only combined (the default) or lists that each hold it are accepted there.',
    ),
    documentTags: tagsParam('Document-level tags, when the server supports them.'),
    async: flag('Let the server process the retain asynchronously. Default: config retain.async.'),
  },
});

type Defs = ReturnType<typeof retainParamDefs>;
type ValuesOf<P extends Record<string, Param>> = { [K in keyof P]: t.TypeOf<P[K]['codec']> };
export type ExplicitRetainParams = ValuesOf<Defs['required']> & Partial<ValuesOf<Defs['optional']>>;

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** `pi-explicit:<session hash 16>:<content hash 16>`: the same memory in one session updates one document. */
const explicitDocumentId = (sessionKey: string, bankId: string, content: string, context: string): string =>
  `pi-explicit:${sha256(sessionKey).slice(0, 16)}:${sha256(JSON.stringify({ bankId, content, context })).slice(0, 16)}`;

const unique = (xs: readonly string[]): string[] => [...new Set(xs)];

/**
 * Observation scopes of a project-tier retain stay within the project: every scope holds one of
 * its scope tags. `per_tag`, `all_combinations` and `shared` form scopes without it (a
 * `[source:pi]` observation passes the user-bank filter, an untagged one every project's shared
 * observations). Returns what is outside, or undefined.
 */
const scopesOutsideProject = (scopes: ExplicitRetainParams['observationScopes'], projectTags: readonly string[]): string | undefined => {
  if (scopes === undefined || scopes === 'combined') return undefined;
  if (typeof scopes === 'string') return scopes;
  const bad = scopes.find((scope) => !scope.some((tag) => projectTags.includes(tag)));
  return bad === undefined ? undefined : `the scope ${JSON.stringify(bad)}`;
};

const buildExplicitJob = (params: ExplicitRetainParams, target: BankTarget, ctx: ToolContext): { job: RetainJobInput; droppedMetadataKeys: string[] } => {
  const session = ctx.session;
  const sessionKey = session?.sessionId ?? session?.sessionFile ?? 'no-session';
  const content = redact(params.content);
  const context = redact(params.context);
  const documentId = params.documentId ?? explicitDocumentId(sessionKey, target.bankId, content, context);
  const baseTags = target.role === 'user' ? ctx.scope.userScopeTags : ctx.scope.projectRetainTags;
  const sessionTags = session?.sessionId === undefined ? [] : [`session:${session.sessionId}`];
  const callerMetadata = params.metadata ?? {};
  const droppedMetadataKeys = Object.keys(callerMetadata).filter((k) => RESERVED_METADATA_KEYS.some((r) => r === k));
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(callerMetadata)) {
    if (!droppedMetadataKeys.includes(k)) Object.defineProperty(metadata, k, { value: redact(v), enumerable: true, writable: true, configurable: true });
  }
  metadata['cwd'] = ctx.loaded.cwd;
  if (session?.sessionFile !== undefined) metadata['host_session_file'] = session.sessionFile;
  metadata['source'] = 'agent-memory';
  metadata['retainSource'] = 'tool';
  const updateMode = params.updateMode ?? 'replace';
  const item: RetainItem = {
    content,
    context,
    document_id: documentId,
    tags: unique([...baseTags, ...sessionTags, ...(params.tags ?? [])]),
    metadata,
    update_mode: updateMode,
    ...(params.timestamp === undefined ? {} : { timestamp: params.timestamp }),
    ...(params.entities === undefined ? {} : { entities: params.entities.map((e) => ({ text: e.text, ...(e.type === undefined ? {} : { type: e.type }) })) }),
    ...(params.observationScopes === undefined ? {} : { observation_scopes: params.observationScopes }),
  };
  const job: RetainJobInput = { bankId: target.bankId, documentId, updateMode, item };
  return { job, droppedMetadataKeys };
};

export const retainExplicit = async (toolName: string, params: ExplicitRetainParams, target: BankTarget, ctx: ToolContext): Promise<ToolOutcome> => {
  if (ctx.session !== undefined && !ctx.session.retainAllowed) {
    return fail('sessionRefused', `Memory retain is disabled for this session (mode ${ctx.session.mode ?? 'read-only'}). Nothing was stored; change the session mode with /memory mode normal to retain.`);
  }
  // The durable queue sends request-level options (async, document tags) per queue, not per
  // job: refuse what it cannot carry rather than silently sending something else.
  if (params.documentTags !== undefined) {
    return fail('unsupportedCapability', `${toolName}: documentTags is not supported by the durable retain queue yet; leave it out (use tags). Nothing was stored.`, { field: 'documentTags' });
  }
  if (params.async !== undefined && params.async !== ctx.loaded.config.retainAsync) {
    return fail(
      'invalidParams',
      `${toolName}: field async: the retain queue delivers with retain.async=${String(ctx.loaded.config.retainAsync)} for every job; leave async out or change retainAsync with memory_config. Nothing was stored.`,
      { field: 'async' },
    );
  }
  // Another project's tag would put the memory in that project's automatic recall (its scope
  // filter matches any of its tags): a tool call writes only within this project.
  const foreign = [
    { field: 'tags', tags: foreignProjectTags(ctx, params.tags ?? []) },
    { field: 'observationScopes', tags: foreignProjectTags(ctx, Array.isArray(params.observationScopes) ? params.observationScopes.flat() : []) },
  ].find((f) => f.tags.length > 0);
  if (foreign !== undefined) {
    return fail('rejected', `${toolName}: field ${foreign.field}: ${foreign.tags.join(', ')} names another project; a tool call writes only within this project (${ctx.scope.identity.tag}). Nothing was stored.`, { field: foreign.field });
  }
  const outside = target.role === 'user' ? undefined : scopesOutsideProject(params.observationScopes, ctx.scope.projectScopeTags);
  if (outside !== undefined) {
    return fail(
      'rejected',
      `${toolName}: field observationScopes: ${outside} would form observations without this project's tag (${ctx.scope.identity.tag}): this project's recall never reads them, and a recall that shares the bank without that tag (your personal memory, shared observations) would. Leave it out (combined), or give lists that each hold ${ctx.scope.identity.tag}. Nothing was stored.`,
      { field: 'observationScopes' },
    );
  }
  const { job, droppedMetadataKeys } = buildExplicitJob(params, target, ctx);
  const pendingBefore = ctx.queue.status().depth;
  let queued;
  try {
    queued = await ctx.queue.enqueue([job]);
  } catch (cause) {
    return fail('io', `${toolName}: could not write the memory to the retain queue (${redact(cause instanceof Error ? cause.message : String(cause))}); nothing was stored. Check free disk space and permissions of ${ctx.loaded.stateDir}.`);
  }
  const jobId = queued[0]?.jobId ?? null;
  const base = {
    bankId: target.bankId,
    documentId: job.documentId,
    updateMode: job.updateMode,
    tags: job.item.tags ?? [],
    queueJobId: jobId,
    enqueued: true,
    ...(droppedMetadataKeys.length > 0 ? { droppedMetadataKeys } : {}),
  };
  const setupNote =
    target.role === 'project' && ctx.scope.projectBank.derived && ctx.scope.mode === 'domain-tagged'
      ? ` Note: setup is incomplete, so ${target.bankId} is a path-derived bank; set projectBankId to the shared coding bank (memory_status shows how).`
      : '';
  const dropped = `${droppedMetadataKeys.length > 0 ? ` Reserved metadata keys ignored: ${droppedMetadataKeys.join(', ')}.` : ''}${setupNote}`;
  if (pendingBefore > 0) {
    const depth = ctx.queue.status().depth;
    return ok(`Queued for ${target.bankId} behind ${pendingBefore} older job(s); ${depth} job(s) pending. It is safe on disk and will be delivered in order.${dropped}`, {
      ...base,
      queued: true,
      sent: false,
      remaining: depth,
    });
  }
  const report = await ctx.queue.flush({ deadline: ctx.clock.now() + ctx.loaded.config.timeoutMs });
  const after = ctx.queue.status();
  const opId = after.lastDelivery?.operationId ?? null;
  const ops = opId === null || report.delivered === 0 ? '' : ` Operation ID: ${opId}.`;
  const dead = report.deadLettered > 0 ? ` ${report.deadLettered} job(s) moved to the dead-letter queue (the server rejected them${after.lastError === undefined ? '' : `: ${after.lastError}`}); run /memory dead-letters to inspect.` : '';
  const details = { ...base, sent: report.delivered > 0, remaining: after.depth, deadLettered: report.deadLettered, ...(ops === '' || opId === null ? {} : { operationIds: [opId] }) };
  if (after.depth === 0 && report.deadLettered === 0) return ok(`Retained in ${target.bankId} as ${job.documentId}.${ops}${dropped}`, { ...details, queued: false });
  if (after.depth === 0) return ok(`Retain to ${target.bankId} did not succeed.${dead}${dropped}`, { ...details, queued: false });
  const why = report.stoppedBecause ?? after.pausedReason ?? after.lastError;
  return ok(
    `Queued for ${target.bankId}; ${after.depth} job(s) pending${why === undefined ? '' : ` (${why})`}. The memory is safe on disk and is delivered when the server is reachable.${dead}${dropped}`,
    { ...details, queued: true },
  );
};
