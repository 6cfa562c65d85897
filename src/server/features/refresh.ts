/**
 * Mental-model refresh as an async operation (`refresh_mental_model`): submit records a
 * pending operation next to the write that asked for it; the handler runs the extractive
 * reflect with the model's source query and trigger scope, then stores the new content,
 * its reflect response and the previous content in the history.
 */
import type { JsonValue } from '../../codecs/codecs.js';
import type { ServerContext } from '../context.js';
import type { OperationHandler } from '../operations.js';
import type { Mutation, OperationRecord } from '../store/model.js';
import { MENTAL_MODEL_KIND, MentalModelRecord } from './mentalModels.js';
import { runReflect } from './reflectEngine.js';
import { putRecord, readRecord, readRecords } from './records.js';
import { refreshScope } from './trigger.js';

export const REFRESH_TASK = 'refresh_mental_model';
/** History entries kept per model (oldest dropped). */
const HISTORY_LIMIT = 50;

/** A pending refresh operation and the mutation that records it. */
export const buildRefresh = (server: ServerContext, bankId: string, modelId: string): { operation: OperationRecord; mutation: Mutation } => {
  const operation = server.operations.build({ bankId, taskType: REFRESH_TASK, itemsCount: 1, payload: { mental_model_id: modelId } });
  return { operation, mutation: { type: 'operation.put', operation } };
};

const modelIdOf = (operation: OperationRecord): string => {
  const payload = operation.payload;
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload) && typeof payload['mental_model_id'] === 'string') {
    return payload['mental_model_id'];
  }
  throw new Error(`refresh operation ${operation.id} has no mental_model_id in its payload`);
};

/** Runs one refresh; fails the operation (with a readable message) when the model is gone. */
export const refreshHandler =
  (server: ServerContext): OperationHandler =>
  async (operation) => {
    const bankId = operation.bank_id;
    const modelId = modelIdOf(operation);
    const model = readRecord(server, bankId, MENTAL_MODEL_KIND, modelId, MentalModelRecord);
    if (model === undefined) throw new Error(`Mental model ${modelId} not found in bank ${bankId}; it was deleted before its refresh ran`);
    const scope = refreshScope(model.tags, model.trigger);
    const answer = await runReflect(server, bankId, {
      query: model.source_query,
      budget: 'mid',
      maxTokens: model.max_tokens,
      factTypes: model.trigger.fact_types,
      filter: { tags: scope.tags ?? null, tagsMatch: scope.tagsMatch, tagGroups: scope.tagGroups ?? null },
      excludeMentalModels: model.trigger.exclude_mental_models,
      // A model never cites itself.
      excludeMentalModelIds: [...(model.trigger.exclude_mental_model_ids ?? []), model.id],
      applyAllDirectives: false,
      includeFacts: true,
      toolCalls: model.trigger.keep_trace ? { output: true } : null,
    });
    await server.store.exclusive(bankId, async () => {
      // Re-read: the model may have been edited or cleared while the reflect ran.
      const current = readRecord(server, bankId, MENTAL_MODEL_KIND, modelId, MentalModelRecord);
      if (current === undefined) return;
      const now = server.nowIso();
      const reflectResponse: Record<string, unknown> = { text: answer.text, based_on: answer.based_on ?? { memories: [], mental_models: [], directives: [] } };
      if (answer.trace !== undefined) reflectResponse['trace'] = answer.trace;
      const next: MentalModelRecord = {
        ...current,
        content: answer.text,
        reflect_response: reflectResponse,
        last_refreshed_at: now,
        history: [
          { previous_content: current.content, previous_reflect_response: current.reflect_response ?? null, changed_at: now },
          ...current.history,
        ].slice(0, HISTORY_LIMIT),
      };
      await server.store.commit([putRecord(bankId, MENTAL_MODEL_KIND, modelId, next)]);
    });
    const metadata: Record<string, JsonValue> = { mental_model_id: modelId, facts_used: answer.based_on?.memories.length ?? 0 };
    return metadata;
  };

/** True when a refresh of `modelId` is already waiting or running: no need for another. */
const refreshPending = (server: ServerContext, bankId: string, modelId: string): boolean => {
  for (const op of server.store.bank(bankId)?.operations.values() ?? []) {
    if (op.task_type !== REFRESH_TASK || (op.status !== 'pending' && op.status !== 'processing')) continue;
    const payload = op.payload;
    if (typeof payload === 'object' && payload !== null && !Array.isArray(payload) && payload['mental_model_id'] === modelId) return true;
  }
  return false;
};

/** Queues a refresh of every model in the bank whose trigger asks to follow consolidation. */
export const queueRefreshesAfterConsolidation = async (server: ServerContext, bankId: string): Promise<void> => {
  const due = readRecords(server, bankId, MENTAL_MODEL_KIND, MentalModelRecord).filter(
    (m) => m.trigger.refresh_after_consolidation && !refreshPending(server, bankId, m.id),
  );
  if (due.length === 0) return;
  const refreshes = due.map((m) => buildRefresh(server, bankId, m.id));
  await server.store.commit(refreshes.map((r) => r.mutation));
  server.operations.schedule(refreshes.map((r) => r.operation));
};
