/**
 * Turns a retain request into store mutations, as upstream does in "chunks" mode (reference
 * section 3): items grouped into documents, the document text joined with "\n" (append
 * prepends the stored text). Each item is its own memory: its content is chunked on its own and
 * every fact carries only that item's tags (plus `document_tags`), context, date, metadata and
 * entities, so a shared document never widens who can see an item. Facts whose text is
 * unchanged keep their ids (the 0.4.21 delta).
 */
import { hash } from 'node:crypto';
import type { JsonValue } from '../../codecs/codecs.js';
import { badRequest } from '../http/errors.js';
import type { BankRecord, ChunkRecord, DocumentRecord, Entity, FactRecord, Mutation } from '../store/model.js';
import type { BankState } from '../store/state.js';
import { newBank } from '../routes/bankOps.js';
import { appendContents } from './appendText.js';
import { chunkText } from './chunking.js';
import { extractEntities, extractEntitySteps, mergeEntities } from './entities.js';
import type { MemoryItem } from './codecs.js';
import { runSliced, sliceTimer } from '../slices.js';

export interface RetainPlanInput {
  readonly bankId: string;
  readonly bank: BankState | undefined;
  readonly items: readonly MemoryItem[];
  readonly documentTags: readonly string[];
  /** Server time, epoch ms. */
  readonly now: number;
  readonly newId: () => string;
  /** `false` when mimicking a server without `update_mode` (the field is ignored). */
  readonly appendSupported: boolean;
  /** Each item's analysis, in `items` order, made beforehand in slices (`analyseItems`); made here when absent. */
  readonly analyses?: readonly ItemAnalysis[];
  /** The bank record as an earlier plan of the same commit leaves it (plans of one commit chain it). */
  readonly bankRecord?: BankRecord;
}

/** What an item's text yields, independent of the bank: its entities and its chunks. */
export interface ItemAnalysis {
  readonly entities: Entity[];
  readonly chunks: readonly string[];
}

export interface RetainPlan {
  readonly mutations: Mutation[];
  readonly documentIds: string[];
  /** The document of each request item, in request order. */
  readonly itemDocumentIds: string[];
  /** The bank record as the plan's last mutation writes it. */
  readonly bank: BankRecord;
}

/** Hindsight writes timestamps with an explicit offset. */
const isoOfMs = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');

// A plan writes the same instant many times (the request's time on every item without a
// timestamp, and on the document and bank records): the last one is kept.
let lastMs = Number.NaN;
let lastIso = '';
const isoOf = (ms: number): string => {
  if (ms !== lastMs) {
    lastIso = isoOfMs(ms);
    lastMs = ms;
  }
  return lastIso;
};

// One-shot `hash` (Node 20.12+): half the CPU of a Hash object per document.
const sha256 = (text: string): string => hash('sha256', text, 'hex');

const NO_IDS: readonly string[] = [];

const union = (lists: readonly (readonly string[] | null | undefined)[]): string[] => {
  const out: string[] = [];
  for (const list of lists) for (const tag of list ?? []) if (!out.includes(tag)) out.push(tag);
  return out;
};

/** Event date of an item: absent -> now, "unset" -> none, else the given instant. */
const eventDateOf = (item: MemoryItem, now: number): number | undefined => {
  if (item.timestamp === undefined || item.timestamp === null) return now;
  if (item.timestamp === 'unset') return undefined;
  return Date.parse(item.timestamp);
};

/** The item's given entities, then the ones the deterministic extractor finds in its text. */
const givenEntities = (item: MemoryItem): Entity[] =>
  (item.entities ?? []).map((e) => (e.type === undefined || e.type === null ? { text: e.text } : { text: e.text, type: e.type }));

const entitiesOf = (item: MemoryItem): Entity[] => mergeEntities(givenEntities(item), extractEntities(item.content));

const analyseItem = (item: MemoryItem): ItemAnalysis => ({ entities: entitiesOf(item), chunks: chunkText(item.content) });

/**
 * Every item's analysis, yielding to the event loop between slices (within an item's text
 * too): it grows with the text (megabytes in one retain) and reads nothing of the bank, so it
 * runs before the plan and other banks' requests are served meanwhile.
 */
export const analyseItems = async (items: readonly MemoryItem[], pause?: () => Promise<void>): Promise<ItemAnalysis[]> => {
  const out: ItemAnalysis[] = [];
  const slice = sliceTimer();
  for (const item of items) {
    const extracted = await runSliced(extractEntitySteps(item.content), slice, pause);
    out.push({ entities: mergeEntities(givenEntities(item), extracted), chunks: chunkText(item.content) });
  }
  return out;
};

/**
 * Every item with its document id filled in (reference 3.1 step 4): with two or more distinct
 * explicit ids each item without one gets its own new document; otherwise they all join the
 * single explicit document, or one new document. An async retain stores the result in its
 * operation, so running it again after a crash rewrites the same documents.
 */
export const assignDocumentIds = (items: readonly MemoryItem[], newId: () => string): MemoryItem[] => {
  const explicit = [...new Set(items.flatMap((i) => (i.document_id === undefined || i.document_id === null ? [] : [i.document_id])))];
  const shared = explicit.length >= 2 ? undefined : (explicit[0] ?? newId());
  return items.map((item) => (item.document_id === undefined || item.document_id === null ? { ...item, document_id: shared ?? newId() } : item));
};

/** Document id -> its items with their analyses, in request order. */
const groupByDocument = (assigned: readonly MemoryItem[], analyses: readonly ItemAnalysis[] | undefined): Map<string, { item: MemoryItem; analysis: ItemAnalysis }[]> => {
  const groups = new Map<string, { item: MemoryItem; analysis: ItemAnalysis }[]>();
  assigned.forEach((item, i) => {
    const id = item.document_id ?? '';
    const entry = { item, analysis: analyses?.[i] ?? analyseItem(item) };
    const list = groups.get(id);
    if (list === undefined) groups.set(id, [entry]);
    else list.push(entry);
  });
  return groups;
};

export const planRetain = (input: RetainPlanInput): RetainPlan => {
  const { bankId, items, now, newId } = input;
  const nowIso = isoOf(now);
  if (input.appendSupported && items.some((i) => i.update_mode === 'append' && (i.document_id === undefined || i.document_id === null))) {
    throw badRequest("update_mode='append' requires a document_id");
  }
  let bankRecord: BankRecord = input.bankRecord ?? input.bank?.bank ?? newBank(bankId, nowIso);
  const mutations: Mutation[] = input.bank === undefined && input.bankRecord === undefined ? [{ type: 'bank.put', bank: bankRecord }] : [];
  let newDocument = false;
  const documentIds: string[] = [];

  const assigned = assignDocumentIds(items, newId);
  for (const [documentId, analysed] of groupByDocument(assigned, input.analyses)) {
    documentIds.push(documentId);
    const group = analysed.map((entry) => entry.item);
    const first = group[0];
    if (first === undefined) continue;
    const existing = input.bank?.documents.get(documentId);
    const append = input.appendSupported && first.update_mode === 'append';
    const contents = group.map((i) => i.content);
    const stored =
      append && existing !== undefined && existing.original_text !== null ? appendContents(existing.original_text, contents) : contents;
    const text = stored.join('\n');
    const kept = append && existing !== undefined ? [existing.tags] : [];
    const tags = union([...kept, ...group.map((i) => i.tags), input.documentTags]);
    const eventDate = eventDateOf(first, now);
    const context = first.context ?? undefined;
    const metadata = first.metadata ?? undefined;
    // Members set in this order (the log's JSON keeps it), with no spread literal per document.
    const retainParams: Record<string, JsonValue> = {};
    if (context !== undefined) retainParams['context'] = context;
    if (eventDate !== undefined) retainParams['event_date'] = isoOf(eventDate);
    if (metadata !== undefined) retainParams['metadata'] = metadata;
    if (first.observation_scopes !== undefined && first.observation_scopes !== null) retainParams['observation_scopes'] = first.observation_scopes;
    if (first.strategy !== undefined && first.strategy !== null) retainParams['strategy'] = first.strategy;
    const document: DocumentRecord = {
      id: documentId,
      original_text: text,
      content_hash: sha256(text),
      created_at: existing?.created_at ?? nowIso,
      updated_at: nowIso,
      tags,
      retain_params: retainParams,
    };
    if (existing === undefined) newDocument = true;

    const oldFacts: FactRecord[] = [];
    for (const id of input.bank?.factsByDocument.get(documentId) ?? NO_IDS) {
      const fact = input.bank?.facts.get(id);
      if (fact !== undefined && fact.fact_type !== 'observation') oldFacts.push(fact);
    }
    const chunks: ChunkRecord[] = [];
    const facts: FactRecord[] = [];
    // Append keeps the stored items exactly as they were, their own tags included.
    const previous = new Map<string, FactRecord>();
    if (append && existing !== undefined) {
      for (const id of input.bank?.chunksByDocument.get(documentId) ?? []) {
        const chunk = input.bank?.chunks.get(id);
        if (chunk !== undefined) chunks.push(chunk);
      }
      facts.push(...oldFacts);
    } else {
      // Delta: a chunk whose text is unchanged keeps its fact (id, created_at, mentioned_at).
      for (const fact of oldFacts) if (!previous.has(fact.text)) previous.set(fact.text, fact);
    }
    for (const { item, analysis } of analysed) {
      const itemTags = union([item.tags, input.documentTags]);
      const itemDate = eventDateOf(item, now);
      const itemContext = item.context ?? undefined;
      const itemMetadata = item.metadata ?? undefined;
      const entities = analysis.entities;
      for (let index = 0; index < analysis.chunks.length; index += 1) {
        const chunk = analysis.chunks[index] ?? '';
        const chunkId = `${bankId}_${documentId}_${chunks.length}`;
        chunks.push({ id: chunkId, document_id: documentId, chunk_index: chunks.length, text: chunk });
        const old = previous.size === 0 ? undefined : previous.get(chunk);
        if (old !== undefined) previous.delete(chunk);
        const mentionedAt = old?.mentioned_at ?? (itemDate === undefined ? undefined : isoOf(itemDate + index * 1000));
        const fact: FactRecord = {
          id: old?.id ?? newId(),
          text: chunk,
          fact_type: 'world',
          document_id: documentId,
          chunk_id: chunkId,
          tags: itemTags,
          created_at: old?.created_at ?? nowIso,
        };
        // The optional members in this order (the log's JSON keeps it), with no spread literals.
        if (itemContext !== undefined) fact.context = itemContext;
        if (itemMetadata !== undefined) fact.metadata = itemMetadata;
        if (mentionedAt !== undefined) fact.mentioned_at = mentionedAt;
        if (entities.length > 0) fact.entities = entities;
        facts.push(fact);
      }
    }
    mutations.push({ type: 'document.put', bank_id: bankId, document, chunks, facts });
  }
  bankRecord = { ...bankRecord, updated_at: nowIso, last_write_at: nowIso, ...(newDocument ? { last_document_at: nowIso } : {}) };
  mutations.push({ type: 'bank.put', bank: bankRecord });
  return { mutations, documentIds, itemDocumentIds: assigned.map((i) => i.document_id ?? ''), bank: bankRecord };
};
