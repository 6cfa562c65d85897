/**
 * The memory-server port: everything the gates and tools ask of a Hindsight-compatible server.
 *
 * Requests and results are io-ts codecs of the wire format (snake_case, as Hindsight 0.9.1
 * sends it), so a body that arrives from the network, a journal line or a tool call is decoded
 * by the same codec. Result codecs accept `null` wherever the server may omit a field, since
 * the server drops nulls on most routes and keeps them on a few.
 *
 * Every call returns `TaskEither<ServerFailure, A>`: nothing throws, and no failure carries a
 * request header, an API key or a raw got error.
 */
import * as t from 'io-ts';
import { nullable } from '../../machines/shared/codecs.js';
import { TagGroup, TagsMatch } from '../../config/tagFilter.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { ClockPort } from './clock.js';

// ---------------------------------------------------------------------------------------------
// Failures

export type ServerFailure =
  | { readonly _tag: 'unreachable'; readonly message: string }
  | { readonly _tag: 'timeout'; readonly message: string }
  | { readonly _tag: 'aborted' }
  | { readonly _tag: 'rateLimited'; readonly retryAfterMs?: number }
  | { readonly _tag: 'serverError'; readonly status: number; readonly detail?: string }
  | { readonly _tag: 'unauthorized'; readonly detail?: string }
  | { readonly _tag: 'forbidden'; readonly detail?: string }
  | { readonly _tag: 'notFound'; readonly detail?: string }
  | { readonly _tag: 'gone'; readonly detail?: string }
  | { readonly _tag: 'invalidRequest'; readonly status: number; readonly detail: string }
  | { readonly _tag: 'badResponse'; readonly detail: string }
  | {
      readonly _tag: 'unsupportedCapability';
      readonly feature: string;
      readonly serverVersion?: string;
      readonly remediation: string;
    }
  | { readonly _tag: 'circuitOpen'; readonly retryAt: number };

export type ServerFailureTag = ServerFailure['_tag'];

/** What a caller does with a failure: retry later, pause the queue, dead-letter the job, or report it. */
export type FailureClass = 'retry' | 'pause' | 'deadLetter' | 'report';

export const failureClass = (f: ServerFailure): FailureClass => {
  switch (f._tag) {
    case 'unreachable':
    case 'timeout':
    case 'rateLimited':
    case 'serverError':
    case 'circuitOpen':
      return 'retry';
    case 'unauthorized':
    case 'forbidden':
    case 'notFound':
    case 'gone':
      return 'pause';
    case 'invalidRequest':
      return 'deadLetter';
    case 'aborted':
    case 'badResponse':
    case 'unsupportedCapability':
      return 'report';
  }
};

/**
 * One line a user can act on: what happened and what to do next. Contains no secret, since
 * failures are built from status, code and redacted detail only.
 */
export const describeFailure = (f: ServerFailure): string => {
  switch (f._tag) {
    case 'unreachable':
      return `memory server unreachable (${f.message}); check that it is running and that baseUrl is right`;
    case 'timeout':
      return `memory server did not answer in time (${f.message}); it may be overloaded, try again or raise timeoutMs`;
    case 'aborted':
      return 'request cancelled before the memory server answered';
    case 'rateLimited':
      return f.retryAfterMs === undefined
        ? 'memory server is rate limiting requests; try again shortly'
        : `memory server is rate limiting requests; retry in ${Math.ceil(f.retryAfterMs / 1000)} s`;
    case 'serverError':
      return `memory server failed with HTTP ${f.status}${f.detail === undefined ? '' : `: ${f.detail}`}; it will be retried`;
    case 'unauthorized':
      return `memory server rejected the API key (HTTP 401${f.detail === undefined ? '' : `: ${f.detail}`}); set a valid key in the variable named by apiKeyEnv`;
    case 'forbidden':
      return `memory server refused the request (HTTP 403${f.detail === undefined ? '' : `: ${f.detail}`}); check the key's permissions`;
    case 'notFound':
      return `memory server has no such resource (HTTP 404${f.detail === undefined ? '' : `: ${f.detail}`}); check baseUrl and the bank id`;
    case 'gone':
      return `memory server retired this endpoint (HTTP 410${f.detail === undefined ? '' : `: ${f.detail}`})`;
    case 'invalidRequest':
      return `memory server rejected the request (HTTP ${f.status}): ${f.detail}`;
    case 'badResponse':
      return `memory server sent a response this client cannot read (${f.detail}); check that baseUrl points at a Hindsight-compatible server`;
    case 'unsupportedCapability':
      return `${f.feature} is not supported by the memory server${f.serverVersion === undefined ? '' : ` (version ${f.serverVersion})`}; ${f.remediation}`;
    case 'circuitOpen':
      return 'memory server marked offline after repeated failures; calls resume after a short cool-down';
  }
};

/** Options every call takes. The effective timeout is min(timeoutMs, deadline - now). */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Absolute epoch ms after which the call gives up with `timeout`. */
  readonly deadline?: number;
}

// ---------------------------------------------------------------------------------------------
// Small wire helpers

/** An optional field the server may omit or send as null; absent and null mean the same. */

export const FactType = t.keyof({ world: null, experience: null, observation: null });
export type FactType = t.TypeOf<typeof FactType>;

export const Budget = t.keyof({ low: null, mid: null, high: null });
export type Budget = t.TypeOf<typeof Budget>;

// One definition of the tag-filter wire shapes, shared with config and the embedded server.
export { TagGroup, TagsMatch } from '../../config/tagFilter.js';

// The item the queue journals and the client sends: one codec, in the shared machine codecs.
export { Entity, ObservationScopes, RetainItem, UpdateMode } from '../../machines/shared/retainItem.js';
import { RetainItem } from '../../machines/shared/retainItem.js';

const StringMap = t.record(t.string, t.string);
/** A free-form JSON object (trace dumps, config maps, response schemas). */
const JsonObject = t.UnknownRecord;

// ---------------------------------------------------------------------------------------------
// Requests


export const RetainRequest = t.intersection([
  t.type({ items: t.array(RetainItem) }),
  t.partial({
    async: t.boolean,
    document_tags: t.array(t.string),
    /** Idempotency key (a UUID), saved by the caller before the first send. */
    operation_id: t.string,
  }),
]);
export type RetainRequest = t.TypeOf<typeof RetainRequest>;

export const RecallInclude = t.partial({
  entities: nullable(t.partial({ max_tokens: t.number })),
  chunks: nullable(t.partial({ max_tokens: t.number })),
  source_facts: nullable(t.partial({ max_tokens: t.number, max_tokens_per_observation: t.number })),
});
export type RecallInclude = t.TypeOf<typeof RecallInclude>;

export const MinScores = t.partial({ semantic: t.number, keyword: t.number, reranker: t.number, final: t.number });
export type MinScores = t.TypeOf<typeof MinScores>;

export const RecallRequest = t.intersection([
  t.type({ query: t.string }),
  t.partial({
    types: t.array(FactType),
    budget: Budget,
    max_tokens: t.number,
    tags: t.array(t.string),
    tags_match: TagsMatch,
    tag_groups: t.array(TagGroup),
    trace: t.boolean,
    include: RecallInclude,
    query_timestamp: t.string,
    prefer_observations: t.boolean,
    min_scores: MinScores,
  }),
]);
export type RecallRequest = t.TypeOf<typeof RecallRequest>;

export const ReflectInclude = t.partial({
  facts: nullable(t.type({})),
  tool_calls: nullable(t.partial({ output: t.boolean })),
});
export type ReflectInclude = t.TypeOf<typeof ReflectInclude>;

export const ReflectRequest = t.intersection([
  t.type({ query: t.string }),
  t.partial({
    budget: Budget,
    context: t.string,
    max_tokens: t.number,
    include: ReflectInclude,
    response_schema: JsonObject,
    tags: t.array(t.string),
    tags_match: TagsMatch,
    tag_groups: t.array(TagGroup),
    fact_types: t.array(FactType),
    exclude_mental_models: t.boolean,
    exclude_mental_model_ids: t.array(t.string),
  }),
]);
export type ReflectRequest = t.TypeOf<typeof ReflectRequest>;

/** PUT/PATCH bank body: display name and missions. */
export const BankUpdate = t.partial({
  name: t.string,
  mission: t.string,
  reflect_mission: t.string,
  retain_mission: t.string,
  observations_mission: t.string,
});
export type BankUpdate = t.TypeOf<typeof BankUpdate>;

export const ListBanksQuery = t.partial({ q: t.string, limit: t.number, offset: t.number });
export type ListBanksQuery = t.TypeOf<typeof ListBanksQuery>;

export const MentalModelTrigger = t.partial({
  mode: t.keyof({ full: null, delta: null }),
  refresh_after_consolidation: t.boolean,
  refresh_cron: nullable(t.string),
  fact_types: nullable(t.array(FactType)),
  exclude_mental_models: t.boolean,
  exclude_mental_model_ids: nullable(t.array(t.string)),
  tags_match: nullable(TagsMatch),
  tag_groups: nullable(t.array(TagGroup)),
  include_chunks: nullable(t.boolean),
  recall_max_tokens: nullable(t.number),
  recall_chunks_max_tokens: nullable(t.number),
  response_schema: nullable(JsonObject),
  keep_trace: t.boolean,
});
export type MentalModelTrigger = t.TypeOf<typeof MentalModelTrigger>;

export const CreateMentalModelRequest = t.intersection([
  t.type({ name: t.string, source_query: t.string }),
  t.partial({ id: t.string, tags: t.array(t.string), max_tokens: t.number, trigger: MentalModelTrigger }),
]);
export type CreateMentalModelRequest = t.TypeOf<typeof CreateMentalModelRequest>;

export const UpdateMentalModelRequest = t.partial({
  name: t.string,
  source_query: t.string,
  max_tokens: t.number,
  tags: t.array(t.string),
  trigger: MentalModelTrigger,
});
export type UpdateMentalModelRequest = t.TypeOf<typeof UpdateMentalModelRequest>;

export const MentalModelDetail = t.keyof({ metadata: null, content: null, full: null });
export type MentalModelDetail = t.TypeOf<typeof MentalModelDetail>;

export const ListMentalModelsQuery = t.partial({
  tags: t.array(t.string),
  tags_match: t.keyof({ any: null, all: null, exact: null }),
  detail: MentalModelDetail,
  limit: t.number,
  offset: t.number,
});
export type ListMentalModelsQuery = t.TypeOf<typeof ListMentalModelsQuery>;

export const CreateFolderRequest = t.intersection([t.type({ name: t.string }), t.partial({ parent_id: t.string })]);
export type CreateFolderRequest = t.TypeOf<typeof CreateFolderRequest>;

export const CreatePageRequest = t.intersection([
  t.type({ name: t.string, source_query: t.string }),
  t.partial({ parent_id: t.string, tags: t.array(t.string), max_tokens: t.number, trigger: MentalModelTrigger }),
]);
export type CreatePageRequest = t.TypeOf<typeof CreatePageRequest>;

/** PATCH node: only present fields apply; `parent_id: null` moves the node to the root. */
export const UpdateNodeRequest = t.partial({
  name: t.string,
  parent_id: nullable(t.string),
  source_query: t.string,
  tags: t.array(t.string),
  max_tokens: t.number,
});
export type UpdateNodeRequest = t.TypeOf<typeof UpdateNodeRequest>;

export const ListDocumentsQuery = t.partial({
  q: t.string,
  tags: t.array(t.string),
  tags_match: TagsMatch,
  limit: t.number,
  offset: t.number,
});
export type ListDocumentsQuery = t.TypeOf<typeof ListDocumentsQuery>;

// ---------------------------------------------------------------------------------------------
// Results (wire format)

export const FeatureFlags = t.partial({
  observations: t.boolean,
  mcp: t.boolean,
  worker: t.boolean,
  bank_config_api: t.boolean,
  bank_llm_health: t.boolean,
  file_upload_api: t.boolean,
  document_export_api: t.boolean,
  document_import_api: t.boolean,
  audit_log: t.boolean,
  llm_trace: t.boolean,
  store_document_text: t.boolean,
  embedded: t.boolean,
});
export type FeatureFlags = t.TypeOf<typeof FeatureFlags>;

export const VersionInfo = t.intersection([
  t.type({ api_version: t.string }),
  t.partial({ features: FeatureFlags }),
]);
export type VersionInfo = t.TypeOf<typeof VersionInfo>;

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

export const Disposition = t.partial({ skepticism: t.number, literalism: t.number, empathy: t.number });

export const BankSummary = t.intersection([
  t.type({ bank_id: t.string }),
  t.partial({
    name: nullable(t.string),
    disposition: nullable(Disposition),
    mission: nullable(t.string),
    created_at: nullable(t.string),
    updated_at: nullable(t.string),
    fact_count: nullable(t.number),
    last_document_at: nullable(t.string),
    last_write_at: nullable(t.string),
  }),
]);
export type BankSummary = t.TypeOf<typeof BankSummary>;

export const BankList = t.intersection([
  t.type({ banks: t.array(BankSummary) }),
  t.partial({ total: t.number, limit: t.number, offset: t.number }),
]);
export type BankList = t.TypeOf<typeof BankList>;

export const BankProfile = t.intersection([
  t.type({ bank_id: t.string }),
  t.partial({
    name: nullable(t.string),
    disposition: nullable(Disposition),
    mission: nullable(t.string),
    background: nullable(t.string),
  }),
]);
export type BankProfile = t.TypeOf<typeof BankProfile>;

export const BankConfig = t.intersection([
  t.type({ bank_id: t.string, config: JsonObject }),
  t.partial({ overrides: nullable(JsonObject) }),
]);
export type BankConfig = t.TypeOf<typeof BankConfig>;

export const BankStats = t.intersection([
  t.type({ bank_id: t.string }),
  t.partial({
    total_nodes: t.number,
    total_links: t.number,
    total_documents: t.number,
    nodes_by_fact_type: nullable(t.record(t.string, t.number)),
    pending_operations: t.number,
    failed_operations: t.number,
    last_consolidated_at: nullable(t.string),
    last_memory_write_at: nullable(t.string),
    total_observations: nullable(t.number),
  }),
]);
export type BankStats = t.TypeOf<typeof BankStats>;

/** A lookup where "not there" is an answer, not a failure (404 missing, 410 retired). */
export type Presence<A> =
  | { readonly _tag: 'present'; readonly value: A }
  | { readonly _tag: 'absent'; readonly reason: 'notFound' | 'gone'; readonly detail?: string };

export const RetainResult = t.intersection([
  t.type({ success: t.boolean, items_count: t.number }),
  t.partial({
    bank_id: t.string,
    async: t.boolean,
    operation_id: nullable(t.string),
    operation_ids: nullable(t.array(t.string)),
  }),
]);
export type RetainResult = t.TypeOf<typeof RetainResult>;

export const RecallScores = t.intersection([
  t.type({ final: t.number }),
  t.partial({ semantic: nullable(t.number), keyword: nullable(t.number), reranker: nullable(t.number) }),
]);

export const RecallHit = t.intersection([
  t.type({ id: t.string, text: t.string }),
  t.partial({
    type: nullable(t.string),
    entities: nullable(t.array(t.string)),
    context: nullable(t.string),
    occurred_start: nullable(t.string),
    occurred_end: nullable(t.string),
    mentioned_at: nullable(t.string),
    document_id: nullable(t.string),
    metadata: nullable(StringMap),
    chunk_id: nullable(t.string),
    tags: nullable(t.array(t.string)),
    source_fact_ids: nullable(t.array(t.string)),
    scores: nullable(RecallScores),
  }),
]);
export type RecallHit = t.TypeOf<typeof RecallHit>;

export const ChunkData = t.intersection([
  t.type({ id: t.string, text: t.string }),
  t.partial({ chunk_index: t.number, truncated: t.boolean }),
]);
export type ChunkData = t.TypeOf<typeof ChunkData>;

export const RecallResult = t.intersection([
  t.type({ results: t.array(RecallHit) }),
  t.partial({
    trace: nullable(JsonObject),
    entities: nullable(t.record(t.string, JsonObject)),
    chunks: nullable(t.record(t.string, ChunkData)),
    source_facts: nullable(t.record(t.string, RecallHit)),
    source_facts_truncated: nullable(t.boolean),
  }),
]);
export type RecallResult = t.TypeOf<typeof RecallResult>;

export const ReflectFact = t.intersection([
  t.type({ text: t.string }),
  t.partial({
    id: nullable(t.string),
    type: nullable(t.string),
    context: nullable(t.string),
    occurred_start: nullable(t.string),
    occurred_end: nullable(t.string),
  }),
]);

export const ReflectBasedOn = t.partial({
  memories: t.array(ReflectFact),
  mental_models: t.array(t.intersection([t.type({ id: t.string, text: t.string }), t.partial({ context: nullable(t.string) })])),
  directives: t.array(t.type({ id: t.string, name: t.string, content: t.string })),
});

export const ReflectResult = t.intersection([
  t.type({ text: t.string }),
  t.partial({
    based_on: nullable(ReflectBasedOn),
    structured_output: nullable(JsonObject),
    usage: nullable(JsonObject),
    trace: nullable(JsonObject),
  }),
]);
export type ReflectResult = t.TypeOf<typeof ReflectResult>;

export const OperationState = t.keyof({
  pending: null,
  processing: null,
  completed: null,
  failed: null,
  cancelled: null,
  not_found: null,
});
export type OperationState = t.TypeOf<typeof OperationState>;

export const OperationStatus = t.intersection([
  t.type({ operation_id: t.string, status: OperationState }),
  t.partial({
    operation_type: nullable(t.string),
    created_at: nullable(t.string),
    updated_at: nullable(t.string),
    completed_at: nullable(t.string),
    error_message: nullable(t.string),
    retry_count: nullable(t.number),
    next_retry_at: nullable(t.string),
    progress: nullable(JsonObject),
    result_metadata: nullable(JsonObject),
    child_operations: nullable(t.array(JsonObject)),
  }),
]);
export type OperationStatus = t.TypeOf<typeof OperationStatus>;

export const MentalModel = t.intersection([
  t.type({ id: t.string, name: t.string }),
  t.partial({
    bank_id: t.string,
    tags: nullable(t.array(t.string)),
    last_refreshed_at: nullable(t.string),
    created_at: nullable(t.string),
    source_query: nullable(t.string),
    content: nullable(t.string),
    max_tokens: nullable(t.number),
    trigger: nullable(JsonObject),
    reflect_response: nullable(JsonObject),
    structured_content: nullable(JsonObject),
    is_stale: nullable(t.boolean),
  }),
]);
export type MentalModel = t.TypeOf<typeof MentalModel>;

export const MentalModelList = t.intersection([
  t.type({ items: t.array(MentalModel) }),
  t.partial({ total: t.number, limit: t.number, offset: t.number }),
]);
export type MentalModelList = t.TypeOf<typeof MentalModelList>;

// The 0.9.1 schema requires only `operation_id`; `mental_model_id` is nullable there.
export const CreateMentalModelResult = t.intersection([
  t.type({ operation_id: t.string }),
  t.partial({ mental_model_id: nullable(t.string) }),
]);
export type CreateMentalModelResult = t.TypeOf<typeof CreateMentalModelResult>;

export const MentalModelHistoryEntry = t.partial({
  previous_content: nullable(t.string),
  previous_reflect_response: nullable(JsonObject),
  changed_at: nullable(t.string),
});
export const MentalModelHistory = t.array(MentalModelHistoryEntry);
export type MentalModelHistory = t.TypeOf<typeof MentalModelHistory>;

/** Refresh and other async submissions: `{operation_id, status: "queued"}`. */
export const AsyncSubmission = t.intersection([t.type({ operation_id: t.string }), t.partial({ status: t.string })]);
export type AsyncSubmission = t.TypeOf<typeof AsyncSubmission>;

export interface KnowledgeNode {
  id: string;
  kind: 'folder' | 'page';
  name: string;
  parent_id?: string | null;
  mental_model_id?: string | null;
  managed?: boolean | null;
  description?: string | null;
  tags?: string[] | null;
  timestamp?: string | null;
  is_stale?: boolean | null;
  children?: KnowledgeNode[] | null;
}
export const KnowledgeNode: t.Type<KnowledgeNode> = t.recursion('KnowledgeNode', () =>
  t.intersection([
    t.type({ id: t.string, kind: t.keyof({ folder: null, page: null }), name: t.string }),
    t.partial({
      parent_id: nullable(t.string),
      mental_model_id: nullable(t.string),
      managed: nullable(t.boolean),
      description: nullable(t.string),
      tags: nullable(t.array(t.string)),
      timestamp: nullable(t.string),
      is_stale: nullable(t.boolean),
      children: nullable(t.array(KnowledgeNode)),
    }),
  ]),
);

export const KnowledgeTree = t.type({ roots: t.array(KnowledgeNode) });
export type KnowledgeTree = t.TypeOf<typeof KnowledgeTree>;

export const KnowledgePage = t.intersection([
  t.type({ id: t.string, name: t.string }),
  t.partial({
    type: nullable(t.string),
    description: nullable(t.string),
    tags: nullable(t.array(t.string)),
    timestamp: nullable(t.string),
    body: nullable(t.string),
    markdown: nullable(t.string),
  }),
]);
export type KnowledgePage = t.TypeOf<typeof KnowledgePage>;

export const KnowledgeSearchResult = t.intersection([
  t.type({
    results: t.array(
      t.intersection([
        t.type({ id: t.string, name: t.string }),
        t.partial({
          mental_model_id: nullable(t.string),
          snippet: nullable(t.string),
          score: nullable(t.number),
          updated_at: nullable(t.string),
        }),
      ]),
    ),
  }),
  t.partial({ total: t.number }),
]);
export type KnowledgeSearchResult = t.TypeOf<typeof KnowledgeSearchResult>;

export const CreatePageResult = t.intersection([
  t.type({ page_id: t.string }),
  t.partial({ mental_model_id: nullable(t.string), operation_id: nullable(t.string) }),
]);
export type CreatePageResult = t.TypeOf<typeof CreatePageResult>;

export const KnowledgeExport = t.type({ files: t.array(t.type({ path: t.string, content: t.string })) });
export type KnowledgeExport = t.TypeOf<typeof KnowledgeExport>;

export const DocumentSummary = t.intersection([
  t.type({ id: t.string }),
  t.partial({
    bank_id: t.string,
    content_hash: nullable(t.string),
    created_at: nullable(t.string),
    updated_at: nullable(t.string),
    text_length: nullable(t.number),
    memory_unit_count: nullable(t.number),
    tags: nullable(t.array(t.string)),
    document_metadata: nullable(JsonObject),
  }),
]);
export type DocumentSummary = t.TypeOf<typeof DocumentSummary>;

export const DocumentList = t.intersection([
  t.type({ items: t.array(DocumentSummary) }),
  t.partial({ total: t.number, limit: t.number, offset: t.number }),
]);
export type DocumentList = t.TypeOf<typeof DocumentList>;

export const DocumentDetail = t.intersection([
  DocumentSummary,
  t.partial({
    original_text: nullable(t.string),
    retain_params: nullable(JsonObject),
    observation_scopes: t.unknown,
  }),
]);
export type DocumentDetail = t.TypeOf<typeof DocumentDetail>;

export const TagList = t.intersection([
  t.type({ items: t.array(t.type({ tag: t.string, count: t.number })) }),
  t.partial({ total: t.number }),
]);
export type TagList = t.TypeOf<typeof TagList>;

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
