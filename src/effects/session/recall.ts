/**
 * Automatic recall for one model call: the project and user banks asked in parallel, with
 * the scope tag filter, under one hard deadline and the host's abort signal (Esc). Past the
 * deadline the turn goes on without memory; nothing here ever throws.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { MemoryConfig } from '../../config/fields.js';
import { redact } from '../../config/redact.js';
import { fitsUserBank, scopeTagsFor, type BankTarget, type Scope } from '../../config/scope.js';
import { composeTagFilter } from '../../config/tagFilter.js';
import type { ClockPort } from '../ports/clock.js';
import { describeFailure, type MemoryServer, type RecallRequest, type RecallResult, type ServerFailure } from '../ports/memoryServer.js';
import { renderRecallBlock, type BankRecall, type MentalModelText } from './recallBlock.js';
import { clearsFloor, RECALL_FLOOR, resultReports, type RecallResultReport } from './recallFloor.js';
import { createRecallCache, injectBlock, recallCacheKey, type RecallCache } from './recallInject.js';
import { modelsToInject } from './modelsInjected.js';
import { recallQuery } from './recallQuery.js';
import type { HostMessage } from './messages.js';

export type RecallConfig = Pick<
  MemoryConfig,
  | 'recallBudget'
  | 'recallMaxTokens'
  | 'recallUserMaxTokens'
  | 'recallPreferObservations'
  | 'recallTypes'
  | 'recallContextTurns'
  | 'recallMaxQueryChars'
  | 'recallTimeoutMs'
  | 'recallStoreLast'
  | 'includeSharedObservations'
  | 'mentalModelsInject'
>;

export type RecallRunOutcome =
  | { readonly _tag: 'injected'; readonly messages: HostMessage[]; readonly items: number; readonly cached: boolean; readonly failedBanks: number; readonly report: RecallReport }
  | { readonly _tag: 'empty'; readonly failedBanks: number; readonly report: RecallReport }
  | { readonly _tag: 'noQuery' }
  | { readonly _tag: 'failed'; readonly reason: string; readonly report: RecallReport }
  | { readonly _tag: 'timedOut'; readonly reason: string; readonly report: RecallReport }
  | { readonly _tag: 'aborted' };

/**
 * What the last-recall sidecar records. `query` and `block` are raw here: redacting them costs
 * more than the rest of the hook, and most turns store no sidecar, so `sidecarOf` redacts them
 * when one is written. Failure text is redacted where it is made (it also reaches the user).
 */
export interface RecallReport {
  readonly at: string;
  readonly query: string;
  readonly banks: readonly { readonly bankId: string; readonly status: 'ok' | 'failed'; readonly items: number; readonly error?: string }[];
  readonly renderedLength: number;
  readonly removedCharacters: number;
  readonly cached: boolean;
  readonly block?: string;
  /** The floor automatic recall applied to each bank's best `scores.final`. */
  readonly floor?: number;
  /** Every result the servers returned: its score, the stage that found it, whether it passed the floor. */
  readonly results?: readonly RecallResultReport[];
}

export interface RecallerOptions {
  readonly server: MemoryServer;
  readonly clock: ClockPort;
  /** Rendered blocks stay byte-identical for this long per query key. */
  readonly cacheTtlMs?: number;
}

export interface RecallRequestInput {
  readonly messages: readonly HostMessage[];
  readonly scope: Scope;
  readonly config: RecallConfig;
  readonly signal?: AbortSignal | undefined;
  /** Absolute deadline (epoch ms); default now + recallTimeoutMs. */
  readonly deadline?: number;
}

export interface Recaller {
  recall(input: RecallRequestInput): Promise<RecallRunOutcome>;
  readonly cache: RecallCache;
}

// A function, so TypeScript does not narrow `aborted` across awaits.
const isAborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

const isTimeout = (f: ServerFailure): boolean => f._tag === 'timeout';

export const createRecaller = (options: RecallerOptions): Recaller => {
  const { server, clock } = options;
  const cache = createRecallCache(options.cacheTtlMs ?? 60_000);

  const recall = async (input: RecallRequestInput): Promise<RecallRunOutcome> => {
    const { scope, config } = input;
    const targets = scope.automatic.read;
    const query = recallQuery(input.messages, { contextTurns: config.recallContextTurns, maxChars: config.recallMaxQueryChars });
    if (query === undefined || targets.length === 0) return { _tag: 'noQuery' };
    if (isAborted(input.signal)) return { _tag: 'aborted' };

    const now = clock.now();
    const key = recallCacheKey(
      targets.map((target) => target.bankId),
      query.lastUser,
    );
    const hit = cache.get(key, now);
    if (hit !== undefined) {
      const report: RecallReport = { at: new Date(now).toISOString(), query: query.text, banks: [], renderedLength: hit.text.length, removedCharacters: 0, cached: true };
      return { _tag: 'injected', messages: injectBlock(input.messages, hit), items: countItems(hit.text), cached: true, failedBanks: 0, report };
    }

    const deadline = input.deadline ?? now + config.recallTimeoutMs;
    // Esc aborts every request of this recall (the host's signal goes to each). The deadline
    // does not abort them: the client times them out itself at the same deadline, which its
    // circuit breaker counts (an abort it would not), so a dead server soon costs nothing. The
    // race below returns on time even when a request waits on something the deadline does not
    // reach (a shared capability probe).
    let timedOut = false;
    let fireDeadline: () => void = () => undefined;
    const deadlinePassed = new Promise<'deadline'>((resolve) => {
      fireDeadline = () => resolve('deadline');
    });
    const cancelTimer = clock.setTimer(deadline, () => {
      timedOut = true;
      fireDeadline();
    });
    let onHostAbort: () => void = () => undefined;
    const hostAborted = new Promise<'aborted'>((resolve) => {
      onHostAbort = () => resolve('aborted');
    });
    if (input.signal?.aborted === true) onHostAbort();
    input.signal?.addEventListener('abort', onHostAbort, { once: true });
    const call = input.signal === undefined ? { deadline } : { signal: input.signal, deadline };
    // The clock's timers are unref'd; a host with nothing else pending (pi's print mode) would
    // exit mid-recall while the client waits on one. Hold the loop open until the deadline.
    const keepAlive = setTimeout(() => undefined, Math.max(0, deadline - now) + 50);

    const perBank = targets.map(async (target): Promise<{ target: BankTarget; result: E.Either<ServerFailure, BankRecall & { reports: RecallResultReport[] }> }> => {
      const request: RecallRequest = {
        query: query.text,
        budget: config.recallBudget,
        max_tokens: target.role === 'user' ? config.recallUserMaxTokens : config.recallMaxTokens,
        types: [...config.recallTypes],
        ...(config.recallPreferObservations ? { prefer_observations: true } : {}),
        // The sidecar records which stage found each result: only the trace says.
        ...(config.recallStoreLast ? { trace: true } : {}),
        ...composeTagFilter({ scopeTags: scopeTagsFor(scope, target), includeSharedObservations: config.includeSharedObservations }),
      };
      let result = await server.recall(target.bankId, request, call)();
      // An older server without prefer_observations still recalls: ask again without it.
      if (E.isLeft(result) && result.left._tag === 'unsupportedCapability' && request.prefer_observations !== undefined) {
        const { prefer_observations: _dropped, ...plain } = request;
        result = await server.recall(target.bankId, plain, call)();
      }
      return {
        target,
        result: E.map((all: RecallResult) => {
          const r = target.role === 'user' ? { ...all, results: all.results.filter((hit) => fitsUserBank(hit.tags)) } : all;
          // Under the floor the bank injects nothing; the report still says what it found.
          const clears = clearsFloor(r.results);
          // The stage that found each result is in the trace's final results (asked for with the sidecar on).
          const stages = new Map<string, string>();
          const finals = (r.trace?.['final_results'] ?? []) as unknown;
          if (Array.isArray(finals)) for (const f of finals as { node_id?: unknown; stage?: unknown }[]) if (typeof f.node_id === 'string' && typeof f.stage === 'string') stages.set(f.node_id, f.stage);
          return {
            bankId: target.bankId,
            items: (clears ? r.results : []).map((hitItem) => ({ text: hitItem.text, tags: hitItem.tags ?? null, type: hitItem.type ?? null, when: hitItem.occurred_start ?? hitItem.mentioned_at ?? null })),
            reports: resultReports(target.bankId, r.results.map((h) => ({ ...h, stage: stages.get(h.id) ?? null })), clears),
          };
        })(result),
      };
    });

    const modelsTask = config.mentalModelsInject
      ? Promise.all(
          targets.map(async (target): Promise<MentalModelText[]> => {
            // `full`: the refresh's `based_on` tells a model that says something from one that found nothing.
            const listed = await server.listMentalModels(target.bankId, { detail: 'full', limit: 20 }, call)();
            return E.isLeft(listed) ? [] : modelsToInject(target, scope, listed.right.items);
          }),
        ).then((lists) => lists.flat())
      : Promise.resolve([] as MentalModelText[]);

    try {
      const settled = await Promise.race([Promise.all([Promise.all(perBank), modelsTask]), deadlinePassed, hostAborted]);
      if (settled === 'aborted' || isAborted(input.signal)) return { _tag: 'aborted' };
      if (settled === 'deadline') {
        const report: RecallReport = {
          at: new Date(clock.now()).toISOString(),
          query: query.text,
          banks: targets.map((target) => ({ bankId: target.bankId, status: 'failed' as const, items: 0, error: 'deadline passed' })),
          renderedLength: 0,
          removedCharacters: 0,
          cached: false,
        };
        return { _tag: 'timedOut', reason: `recall passed its ${config.recallTimeoutMs} ms deadline; the turn went on without memory`, report };
      }
      const [results, models] = settled;
      const ok = results.flatMap((r) => (E.isRight(r.result) ? [r.result.right] : []));
      const failures = results.flatMap((r) => (E.isLeft(r.result) ? [{ target: r.target, failure: r.result.left }] : []));
      const banksReport = results.map((r) =>
        E.isRight(r.result)
          ? { bankId: r.target.bankId, status: 'ok' as const, items: r.result.right.items.length }
          : { bankId: r.target.bankId, status: 'failed' as const, items: 0, error: redact(describeFailure(r.result.left)) },
      );
      const block = renderRecallBlock(ok, models, new Set([...scope.projectRetainTags, ...scope.userScopeTags]));
      const report: RecallReport = {
        at: new Date(clock.now()).toISOString(),
        query: query.text,
        banks: banksReport,
        renderedLength: block?.text.length ?? 0,
        removedCharacters: block?.removed ?? 0,
        cached: false,
        ...(block === undefined ? {} : { block: block.text }),
        floor: RECALL_FLOOR,
        results: ok.flatMap((bank) => bank.reports),
      };
      if (ok.length === 0 && failures.length > 0) {
        const reason = failures.map((f) => `${f.target.bankId}: ${redact(describeFailure(f.failure))}`).join('; ');
        if (timedOut || clock.now() >= deadline || failures.every((f) => isTimeout(f.failure))) {
          return { _tag: 'timedOut', reason: `recall passed its ${config.recallTimeoutMs} ms deadline; the turn went on without memory`, report };
        }
        return { _tag: 'failed', reason, report };
      }
      if (block === undefined) return { _tag: 'empty', failedBanks: failures.length, report };
      const injected = { text: block.text, timestamp: clock.now() };
      cache.set(key, injected, clock.now());
      return { _tag: 'injected', messages: injectBlock(input.messages, injected), items: block.items, cached: false, failedBanks: failures.length, report };
    } finally {
      clearTimeout(keepAlive);
      cancelTimer();
      input.signal?.removeEventListener('abort', onHostAbort);
    }
  };

  return { recall, cache };
};

/** The report as the sidecar stores it: never a secret, never the API key. */
export const sidecarOf = (report: RecallReport): RecallReport => ({
  ...report,
  query: redact(report.query),
  ...(report.block === undefined ? {} : { block: redact(report.block) }),
});

const countItems = (text: string): number => (text.match(/^\d+\. /gm) ?? []).length;
