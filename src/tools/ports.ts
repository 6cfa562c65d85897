/**
 * The slices of the memory-server port and the retain queue the tools call. Declared here
 * (as structural subsets) so the tools depend only on what they use; the real
 * `MemoryServer` (src/effects/ports/memoryServer.ts) and `RetainQueue`
 * (src/effects/retainDelivery.ts) satisfy them.
 */
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';

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
  | { readonly _tag: 'unsupportedCapability'; readonly feature: string; readonly serverVersion?: string; readonly remediation: string }
  | { readonly _tag: 'circuitOpen'; readonly retryAt: number };

export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly deadline?: number;
}

export type FactType = 'world' | 'experience' | 'observation';
export type Budget = 'low' | 'mid' | 'high';
export type TagsMatchMode = 'any' | 'all' | 'any_strict' | 'all_strict' | 'exact';

export interface Capabilities {
  readonly apiVersion: string;
  readonly embedded: boolean;
  /** Feature flags such as append, exactTags, knowledge, mentalModels, bankStats, trace, sourceFacts. */
  readonly features: Readonly<Record<string, boolean | undefined>>;
}

export interface BankSummary {
  readonly bank_id: string;
  readonly name?: string | null;
  readonly mission?: string | null;
  readonly fact_count?: number;
}

export interface RetainItem {
  content: string;
  timestamp?: string;
  context?: string;
  metadata?: Record<string, string>;
  document_id?: string;
  entities?: { text: string; type?: string }[];
  tags?: string[];
  update_mode?: 'replace' | 'append';
  observation_scopes?: 'per_tag' | 'combined' | 'all_combinations' | 'shared' | string[][];
  strategy?: string;
}

export interface RecallRequest {
  query: string;
  types?: FactType[];
  prefer_observations?: boolean;
  budget?: Budget;
  max_tokens?: number;
  trace?: boolean;
  query_timestamp?: string;
  include?: {
    entities?: { max_tokens?: number } | null;
    chunks?: { max_tokens?: number } | null;
    source_facts?: { max_tokens?: number } | null;
  };
  tags?: string[];
  tags_match?: TagsMatchMode;
  tag_groups?: unknown[];
  min_scores?: { semantic?: number; keyword?: number; reranker?: number; final?: number };
}

export interface RecallResultItem {
  readonly id: string;
  readonly text: string;
  readonly type?: string | null;
  readonly tags?: readonly string[] | null;
  readonly document_id?: string | null;
  readonly occurred_start?: string | null;
  readonly mentioned_at?: string | null;
  readonly metadata?: Readonly<Record<string, string>> | null;
  readonly source_fact_ids?: readonly string[] | null;
}

export interface RecallResult {
  readonly results: readonly RecallResultItem[];
  readonly entities?: unknown;
  readonly chunks?: unknown;
  readonly source_facts?: unknown;
  readonly trace?: unknown;
}

export interface ReflectRequest {
  query: string;
  budget?: Budget;
  context?: string;
  max_tokens?: number;
  include?: { facts?: Record<string, never> | null; tool_calls?: { output: boolean } | null };
  response_schema?: Record<string, unknown>;
  tags?: string[];
  tags_match?: TagsMatchMode;
  tag_groups?: unknown[];
  fact_types?: FactType[];
  exclude_mental_models?: boolean;
  exclude_mental_model_ids?: string[];
}

export interface ReflectResult {
  readonly text: string;
  readonly based_on?: unknown;
  readonly structured_output?: unknown;
  readonly usage?: unknown;
  readonly trace?: unknown;
}

/** A JSON object as the server sent it (decoded by the adapter). */
export type ServerRecord = Readonly<Record<string, unknown>>;

export interface MentalModelBody {
  name?: string;
  source_query?: string;
  tags?: string[];
  max_tokens?: number;
  trigger?: Record<string, unknown>;
}

export interface KnowledgePageBody {
  name: string;
  source_query: string;
  parent_id?: string | null;
  tags?: string[];
  max_tokens?: number;
  trigger?: Record<string, unknown>;
}

export interface KnowledgeNodeUpdate {
  name?: string;
  parent_id?: string | null;
  source_query?: string;
  tags?: string[];
  max_tokens?: number;
}

type Call<A> = TaskEither<ServerFailure, A>;

/** What the tools call on the memory server. */
export interface ToolServer {
  readonly baseUrl: string;
  capabilities(o?: CallOptions): Call<Capabilities>;
  listBanks(q: { q?: string; limit?: number; offset?: number }, o?: CallOptions): Call<readonly BankSummary[]>;
  recall(bankId: string, req: RecallRequest, o?: CallOptions): Call<RecallResult>;
  reflect(bankId: string, req: ReflectRequest, o?: CallOptions): Call<ReflectResult>;
  getBankConfig(bankId: string, o?: CallOptions): Call<ServerRecord>;
  updateBankConfig(bankId: string, updates: Record<string, string>, o?: CallOptions): Call<ServerRecord>;
  getBankStats(bankId: string, o?: CallOptions): Call<ServerRecord>;
  /** Retired upstream (410 in 0.10): `gone` is an answer, not a hard failure. */
  getBankProfile(bankId: string, o?: CallOptions): Call<ServerRecord>;
  listMentalModels(bankId: string, q: { detail?: 'metadata' | 'content' | 'full'; limit?: number }, o?: CallOptions): Call<readonly ServerRecord[]>;
  getMentalModel(bankId: string, id: string, o?: CallOptions): Call<ServerRecord>;
  createMentalModel(bankId: string, body: MentalModelBody & { name: string; source_query: string }, o?: CallOptions): Call<ServerRecord>;
  updateMentalModel(bankId: string, id: string, body: MentalModelBody, o?: CallOptions): Call<ServerRecord>;
  refreshMentalModel(bankId: string, id: string, o?: CallOptions): Call<ServerRecord>;
  deleteMentalModel(bankId: string, id: string, o?: CallOptions): Call<ServerRecord>;
  knowledgeTree(bankId: string, o?: CallOptions): Call<ServerRecord>;
  searchKnowledge(bankId: string, q: { q: string; limit?: number }, o?: CallOptions): Call<ServerRecord>;
  getKnowledgePage(bankId: string, id: string, o?: CallOptions): Call<ServerRecord>;
  exportKnowledge(bankId: string, o?: CallOptions): Call<ServerRecord>;
  createKnowledgePage(bankId: string, body: KnowledgePageBody, o?: CallOptions): Call<ServerRecord>;
  createKnowledgeFolder(bankId: string, body: { name: string; parent_id?: string | null }, o?: CallOptions): Call<ServerRecord>;
  updateKnowledgeNode(bankId: string, id: string, body: KnowledgeNodeUpdate, o?: CallOptions): Call<ServerRecord>;
  deleteKnowledgeNode(bankId: string, id: string, o?: CallOptions): Call<ServerRecord>;
  breaker(): { readonly state: 'closed' | 'open' | 'halfOpen'; readonly failures: number; readonly retryAt?: number };
}

export interface RetainJobInput {
  readonly bankId: string;
  readonly documentId: string;
  readonly updateMode: 'append' | 'replace';
  readonly item: RetainItem;
}

export interface QueuedJob {
  readonly jobId: string;
  readonly documentId: string;
}

export interface FlushReport {
  readonly delivered: number;
  readonly remaining: number;
  readonly deadLettered: number;
  readonly operationIds?: readonly string[];
  /** Redacted reason the flush stopped early, if it did. */
  readonly error?: string;
}

export interface QueueStatus {
  readonly depth: number;
  readonly deadLetters: number;
  readonly state: string;
  readonly pausedReason?: string;
  readonly lastError?: string;
  readonly nextAttemptAt?: number;
}

/** What the tools call on the durable retain queue. */
export interface ToolRetainQueue {
  /** Resolves once the jobs are durable (fsync'd). */
  enqueue(jobs: readonly RetainJobInput[]): Promise<readonly QueuedJob[]>;
  flush(o?: { deadline?: number }): Promise<FlushReport>;
  status(): QueueStatus;
}
