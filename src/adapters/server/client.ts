/**
 * `createMemoryServer`: the `MemoryServer` port over HTTP (got, `./http.ts`), for Hindsight
 * 0.9.1 and the embedded server.
 *
 * Each call: capability check (only for gated options) → breaker admission → send with the
 * effective timeout min(timeoutMs, deadline - now) → map status/transport error → decode the
 * body. Idempotent calls (GET, PUT, and retain carrying an `operation_id`) are retried by got
 * with jittered exponential backoff while the deadline allows; nothing else is ever resent.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type * as t from 'io-ts';
import { redact } from '../../config/redact.js';
import { systemClock } from '../../effects/ports/clock.js';
import { BankId } from '../../codecs/codecs.js';
import { decodeWith } from '../../codecs/decode.js';
import {
  failureClass,
  type Capabilities,
  type CapabilityName,
  type CallOptions,
  type MemoryServer,
  type MemoryServerOptions,
  type Presence,
  type ServerFailure,
} from '../../effects/ports/memoryServer.js';
import { breakerFor, defaultBreakerOptions, type BreakerOptions } from './breaker.js';
import { breakerFile } from './breakerFile.js';
import {
  FIELD_CAPABILITY,
  cachedCapabilities,
  deriveCapabilities,
  markMissing,
  missing,
  recallNeeds,
  reflectNeeds,
  rememberCapabilities,
  retainNeeds,
  unsupported,
} from './capabilities.js';
import { DEFAULT_MAX_RESPONSE_BYTES, failureFromStatus, failureFromTransport } from './failures.js';
import { createTransport, type HttpMethod, type HttpRequest, type HttpResponse, type QueryValue, type RetryPlan, type SendResult } from './http.js';
import { dotSegment, dotSegmentRefusal } from './pathStep.js';
import {
  AsyncSubmission,
  BankConfig,
  BankList,
  BankProfile,
  BankStats,
  CreateMentalModelResult,
  CreatePageResult,
  DocumentDetail,
  DocumentList,
  KnowledgeExport,
  KnowledgeNode,
  KnowledgePage,
  KnowledgeSearchResult,
  KnowledgeTree,
  MentalModel,
  MentalModelHistory,
  MentalModelList,
  OperationStatus,
  RecallResult,
  ReflectResult,
  RetainResult,
  TagList,
  VersionInfo,
  BankUpdate,
  CreateFolderRequest,
  CreateMentalModelRequest,
  CreatePageRequest,
  RecallRequest,
  ReflectRequest,
  RetainRequest,
  UpdateMentalModelRequest,
  UpdateNodeRequest,
  type BankList as BankListType,
  type BankSummary,
  type VersionInfo as VersionInfoType,
} from '../../wire/hindsight.js';
import { Acknowledgement, decodeBody } from './wire.js';

export const CLIENT_VERSION = '0.1.0';
export const DEFAULT_USER_AGENT = `agent-memory/${CLIENT_VERSION}`;

export interface RetryOptions {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  readonly baseMs: number;
  readonly capMs: number;
}

export const defaultRetryOptions: RetryOptions = { attempts: 3, baseMs: 100, capMs: 2_000 };

export interface ClientOptions extends MemoryServerOptions {
  readonly breaker?: BreakerOptions;
  readonly retry?: RetryOptions;
  /**
   * A JSON file keeping the breaker state between host processes
   * (e.g. `{state_dir}/memory/server-health.json`); in memory only when absent.
   */
  readonly healthFile?: string;
  /** Largest response body accepted (default 8 MB); a larger answer fails with `responseTooLarge`. */
  readonly maxResponseBytes?: number;
}

const API = '/v1/default';
const PROBE_BANK = 'agent-memory-capability-probe';

interface Call<A> {
  readonly method: HttpMethod;
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly codec: t.Type<A, unknown, unknown>;
  /** Safe to resend: the server applies it at most once. */
  readonly idempotent: boolean;
  /** Checked before sending: a bad bank id or body is refused here, naming the field. */
  readonly bankId?: string;
  readonly bodyCodec?: t.Mixed;
  /** A larger cap than the client's default, for answers that are big by nature (an export). */
  readonly maxResponseBytes?: number;
}

/** Exports carry a whole knowledge base: allowed more than the default cap. */
const EXPORT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Splits user:pass out of a base URL: the transport may use them, nothing else sees them. */
const normaliseBaseUrl = (raw: string): { transportUrl: string; publicUrl: string } | undefined => {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    const transportUrl = url.toString().replace(/\/+$/, '');
    url.username = '';
    url.password = '';
    return { transportUrl, publicUrl: url.toString().replace(/\/+$/, '') };
  } catch {
    return undefined;
  }
};

const isAborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

const bankPath = (bankId: string, rest = ''): string => `${API}/banks/${encodeURIComponent(bankId)}${rest}`;

/** Input the caller got wrong: never sent, answered as a 400-class failure that names the field. */
const refuseInput = (call: { readonly bankId?: string; readonly bodyCodec?: t.Mixed; readonly body?: unknown; readonly method: string; readonly path: string }): ServerFailure | undefined => {
  if (call.bankId !== undefined && !BankId.is(call.bankId)) {
    return { _tag: 'invalidRequest', status: 400, detail: `bankId: expected 1-128 letters, digits, '.', '_', ':' or '-' starting with a letter or digit, got ${JSON.stringify(call.bankId.slice(0, 40))}` };
  }
  const step = dotSegment(call.path);
  if (step !== undefined) {
    return { _tag: 'invalidRequest', status: 400, detail: dotSegmentRefusal(step, call.method) };
  }
  if (call.bodyCodec === undefined) return undefined;
  const decoded = decodeWith(call.bodyCodec, `${call.method} request`)(call.body);
  return E.isLeft(decoded) ? { _tag: 'invalidRequest', status: 400, detail: redact(decoded.left.message) } : undefined;
};

/** Full jitter: random(0, min(cap, base × 2^attempt)). */
const backoff = (retry: RetryOptions, attempt: number): number =>
  Math.floor(Math.random() * Math.min(retry.capMs, retry.baseMs * 2 ** attempt));

export const createMemoryServer = (options: ClientOptions): MemoryServer => {
  const clock = options.clock ?? systemClock;
  const retry = options.retry ?? defaultRetryOptions;
  const urls = normaliseBaseUrl(options.baseUrl);
  const baseUrl = urls?.publicUrl ?? options.baseUrl.replace(/\/+$/, '');
  const transport =
    urls === undefined
      ? undefined
      : createTransport({
          baseUrl: urls.transportUrl,
          ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
          userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
        });
  const breaker = breakerFor(
    baseUrl,
    clock,
    options.breaker ?? defaultBreakerOptions,
    options.healthFile === undefined ? undefined : breakerFile(options.healthFile, baseUrl),
  );

  /** A failed attempt as a failure; undefined for a 2xx answer. */
  const failureOf = (sent: SendResult, context: { readonly route: string; readonly timeoutMs: number; readonly limitBytes: number; readonly signal: AbortSignal | undefined }): ServerFailure | undefined => {
    if (sent.ok) {
      if (sent.response.status >= 200 && sent.response.status < 300) return undefined;
      return failureFromStatus(sent.response, clock.now(), cachedCapabilities(baseUrl, clock.now())?.apiVersion);
    }
    return failureFromTransport(sent.facts, { aborted: isAborted(context.signal), timeoutMs: context.timeoutMs, route: context.route, limitBytes: context.limitBytes });
  };

  /** What an attempt tells the breaker: any status is a live server; silence counts against it. */
  const breakerOutcome = (sent: SendResult, failure: ServerFailure | undefined): 'answered' | 'noAnswer' | 'neutral' => {
    if (sent.ok || failure?._tag === 'responseTooLarge') return 'answered';
    return failure?._tag === 'unreachable' || failure?._tag === 'timeout' ? 'noAnswer' : 'neutral';
  };

  /**
   * Sends one request; resolves to a 2xx response or a failure. An idempotent call is retried
   * by got (jittered backoff, or the server's Retry-After) while its failure is of the retry
   * class, the breaker admits another attempt and the deadline leaves room; nothing else is
   * ever resent. Every attempt is admitted by, and reported to, the breaker.
   */
  const exchange = async (unbounded: HttpRequest, idempotent: boolean, o: CallOptions | undefined): Promise<E.Either<ServerFailure, HttpResponse>> => {
    const limitBytes = unbounded.maxResponseBytes ?? options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const request: HttpRequest = { ...unbounded, maxResponseBytes: limitBytes };
    if (transport === undefined) {
      return E.left({ _tag: 'unreachable', message: 'baseUrl is not an http(s) URL; set baseUrl to the memory server root, e.g. http://127.0.0.1:8888' });
    }
    const route = `${request.method} ${request.path}`;
    const deadline = o?.deadline ?? clock.now() + options.timeoutMs;
    const signal = o?.signal;
    const admission = breaker.admit(o?.probe === true);
    if (!admission.admitted) return E.left({ _tag: 'circuitOpen', retryAt: admission.retryAt });
    let probe = admission.probe;
    if (isAborted(signal)) {
      breaker.record('neutral', probe);
      return E.left({ _tag: 'aborted' });
    }
    const remaining = deadline - clock.now();
    if (remaining <= 0) {
      breaker.record('neutral', probe);
      return E.left({ _tag: 'timeout', message: `${route}: the deadline passed before the request could be sent` });
    }
    let timeoutMs = Math.min(options.timeoutMs, remaining);
    const context = () => ({ route, timeoutMs, limitBytes, signal });
    // Attempts whose outcome the retry plan already told the breaker.
    let attempt = 1;
    let reported = 0;
    const attempts = o?.attempts ?? retry.attempts;
    const plan: RetryPlan | undefined =
      idempotent && attempts > 1
        ? {
            limit: attempts - 1,
            delayAfter: (_attempt, sent) => {
              const failure = failureOf(sent, context());
              breaker.record(breakerOutcome(sent, failure), probe);
              reported = attempt;
              if (failure === undefined || probe || failureClass(failure) !== 'retry') return undefined;
              const delay = failure._tag === 'rateLimited' && failure.retryAfterMs !== undefined ? failure.retryAfterMs : backoff(retry, attempt - 1);
              if (clock.now() + delay >= deadline) return undefined;
              const next = breaker.admit(false);
              if (!next.admitted) return undefined;
              probe = next.probe;
              attempt += 1;
              return delay;
            },
            nextTimeoutMs: () => {
              timeoutMs = Math.min(options.timeoutMs, deadline - clock.now());
              return timeoutMs;
            },
          }
        : undefined;
    const sent = await transport.send(request, { ...(signal === undefined ? {} : { signal }), timeoutMs, ...(plan === undefined ? {} : { retry: plan }) });
    const failure = failureOf(sent, context());
    if (reported < attempt) breaker.record(breakerOutcome(sent, failure), probe);
    return failure === undefined && sent.ok ? E.right(sent.response) : E.left(failure ?? { _tag: 'badResponse', detail: `${route}: no answer` });
  };

  /** A response that names a gated field in `X-Ignored-Params` was not understood: say so. */
  const ignoredFailure = (response: HttpResponse): ServerFailure | undefined => {
    for (const name of response.ignoredParams) {
      const field = name.split('.').pop() ?? name;
      const capability = FIELD_CAPABILITY[field];
      if (capability === undefined) continue;
      markMissing(baseUrl, capability);
      const caps = cachedCapabilities(baseUrl, clock.now()) ?? deriveCapabilities(undefined, response.embedded);
      return unsupported(capability, caps);
    }
    return undefined;
  };

  const run = async <A>(call: Call<A>, o: CallOptions | undefined): Promise<E.Either<ServerFailure, A>> => {
    const refused = refuseInput(call);
    if (refused !== undefined) return E.left(refused);
    const request: HttpRequest = {
      method: call.method,
      path: call.path,
      ...(call.query === undefined ? {} : { query: call.query }),
      ...(call.body === undefined ? {} : { body: call.body }),
      ...(call.maxResponseBytes === undefined ? {} : { maxResponseBytes: call.maxResponseBytes }),
    };
    const response = await exchange(request, call.idempotent, o);
    if (E.isLeft(response)) return response;
    const ignored = ignoredFailure(response.right);
    if (ignored !== undefined) return E.left(ignored);
    return decodeBody(call.codec, `${call.method} ${call.path}`)(response.right.body);
  };

  const task =
    <A>(call: Call<A>, o: CallOptions | undefined): TaskEither<ServerFailure, A> =>
    () =>
      run(call, o);

  // Concurrent gated calls share one detection instead of each asking /version.
  let detecting: Promise<E.Either<ServerFailure, Capabilities>> | undefined;
  const fetchCapabilities = (o: CallOptions | undefined): Promise<E.Either<ServerFailure, Capabilities>> => {
    const cached = cachedCapabilities(baseUrl, clock.now());
    if (cached !== undefined) return Promise.resolve(E.right(cached));
    if (detecting === undefined) {
      detecting = detectCapabilities(o).finally(() => {
        detecting = undefined;
      });
    }
    return detecting;
  };

  const detectCapabilities = async (o: CallOptions | undefined): Promise<E.Either<ServerFailure, Capabilities>> => {
    const response = await exchange({ method: 'GET', path: '/version' }, true, o);
    if (E.isRight(response)) {
      const decoded = decodeBody(VersionInfo, 'GET /version')(response.right.body);
      if (E.isRight(decoded)) {
        const caps = deriveCapabilities(decoded.right, response.right.embedded);
        rememberCapabilities(baseUrl, caps, clock.now());
        return E.right(caps);
      }
    } else if (response.left._tag !== 'notFound' && response.left._tag !== 'badResponse') {
      return response;
    }
    // No usable /version: the banks list proves it is a Hindsight API, the tree route whether
    // knowledge pages exist.
    const banks = await exchange({ method: 'GET', path: `${API}/banks` }, true, o);
    if (E.isLeft(banks)) return banks;
    const tree = await exchange({ method: 'GET', path: bankPath(PROBE_BANK, '/knowledge-base/tree') }, true, o);
    const caps = deriveCapabilities(undefined, banks.right.embedded, { knowledge: E.isRight(tree) });
    rememberCapabilities(baseUrl, caps, clock.now());
    return E.right(caps);
  };

  /**
   * The capabilities, or a timeout at the caller's own deadline. A caller (a recall on the
   * prompt path) waiting on a detection another caller started with a longer deadline would
   * otherwise give up unseen; its deadline passing is the server being too slow, so it counts
   * against the breaker, once per detection, and a slow server opens it like a dead one.
   */
  let slowCounted: Promise<unknown> | undefined;
  const capabilitiesBy = (o: CallOptions | undefined): Promise<E.Either<ServerFailure, Capabilities>> => {
    // Known already (every call but the first few): nothing to wait for, no timer to arm.
    const cached = cachedCapabilities(baseUrl, clock.now());
    if (cached !== undefined) return Promise.resolve(E.right(cached));
    const pending = fetchCapabilities(o);
    const deadline = o?.deadline;
    if (deadline === undefined) return pending;
    return new Promise((resolve) => {
      const cancel = clock.setTimer(deadline, () => {
        if (slowCounted !== pending) {
          slowCounted = pending;
          breaker.record('noAnswer', false);
        }
        resolve(E.left({ _tag: 'timeout', message: 'GET /version: no answer before the deadline' }));
      });
      void pending.then((result) => {
        cancel();
        resolve(result);
      });
    });
  };

  /** Runs `call` only when the server has every capability in `needs`; checks nothing when empty. */
  const gated = <A>(needs: readonly CapabilityName[], o: CallOptions | undefined, call: () => Promise<E.Either<ServerFailure, A>>): TaskEither<ServerFailure, A> =>
    async () => {
      if (needs.length === 0) return call();
      const caps = await capabilitiesBy(o);
      if (E.isLeft(caps)) return caps;
      const gap = missing(needs, caps.right);
      return gap === undefined ? call() : E.left(gap);
    };

  /**
   * A read where 404/410 is an answer. A bare `Not Found` (the route itself is absent, as on an
   * older server) or a disabled config API is a missing capability instead.
   */
  const presence = <A>(call: Call<A>, capability: CapabilityName, o: CallOptions | undefined): TaskEither<ServerFailure, Presence<A>> =>
    gated([capability], o, async () => {
      const result = await run(call, o);
      if (E.isRight(result)) return E.right({ _tag: 'present', value: result.right });
      const failure = result.left;
      if (failure._tag === 'gone') {
        return E.right({ _tag: 'absent', reason: 'gone', ...(failure.detail === undefined ? {} : { detail: failure.detail }) });
      }
      if (failure._tag === 'notFound') {
        if (failure.detail === 'Not Found' || /configuration API is disabled/i.test(failure.detail ?? '')) {
          const caps = cachedCapabilities(baseUrl, clock.now());
          return E.left(unsupported(capability, caps ?? deriveCapabilities(undefined, false)));
        }
        return E.right({ _tag: 'absent', reason: 'notFound', ...(failure.detail === undefined ? {} : { detail: failure.detail }) });
      }
      return result as E.Either<ServerFailure, never>;
    });

  /** Writes that answer only an acknowledgement. */
  const ack = (call: Omit<Call<unknown>, 'codec'>, o: CallOptions | undefined) => async (): Promise<E.Either<ServerFailure, void>> => {
    const result = await run({ ...call, codec: Acknowledgement }, o);
    return E.isLeft(result) ? result : E.right(undefined);
  };

  const listBanks = (q: { q?: string; limit?: number; offset?: number }, o: CallOptions | undefined): TaskEither<ServerFailure, readonly BankSummary[]> =>
    async () => {
      // `q` goes out only to a server that filters with it; otherwise the list is filtered here.
      const caps = q.q === undefined && q.limit === undefined && q.offset === undefined ? undefined : await fetchCapabilities(o);
      const serverFilters = caps !== undefined && E.isRight(caps) && caps.right.features.listBanksQuery;
      const query: Record<string, QueryValue> = serverFilters ? { q: q.q, limit: q.limit, offset: q.offset } : {};
      const result = await run({ method: 'GET', path: `${API}/banks`, query, codec: BankList, idempotent: true }, o);
      if (E.isLeft(result) || serverFilters) return E.map((list: BankListType) => list.banks)(result);
      const needle = q.q?.toLowerCase();
      const matching = result.right.banks.filter(
        (bank) => needle === undefined || bank.bank_id.toLowerCase().includes(needle) || (bank.name ?? '').toLowerCase().includes(needle),
      );
      const offset = q.offset ?? 0;
      return E.right(matching.slice(offset, q.limit === undefined ? undefined : offset + q.limit));
    };

  return {
    baseUrl,
    capabilities: (o) => () => fetchCapabilities(o),
    version: (o) => task<VersionInfoType>({ method: 'GET', path: '/version', codec: VersionInfo, idempotent: true }, o),

    listBanks: (q, o) => listBanks(q, o),
    bankExists: (bankId, o) => async () => {
      // The filter narrows the list on servers that honour it; the match is always exact.
      const banks = await listBanks({ q: bankId }, o)();
      return E.map((list: readonly { bank_id: string }[]) => list.some((bank) => bank.bank_id === bankId))(banks);
    },
    ensureBank: (bankId, body: BankUpdate, o) => ack({ method: 'PUT', bankId, path: bankPath(bankId), body, bodyCodec: BankUpdate, idempotent: true }, o),
    updateBank: (bankId, body, o) => task({ method: 'PATCH', bankId, path: bankPath(bankId), body, bodyCodec: BankUpdate, codec: BankProfile, idempotent: false }, o),
    getBankProfile: (bankId, o) => async () => {
      const result = await run({ method: 'GET', bankId, path: bankPath(bankId, '/profile'), codec: BankProfile, idempotent: true }, o);
      if (E.isRight(result)) return E.right({ _tag: 'present', value: result.right } as const);
      const failure = result.left;
      if (failure._tag === 'gone' || failure._tag === 'notFound') {
        return E.right({
          _tag: 'absent',
          reason: failure._tag,
          ...(failure.detail === undefined ? {} : { detail: failure.detail }),
        } as const);
      }
      return E.left(failure);
    },
    getBankConfig: (bankId, o) => presence({ method: 'GET', bankId, path: bankPath(bankId, '/config'), codec: BankConfig, idempotent: true }, 'bankConfig', o),
    updateBankConfig: (bankId, updates, o) =>
      gated(['bankConfig'], o, () => run({ method: 'PATCH', bankId, path: bankPath(bankId, '/config'), body: { updates }, codec: BankConfig, idempotent: false }, o)),
    getBankStats: (bankId, o) => presence({ method: 'GET', bankId, path: bankPath(bankId, '/stats'), codec: BankStats, idempotent: true }, 'bankStats', o),

    retain: (bankId, req, o) =>
      gated(retainNeeds(req), o, () =>
        // Resent only when the server deduplicates it: async retain with a client operation id.
        run({ method: 'POST', bankId, path: bankPath(bankId, '/memories'), body: req, bodyCodec: RetainRequest, codec: RetainResult, idempotent: req.operation_id !== undefined && req.async === true }, o),
      ),
    recall: (bankId, req, o) =>
      gated(recallNeeds(req), o, () => run({ method: 'POST', bankId, path: bankPath(bankId, '/memories/recall'), body: req, bodyCodec: RecallRequest, codec: RecallResult, idempotent: false }, o)),
    reflect: (bankId, req, o) =>
      gated(reflectNeeds(req), o, () => run({ method: 'POST', bankId, path: bankPath(bankId, '/reflect'), body: req, bodyCodec: ReflectRequest, codec: ReflectResult, idempotent: false }, o)),
    getOperation: (bankId, operationId, o) =>
      task({ method: 'GET', bankId, path: bankPath(bankId, `/operations/${encodeURIComponent(operationId)}`), codec: OperationStatus, idempotent: true }, o),

    listDocuments: (bankId, q, o) => task({ method: 'GET', bankId, path: bankPath(bankId, '/documents'), query: { ...q }, codec: DocumentList, idempotent: true }, o),
    getDocument: (bankId, documentId, o) => async () => {
      const result = await run({ method: 'GET', bankId, path: bankPath(bankId, `/documents/${encodeURIComponent(documentId)}`), codec: DocumentDetail, idempotent: true }, o);
      if (E.isRight(result)) return E.right({ _tag: 'present', value: result.right } as const);
      if (result.left._tag === 'notFound' && result.left.detail !== 'Not Found') return E.right({ _tag: 'absent', reason: 'notFound' } as const);
      return E.left(result.left);
    },
    listTags: (bankId, q, o) => task({ method: 'GET', bankId, path: bankPath(bankId, '/tags'), query: { ...q }, codec: TagList, idempotent: true }, o),

    listMentalModels: (bankId, q, o) =>
      gated(['mentalModels'], o, () => run({ method: 'GET', bankId, path: bankPath(bankId, '/mental-models'), query: { ...q }, codec: MentalModelList, idempotent: true }, o)),
    getMentalModel: (bankId, id, detail, o) =>
      gated(['mentalModels'], o, () =>
        run({ method: 'GET', bankId, path: bankPath(bankId, `/mental-models/${encodeURIComponent(id)}`), query: { detail }, codec: MentalModel, idempotent: true }, o),
      ),
    createMentalModel: (bankId, req, o) =>
      gated(['mentalModels', ...(req.trigger?.response_schema == null ? [] : (['responseSchema'] as const))], o, () =>
        run({ method: 'POST', bankId, path: bankPath(bankId, '/mental-models'), body: req, bodyCodec: CreateMentalModelRequest, codec: CreateMentalModelResult, idempotent: false }, o),
      ),
    updateMentalModel: (bankId, id, req, o) =>
      gated(['mentalModels'], o, () =>
        run({ method: 'PATCH', bankId, path: bankPath(bankId, `/mental-models/${encodeURIComponent(id)}`), body: req, bodyCodec: UpdateMentalModelRequest, codec: MentalModel, idempotent: false }, o),
      ),
    deleteMentalModel: (bankId, id, o) =>
      gated(['mentalModels'], o, ack({ method: 'DELETE', bankId, path: bankPath(bankId, `/mental-models/${encodeURIComponent(id)}`), idempotent: false }, o)),
    refreshMentalModel: (bankId, id, o) =>
      gated(['mentalModels'], o, () =>
        run({ method: 'POST', bankId, path: bankPath(bankId, `/mental-models/${encodeURIComponent(id)}/refresh`), codec: AsyncSubmission, idempotent: false }, o),
      ),
    mentalModelHistory: (bankId, id, o) =>
      gated(['mentalModels'], o, () =>
        run({ method: 'GET', bankId, path: bankPath(bankId, `/mental-models/${encodeURIComponent(id)}/history`), codec: MentalModelHistory, idempotent: true }, o),
      ),

    knowledgeTree: (bankId, o) =>
      gated(['knowledge'], o, () => run({ method: 'GET', bankId, path: bankPath(bankId, '/knowledge-base/tree'), codec: KnowledgeTree, idempotent: true }, o)),
    searchKnowledge: (bankId, q, o) =>
      gated(['knowledge'], o, () =>
        run({ method: 'GET', bankId, path: bankPath(bankId, '/knowledge-base/search'), query: { q: q.q, limit: q.limit }, codec: KnowledgeSearchResult, idempotent: true }, o),
      ),
    getKnowledgePage: (bankId, pageId, o) =>
      gated(['knowledge'], o, () =>
        run({ method: 'GET', bankId, path: bankPath(bankId, `/knowledge-base/pages/${encodeURIComponent(pageId)}`), codec: KnowledgePage, idempotent: true }, o),
      ),
    createKnowledgeFolder: (bankId, req, o) =>
      gated(['knowledge'], o, () => run({ method: 'POST', bankId, path: bankPath(bankId, '/knowledge-base/folders'), body: req, bodyCodec: CreateFolderRequest, codec: KnowledgeNode, idempotent: false }, o)),
    createKnowledgePage: (bankId, req, o) =>
      gated(['knowledge', ...(req.trigger?.response_schema == null ? [] : (['responseSchema'] as const))], o, () =>
        run({ method: 'POST', bankId, path: bankPath(bankId, '/knowledge-base/pages'), body: req, bodyCodec: CreatePageRequest, codec: CreatePageResult, idempotent: false }, o),
      ),
    updateKnowledgeNode: (bankId, nodeId, req, o) =>
      gated(['knowledge'], o, () =>
        run({ method: 'PATCH', bankId, path: bankPath(bankId, `/knowledge-base/nodes/${encodeURIComponent(nodeId)}`), body: req, bodyCodec: UpdateNodeRequest, codec: KnowledgeNode, idempotent: false }, o),
      ),
    deleteKnowledgeNode: (bankId, nodeId, o) =>
      gated(['knowledge'], o, ack({ method: 'DELETE', bankId, path: bankPath(bankId, `/knowledge-base/nodes/${encodeURIComponent(nodeId)}`), idempotent: false }, o)),
    exportKnowledge: (bankId, o) =>
      gated(['knowledge'], o, () =>
        run({ method: 'GET', bankId, path: bankPath(bankId, '/knowledge-base/export'), codec: KnowledgeExport, idempotent: true, maxResponseBytes: EXPORT_MAX_RESPONSE_BYTES }, o),
      ),

    breaker: () => breaker.state(),
    subscribeBreaker: (listener) => breaker.subscribe(listener),
  };
};
