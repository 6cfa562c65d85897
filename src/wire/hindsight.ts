/**
 * The Hindsight wire schema: one io-ts codec per request and response body of the HTTP API
 * (Hindsight 0.9.1, read leniently where 0.10 adds fields). The client adapter decodes server
 * answers and encodes requests with these; the memory-server port types its interface with
 * them; the embedded server imports them instead of declaring its own copies.
 */
import * as t from 'io-ts';
import { nullable } from '../codecs/codecs.js';
import { TagGroup, TagsMatch } from '../config/tagFilter.js';
import { RetainItem } from '../codecs/retainItem.js';

// ---------------------------------------------------------------------------------------------
// Small wire helpers

// `nullable`: an optional field the server may omit or send as null; absent and null mean the same.

export const FactType = t.keyof({ world: null, experience: null, observation: null });
export type FactType = t.TypeOf<typeof FactType>;

export const Budget = t.keyof({ low: null, mid: null, high: null });
export type Budget = t.TypeOf<typeof Budget>;

// One definition of the tag-filter wire shapes, shared with config and the embedded server.
export { TagGroup, TagsMatch } from '../config/tagFilter.js';

// The item the queue journals and the client sends: one codec, in the shared machine codecs.
export { Entity, ObservationScopes, RetainItem, UpdateMode } from '../codecs/retainItem.js';

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

const MaxTokens = t.partial({ max_tokens: t.Int });

const RecallInclude = t.partial({
  entities: nullable(MaxTokens),
  chunks: nullable(MaxTokens),
  source_facts: nullable(t.partial({ max_tokens: t.Int, max_tokens_per_observation: t.Int })),
});
type RecallInclude = t.OutputOf<typeof RecallInclude>;

export const MinScores = t.partial({ semantic: nullable(t.number), keyword: nullable(t.number), reranker: nullable(t.number), final: nullable(t.number) });
export type MinScores = t.OutputOf<typeof MinScores>;

/**
 * `POST {b}/memories/recall` (reference 1.6) as the server accepts it: null means unset, token
 * counts are integers, and `types` are strings, because the server drops `opinion` and answers
 * any other unknown kind with its own 422. The embedded server decodes with this codec; the
 * client checks what it sends against it (a subset: it never sends null).
 */
export const RecallRequest = t.intersection([
  t.type({ query: t.string }),
  t.partial({
    types: nullable(t.array(t.string)),
    budget: Budget,
    max_tokens: t.Int,
    tags: nullable(t.array(t.string)),
    tags_match: TagsMatch,
    tag_groups: nullable(t.array(TagGroup)),
    trace: t.boolean,
    include: RecallInclude,
    query_timestamp: nullable(t.string),
    prefer_observations: t.boolean,
    min_scores: nullable(MinScores),
  }),
]);
/** The body as it travels (integers unbranded): what a client builds and the server reads. */
export type RecallRequest = t.OutputOf<typeof RecallRequest>;

const ReflectInclude = t.partial({
  facts: nullable(JsonObject),
  tool_calls: nullable(t.partial({ output: t.boolean })),
});
type ReflectInclude = t.OutputOf<typeof ReflectInclude>;

/** `POST {b}/reflect` as the server accepts it (null means unset); the client sends a subset. */
export const ReflectRequest = t.intersection([
  t.type({ query: t.string }),
  t.partial({
    budget: Budget,
    context: nullable(t.string),
    max_tokens: t.Int,
    include: ReflectInclude,
    response_schema: nullable(JsonObject),
    tags: nullable(t.array(t.string)),
    tags_match: TagsMatch,
    tag_groups: nullable(t.array(TagGroup)),
    apply_all_directives: t.boolean,
    fact_types: nullable(t.array(FactType)),
    exclude_mental_models: t.boolean,
    exclude_mental_model_ids: nullable(t.array(t.string)),
  }),
]);
/** The body as it travels (integers unbranded): what a client builds and the server reads. */
export type ReflectRequest = t.OutputOf<typeof ReflectRequest>;

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

// Nullable where the OpenAPI allows null: the embedded server decodes requests with these too.
export const CreateMentalModelRequest = t.intersection([
  t.type({ name: t.string, source_query: t.string }),
  t.partial({ id: nullable(t.string), tags: t.array(t.string), max_tokens: t.number, trigger: MentalModelTrigger }),
]);
export type CreateMentalModelRequest = t.TypeOf<typeof CreateMentalModelRequest>;

export const UpdateMentalModelRequest = t.partial({
  name: nullable(t.string),
  source_query: nullable(t.string),
  max_tokens: nullable(t.number),
  tags: nullable(t.array(t.string)),
  trigger: nullable(MentalModelTrigger),
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

const ReflectBasedOn = t.partial({
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

const OperationState = t.keyof({
  pending: null,
  processing: null,
  completed: null,
  failed: null,
  cancelled: null,
  not_found: null,
});
type OperationState = t.TypeOf<typeof OperationState>;

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

const MentalModelHistoryEntry = t.partial({
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

const DocumentSummary = t.intersection([
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
type DocumentSummary = t.TypeOf<typeof DocumentSummary>;

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
