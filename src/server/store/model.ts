/**
 * What the embedded server stores, as io-ts codecs: banks, documents, chunks, facts (memory
 * units), operations, and generic keyed records that feature modules (mental models,
 * directives, knowledge pages, config overrides) keep per bank. Every mutation is one of the
 * `Mutation` records below; the log and the snapshot hold exactly these, so a replayed line is
 * decoded by the same codec that typed it.
 */
import * as t from 'io-ts';
import { JsonValue, StringMap } from '../../codecs/codecs.js';
import { FactType } from '../../wire/hindsight.js';

// The stored fact kinds are the wire's: one codec for both.
export { FactType };

export const Disposition = t.type({ skepticism: t.number, literalism: t.number, empathy: t.number });
export type Disposition = t.TypeOf<typeof Disposition>;

export const BankRecord = t.intersection([
  t.type({
    bank_id: t.string,
    name: t.string,
    disposition: Disposition,
    mission: t.string,
    created_at: t.string,
    updated_at: t.string,
  }),
  t.partial({ last_document_at: t.string, last_write_at: t.string }),
]);
export type BankRecord = t.TypeOf<typeof BankRecord>;

export const Entity = t.intersection([t.type({ text: t.string }), t.partial({ type: t.string })]);
export type Entity = t.TypeOf<typeof Entity>;

export const DocumentRecord = t.type({
  id: t.string,
  original_text: t.union([t.string, t.null]),
  content_hash: t.union([t.string, t.null]),
  created_at: t.string,
  updated_at: t.string,
  tags: t.array(t.string),
  retain_params: t.record(t.string, JsonValue),
});
export type DocumentRecord = t.TypeOf<typeof DocumentRecord>;

export const ChunkRecord = t.type({ id: t.string, document_id: t.string, chunk_index: t.number, text: t.string });
export type ChunkRecord = t.TypeOf<typeof ChunkRecord>;

export const FactRecord = t.intersection([
  t.type({
    id: t.string,
    text: t.string,
    fact_type: FactType,
    document_id: t.union([t.string, t.null]),
    chunk_id: t.union([t.string, t.null]),
    tags: t.array(t.string),
    created_at: t.string,
  }),
  t.partial({
    context: t.string,
    metadata: StringMap,
    mentioned_at: t.string,
    occurred_start: t.string,
    occurred_end: t.string,
    entities: t.array(Entity),
    /** Observations: the facts they were built from. */
    source_fact_ids: t.array(t.string),
    /** Curation (`PATCH /memories/{id}`): an invalidated fact is kept but never recalled. */
    state: t.keyof({ valid: null, invalidated: null }),
    invalidation_reason: t.string,
    invalidated_at: t.string,
    edited_at: t.string,
  }),
]);
export type FactRecord = t.TypeOf<typeof FactRecord>;

/** What a recall filter reads of a fact: the store answers it without reading a stored fact whole. */
export type FactHead = Pick<FactRecord, 'fact_type' | 'tags' | 'state'>;

export const OperationStatus = t.keyof({ pending: null, processing: null, completed: null, failed: null, cancelled: null });
export type OperationStatus = t.TypeOf<typeof OperationStatus>;

export const OperationRecord = t.intersection([
  t.type({
    id: t.string,
    bank_id: t.string,
    task_type: t.string,
    status: OperationStatus,
    items_count: t.number,
    created_at: t.string,
    updated_at: t.string,
  }),
  t.partial({
    document_id: t.string,
    completed_at: t.string,
    error_message: t.string,
    parent_id: t.string,
    child_ids: t.array(t.string),
    /** What the operation does when it runs (e.g. the retain request); survives a restart. */
    payload: JsonValue,
    result_metadata: t.record(t.string, JsonValue),
  }),
]);
export type OperationRecord = t.TypeOf<typeof OperationRecord>;

export const Mutation = t.union([
  t.type({ type: t.literal('bank.put'), bank: BankRecord }),
  t.type({ type: t.literal('bank.delete'), bank_id: t.string }),
  /** Replaces a document with its full set of chunks and facts (ids of unchanged chunks kept by the caller). */
  t.type({
    type: t.literal('document.put'),
    bank_id: t.string,
    document: DocumentRecord,
    chunks: t.array(ChunkRecord),
    facts: t.array(FactRecord),
  }),
  t.type({ type: t.literal('document.delete'), bank_id: t.string, document_id: t.string }),
  /** Facts outside documents (observations) or in-place fact edits. */
  t.type({ type: t.literal('facts.put'), bank_id: t.string, facts: t.array(FactRecord) }),
  t.type({ type: t.literal('facts.delete'), bank_id: t.string, ids: t.array(t.string) }),
  t.type({ type: t.literal('operation.put'), operation: OperationRecord }),
  t.type({ type: t.literal('operation.delete'), bank_id: t.string, operation_id: t.string }),
  t.type({ type: t.literal('record.put'), bank_id: t.string, kind: t.string, id: t.string, value: JsonValue }),
  t.type({ type: t.literal('record.delete'), bank_id: t.string, kind: t.string, id: t.string }),
]);
export type Mutation = t.TypeOf<typeof Mutation>;
