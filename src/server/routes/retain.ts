/** `POST {b}/memories`: sync and async retain (reference 1.5, 3). */
import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { JsonValue, jsonCopy } from '../../codecs/codecs.js';
import type { ServerContext } from '../context.js';
import { badRequest, conflict } from '../http/errors.js';
import { decodeOr422, ignoredHeader, unknownFields } from '../http/validation.js';
import type { BankRecord, Mutation, OperationRecord } from '../store/model.js';
import type { TextSource } from '../store/textFromOperation.js';
import { RetainPayload, RetainRequest } from '../retain/codecs.js';
import type { MemoryItem } from '../retain/codecs.js';
import { analyseItems, assignDocumentIds, planRetain, type ItemAnalysis, type RetainPlan } from '../retain/plan.js';
import { decodeWith } from '../../codecs/decode.js';
import { ensureBankMutations } from './bankOps.js';
import type { RouteModule } from './module.js';

const ZERO_USAGE = { input_tokens: 0, output_tokens: 0, total_tokens: 0, cached_tokens: 0, thoughts_tokens: 0 };

const supportsAppend = (server: ServerContext): boolean => server.mimic !== 'legacy-0.7';
const supportsOperationId = (server: ServerContext): boolean => server.mimic !== 'legacy-0.7';

/** The documents items name (those without an id get one when planned). */
const documentIdsOf = (items: readonly MemoryItem[]): string[] => items.flatMap((i) => (i.document_id === undefined || i.document_id === null ? [] : [i.document_id]));

/** Plans items against the bank as it is now; `bankRecord` carries an earlier plan's bank in the same commit. */
const planNow = (server: ServerContext, bankId: string, items: readonly MemoryItem[], documentTags: readonly string[], analyses: readonly ItemAnalysis[], bankRecord?: BankRecord): RetainPlan =>
  planRetain({
    bankId,
    bank: server.store.bank(bankId),
    items,
    documentTags,
    now: server.clock.now(),
    newId: randomUUID,
    appendSupported: supportsAppend(server),
    analyses,
    ...(bankRecord === undefined ? {} : { bankRecord }),
  });

/** Applies items to the bank now (a sync retain), serialised per bank so concurrent appends never lose a turn. */
const retainNow = (server: ServerContext, bankId: string, items: readonly MemoryItem[], documentTags: readonly string[]): Promise<string[]> =>
  server.store.exclusive(bankId, async () => {
    // In slices, before the bank is read: the plan then reads the bank as it is when it runs.
    const plan = planNow(server, bankId, items, documentTags, await analyseItems(items));
    await server.store.commit(plan.mutations);
    server.webhooks.retainCompleted({ bankId, operationId: randomUUID(), items: () => eventItems(server, bankId, plan.itemDocumentIds, items, documentTags) });
    return plan.documentIds;
  });

/** One `retain.completed` payload per item: its document, its own tags, the document's unit count. */
const eventItems = (
  server: ServerContext,
  bankId: string,
  documentIds: readonly string[],
  items: readonly MemoryItem[],
  documentTags: readonly string[],
): { document_id: string | null; tags: string[] | null; memory_unit_count: number }[] =>
  items.map((item, i) => {
    const documentId = documentIds[i] ?? null;
    const tags = [...new Set([...(item.tags ?? []), ...documentTags])];
    return {
      document_id: documentId,
      tags: tags.length === 0 ? null : tags,
      memory_unit_count: documentId === null ? 0 : (server.store.bank(bankId)?.factsByDocument.get(documentId)?.length ?? 0),
    };
  });

/** An async retain waiting to run: its items as submitted and what their text yields. */
interface AcceptedRetain {
  readonly operation: OperationRecord;
  readonly items: readonly MemoryItem[];
  readonly documentTags: readonly string[];
  readonly analyses: readonly ItemAnalysis[];
  /** The documents it names; operations that share none are planned into one commit. */
  readonly documents: ReadonlySet<string>;
}

/** Runs of operations that touch no document twice: each run's plans all read the bank as it is before it. */
const disjointRuns = (accepted: readonly AcceptedRetain[]): AcceptedRetain[][] => {
  const runs: AcceptedRetain[][] = [];
  let run: AcceptedRetain[] = [];
  let seen = new Set<string>();
  for (const retain of accepted) {
    if ([...retain.documents].some((id) => seen.has(id))) {
      runs.push(run);
      run = [];
      seen = new Set();
    }
    run.push(retain);
    for (const id of retain.documents) seen.add(id);
  }
  if (run.length > 0) runs.push(run);
  return runs;
};

/**
 * Async retains of one bank, taken together (the runner hands over those waiting in order):
 * their text analysed in slices that give way to requests, then per run of operations with
 * no document in common one plan each and ONE commit holding their documents and their ends,
 * so a crash applies all of a run or none of it, and the acknowledgement cost nothing of this.
 */
const retainOperations = async (server: ServerContext, operations: readonly OperationRecord[], pause: () => Promise<void>): Promise<void> => {
  const first = operations[0];
  if (first === undefined) return;
  const bankId = first.bank_id;
  const refused: Mutation[] = [];
  const accepted: AcceptedRetain[] = [];
  for (const operation of operations) {
    const payload = decodeWith(RetainPayload, `operation ${operation.id} payload`)(operation.payload);
    if (E.isLeft(payload)) {
      refused.push(...server.operations.ended(operation, { status: 'failed', message: payload.left.message }));
      continue;
    }
    const { items, document_tags: documentTags } = payload.right;
    const documents = new Set(documentIdsOf(items));
    accepted.push({ operation, items, documentTags, analyses: await analyseItems(items, pause), documents });
  }
  if (refused.length > 0) await server.store.commit(refused);
  for (const run of disjointRuns(accepted)) {
    const done = await server.store.exclusive(bankId, async () => {
      const mutations: Mutation[] = [];
      // Each document's text is in its operation's record already (written when acknowledged).
      const textSources = new Map<string, TextSource>();
      const planned: { readonly retain: AcceptedRetain; readonly plan: RetainPlan }[] = [];
      let bankRecord: BankRecord | undefined;
      for (const retain of run) {
        try {
          const plan = planNow(server, bankId, retain.items, retain.documentTags, retain.analyses, bankRecord);
          bankRecord = plan.bank;
          mutations.push(...plan.mutations, ...server.operations.ended(retain.operation, { status: 'completed', metadata: { items_count: retain.items.length } }));
          retain.items.forEach((item, i) => {
            if (typeof item.document_id === 'string') textSources.set(item.document_id, { operationId: retain.operation.id, item: i });
          });
          planned.push({ retain, plan });
        } catch (error) {
          // As a request would have been refused (an append without a document id, say).
          mutations.push(...server.operations.ended(retain.operation, { status: 'failed', message: error instanceof Error ? error.message : String(error) }));
        }
      }
      await server.store.commit(mutations, textSources);
      return planned;
    });
    for (const { retain, plan } of done) {
      const operationId = retain.operation.parent_id ?? retain.operation.id;
      server.webhooks.retainCompleted({ bankId, operationId, items: () => eventItems(server, bankId, plan.itemDocumentIds, retain.items, retain.documentTags) });
    }
  }
};

const strategyGroups = (items: readonly MemoryItem[]): MemoryItem[][] => {
  const groups = new Map<string, MemoryItem[]>();
  for (const item of items) {
    const key = item.strategy ?? '';
    const list = groups.get(key);
    if (list === undefined) groups.set(key, [item]);
    else list.push(item);
  }
  return groups.size === 0 ? [[]] : [...groups.values()];
};

const submitAsync = async (
  server: ServerContext,
  bankId: string,
  items: readonly MemoryItem[],
  documentTags: readonly string[],
  operationId: string | undefined,
): Promise<{ operationIds: string[]; itemsCount: number }> => {
  const ids = documentIdsOf(items);
  const seen = new Set<string>();
  const duplicates = [...new Set(ids.filter((id) => seen.size === seen.add(id).size))];
  if (duplicates.length > 0) {
    throw badRequest(
      `Batch contains duplicate document_ids: ${JSON.stringify(duplicates)}. Items sharing a document_id must be merged into one item, or send the batch synchronously (async=false).`,
    );
  }
  const groups = strategyGroups(items);
  if (operationId !== undefined && groups.length > 1) throw badRequest('operation_id requires all retain items to resolve to a single strategy');
  return server.store.exclusive(bankId, async () => {
    if (operationId !== undefined) {
      const ownerBank = server.store.state.operationBank.get(operationId);
      if (ownerBank !== undefined) {
        const existing = server.store.bank(ownerBank)?.operations.get(operationId);
        // Idempotent re-submit: same bank, same kind of operation -> the original, no new work.
        if (ownerBank === bankId && existing?.task_type === 'batch_retain') return { operationIds: [operationId], itemsCount: existing.items_count };
        throw conflict(`operation_id ${operationId} is already in use`);
      }
    }
    const records: OperationRecord[] = [];
    const children: OperationRecord[] = [];
    groups.forEach((group, index) => {
      // Upstream does not pre-check an async append without a document id: the operation fails
      // when it runs, so those items are stored as sent.
      const appendWithoutId = supportsAppend(server) && group.some((i) => i.update_mode === 'append' && (i.document_id === undefined || i.document_id === null));
      const stored = appendWithoutId ? group : assignDocumentIds(group, randomUUID);
      // Decoded request items are JSON; a copy only when one holds an undefined member (dropped as on the wire).
      const payload: JsonValue = { items: JsonValue.is(stored) ? stored : jsonCopy(stored), document_tags: [...documentTags] };
      const child = server.operations.build({ bankId, taskType: 'retain', itemsCount: group.length, payload, parentId: '' });
      const parent = server.operations.build({
        bankId,
        taskType: 'batch_retain',
        itemsCount: group.length,
        childIds: [child.id],
        ...(index === 0 && operationId !== undefined ? { id: operationId } : {}),
      });
      const linked = { ...child, parent_id: parent.id };
      children.push(linked);
      records.push(parent, linked);
    });
    await server.store.commit([...ensureBankMutations(server, bankId), ...records.map((operation) => ({ type: 'operation.put' as const, operation }))]);
    server.operations.schedule(children);
    return { operationIds: records.filter((r) => r.task_type === 'batch_retain').map((r) => r.id), itemsCount: items.length };
  });
};

export const retainModule: RouteModule = {
  routes: [
    {
      method: 'POST',
      pattern: '/v1/default/banks/{bank_id}/memories',
      handler: async ({ params, body, server }) => {
        const bankId = params['bank_id'] ?? '';
        const request = decodeOr422(RetainRequest, body);
        const ignored = unknownFields(RetainRequest, body);
        let operationId = request.operation_id ?? undefined;
        if (!supportsOperationId(server) && operationId !== undefined) {
          ignored.push('operation_id');
          operationId = undefined;
        }
        if (!supportsAppend(server) && request.items.some((i) => i.update_mode !== undefined)) ignored.push('update_mode');
        const documentTags = request.document_tags ?? [];
        const headers = ignoredHeader(ignored);
        if (request.async === true) {
          const { operationIds, itemsCount } = await submitAsync(server, bankId, request.items, documentTags, operationId);
          return {
            headers,
            body: {
              success: true,
              bank_id: bankId,
              items_count: itemsCount,
              async: true,
              operation_id: operationIds[0],
              ...(operationIds.length > 1 ? { operation_ids: operationIds } : {}),
            },
          };
        }
        // After the async retains waiting before it (an append keeps its place in the document).
        await server.operations.caughtUp(bankId);
        await retainNow(server, bankId, request.items, documentTags);
        return { headers, body: { success: true, bank_id: bankId, items_count: request.items.length, async: false, usage: ZERO_USAGE } };
      },
    },
  ],
  operations: () => ({
    // A parent aggregates its children; it never runs itself.
    batch_retain: () => Promise.resolve(undefined),
  }),
  batchOperations: (server) => ({ retain: (operations, pause) => retainOperations(server, operations, pause) }),
};
