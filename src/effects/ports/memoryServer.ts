/**
 * The memory-server port: everything the gates and tools ask of a Hindsight-compatible server.
 *
 * Requests and results are io-ts codecs of the wire format (snake_case, as Hindsight 0.9.1
 * sends it), so a body that arrives from the network, a journal line or a tool call is decoded
 * by the same codec. Result codecs accept `null` wherever the server may omit a field, since
 * the server drops nulls on most routes and keeps them on a few.
 *
 * Every call returns `TaskEither<ServerFailure, A>`: nothing throws, and no failure carries a
 * request header, an API key or a raw transport error.
 */
import * as t from 'io-ts';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { ClockPort } from './clock.js';
import type { AsyncSubmission, BankConfig, BankProfile, BankStats, BankSummary, BankUpdate, CreateFolderRequest, CreateMentalModelRequest, CreateMentalModelResult, CreatePageRequest, CreatePageResult, DocumentDetail, DocumentList, KnowledgeExport, KnowledgeNode, KnowledgePage, KnowledgeSearchResult, KnowledgeTree, ListBanksQuery, ListDocumentsQuery, ListMentalModelsQuery, MentalModel, MentalModelDetail, MentalModelHistory, MentalModelList, OperationStatus, RecallRequest, RecallResult, ReflectRequest, ReflectResult, RetainRequest, RetainResult, TagList, UpdateMentalModelRequest, UpdateNodeRequest, VersionInfo } from '../../wire/hindsight.js';
import { FeatureFlags } from '../../wire/hindsight.js';

// The port speaks the wire schema: code written against the port reads its types here.
export * from '../../wire/hindsight.js';

// Failures, their class and their text live beside the port (`serverFailure.ts`).
export * from './serverFailure.js';
import type { ServerFailure } from './serverFailure.js';

/** Options every call takes. The effective timeout is min(timeoutMs, deadline - now). */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Absolute epoch ms after which the call gives up with `timeout`. */
  readonly deadline?: number;
  /** How many times an idempotent request may be sent; 1 when the caller owns retries (the retain queue). */
  readonly attempts?: number;
  /**
   * Sent even while the breaker holds calls back, as its probe: someone asked for this now (a
   * flush), or the queue was just opened after a stopped process. The answer closes or re-opens
   * the breaker, so one look replaces waiting out a cool-down that another process started.
   */
  readonly probe?: boolean;
}

/** What this client may send to the connected server; derived from `/version` and probes. */
export const Capabilities = t.type({
  apiVersion: t.string,
  /** The local embedded server (`features.embedded` or the `X-Hindsight-Embedded` header). */
  embedded: t.boolean,
  features: t.type({
    /** `update_mode: "append"` on retain (0.5.0+); the floor for automatic retain. */
    append: t.boolean,
    /** `tags_match: "exact"` (0.8.2+). */
    exactTags: t.boolean,
    /** Idempotent async retain with a client `operation_id` (0.8.6+). */
    operationId: t.boolean,
    /** `tag_groups` on recall/reflect (0.4.18+). */
    tagGroups: t.boolean,
    /** `observation_scopes: "shared"` (0.8.3+). */
    sharedScope: t.boolean,
    /** `prefer_observations` and `min_scores` on recall (0.8.4+). */
    preferObservations: t.boolean,
    /** Recall `trace`. */
    trace: t.boolean,
    /** Recall `include.source_facts` (0.4.13+). */
    sourceFacts: t.boolean,
    /** Recall `include.chunks`. */
    chunks: t.boolean,
    /** Reflect `response_schema`. */
    responseSchema: t.boolean,
    /** Reflect `include.tool_calls`. */
    toolCalls: t.boolean,
    /** Reflect `include.facts`. */
    reflectFacts: t.boolean,
    mentalModels: t.boolean,
    /** Knowledge pages (0.9.0+). */
    knowledge: t.boolean,
    bankConfig: t.boolean,
    bankStats: t.boolean,
    /** `GET /banks?q=` filtering (0.10+); the client always matches the id exactly anyway. */
    listBanksQuery: t.boolean,
    /** `GET {b}/profile` still served (retired with 410 in 0.10). */
    profile: t.boolean,
  }),
  /** The raw `/version` flags, for diagnostics. */
  serverFlags: FeatureFlags,
});
export type Capabilities = t.TypeOf<typeof Capabilities>;
export type CapabilityName = keyof Capabilities['features'];

/** A lookup where "not there" is an answer, not a failure (404 missing, 410 retired). */
export type Presence<A> =
  | { readonly _tag: 'present'; readonly value: A }
  | { readonly _tag: 'absent'; readonly reason: 'notFound' | 'gone'; readonly detail?: string };

// ---------------------------------------------------------------------------------------------
// Breaker

export type BreakerStateName = 'closed' | 'open' | 'halfOpen';

export interface BreakerState {
  readonly state: BreakerStateName;
  /** Consecutive unreachable/timeout failures counted so far. */
  readonly failures: number;
  /** While open: epoch ms after which one half-open probe is let through. */
  readonly retryAt?: number;
}

// ---------------------------------------------------------------------------------------------
// The port

export interface MemoryServer {
  /** The server root, without trailing slash and without credentials. */
  readonly baseUrl: string;

  /** Features this client may use with the server; cached per base URL after the first call. */
  capabilities(o?: CallOptions): TaskEither<ServerFailure, Capabilities>;
  /** Raw `GET /version`. */
  version(o?: CallOptions): TaskEither<ServerFailure, VersionInfo>;

  /** `GET /v1/default/banks` (with `q` when the server filters; callers match ids exactly). */
  listBanks(q: ListBanksQuery, o?: CallOptions): TaskEither<ServerFailure, readonly BankSummary[]>;
  /** Exact id match in the bank list; never reads the profile or config. */
  bankExists(bankId: string, o?: CallOptions): TaskEither<ServerFailure, boolean>;
  /** `PUT {b}`: creates the bank if missing, sets the given name and missions. Idempotent. */
  ensureBank(bankId: string, body: BankUpdate, o?: CallOptions): TaskEither<ServerFailure, void>;
  /** `PATCH {b}`: updates an existing bank's missions; a missing bank is `notFound`. */
  updateBank(bankId: string, body: BankUpdate, o?: CallOptions): TaskEither<ServerFailure, BankProfile>;
  /** `GET {b}/profile`: absent on 404 (missing bank) or 410 (retired in 0.10). */
  getBankProfile(bankId: string, o?: CallOptions): TaskEither<ServerFailure, Presence<BankProfile>>;
  getBankConfig(bankId: string, o?: CallOptions): TaskEither<ServerFailure, Presence<BankConfig>>;
  updateBankConfig(bankId: string, updates: Record<string, unknown>, o?: CallOptions): TaskEither<ServerFailure, BankConfig>;
  getBankStats(bankId: string, o?: CallOptions): TaskEither<ServerFailure, Presence<BankStats>>;

  /** `POST {b}/memories`. Retried on transient failures only when `operation_id` is set. */
  retain(bankId: string, req: RetainRequest, o?: CallOptions): TaskEither<ServerFailure, RetainResult>;
  recall(bankId: string, req: RecallRequest, o?: CallOptions): TaskEither<ServerFailure, RecallResult>;
  reflect(bankId: string, req: ReflectRequest, o?: CallOptions): TaskEither<ServerFailure, ReflectResult>;
  getOperation(bankId: string, operationId: string, o?: CallOptions): TaskEither<ServerFailure, OperationStatus>;

  listDocuments(bankId: string, q: ListDocumentsQuery, o?: CallOptions): TaskEither<ServerFailure, DocumentList>;
  getDocument(bankId: string, documentId: string, o?: CallOptions): TaskEither<ServerFailure, Presence<DocumentDetail>>;
  listTags(bankId: string, q: { q?: string; limit?: number; offset?: number }, o?: CallOptions): TaskEither<ServerFailure, TagList>;

  listMentalModels(bankId: string, q: ListMentalModelsQuery, o?: CallOptions): TaskEither<ServerFailure, MentalModelList>;
  getMentalModel(bankId: string, id: string, detail?: MentalModelDetail, o?: CallOptions): TaskEither<ServerFailure, MentalModel>;
  createMentalModel(bankId: string, req: CreateMentalModelRequest, o?: CallOptions): TaskEither<ServerFailure, CreateMentalModelResult>;
  updateMentalModel(bankId: string, id: string, req: UpdateMentalModelRequest, o?: CallOptions): TaskEither<ServerFailure, MentalModel>;
  deleteMentalModel(bankId: string, id: string, o?: CallOptions): TaskEither<ServerFailure, void>;
  refreshMentalModel(bankId: string, id: string, o?: CallOptions): TaskEither<ServerFailure, AsyncSubmission>;
  mentalModelHistory(bankId: string, id: string, o?: CallOptions): TaskEither<ServerFailure, MentalModelHistory>;

  knowledgeTree(bankId: string, o?: CallOptions): TaskEither<ServerFailure, KnowledgeTree>;
  searchKnowledge(bankId: string, q: { q: string; limit?: number }, o?: CallOptions): TaskEither<ServerFailure, KnowledgeSearchResult>;
  getKnowledgePage(bankId: string, pageId: string, o?: CallOptions): TaskEither<ServerFailure, KnowledgePage>;
  createKnowledgeFolder(bankId: string, req: CreateFolderRequest, o?: CallOptions): TaskEither<ServerFailure, KnowledgeNode>;
  createKnowledgePage(bankId: string, req: CreatePageRequest, o?: CallOptions): TaskEither<ServerFailure, CreatePageResult>;
  updateKnowledgeNode(bankId: string, nodeId: string, req: UpdateNodeRequest, o?: CallOptions): TaskEither<ServerFailure, KnowledgeNode>;
  deleteKnowledgeNode(bankId: string, nodeId: string, o?: CallOptions): TaskEither<ServerFailure, void>;
  exportKnowledge(bankId: string, o?: CallOptions): TaskEither<ServerFailure, KnowledgeExport>;

  /** Circuit-breaker state for this base URL (shared by every client of the same URL). */
  breaker(): BreakerState;
  /** Calls `listener` on every breaker transition; returns an unsubscribe function. */
  subscribeBreaker(listener: (state: BreakerState) => void): () => void;
}

export interface MemoryServerOptions {
  readonly baseUrl: string;
  /** Already resolved (see `src/config/trust.ts`); sent as `Authorization: Bearer <key>`. */
  readonly apiKey?: string;
  /** Network timeout per attempt; a call's deadline may shorten it. */
  readonly timeoutMs: number;
  readonly userAgent?: string;
  readonly clock?: ClockPort;
}

export type CreateMemoryServer = (options: MemoryServerOptions) => MemoryServer;
