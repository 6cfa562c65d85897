/**
 * Mental-model refresh as an async operation (`refresh_mental_model`): submit records a
 * pending operation next to the write that asked for it; the handler runs the extractive
 * reflect with the model's source query and trigger scope, then stores the new content,
 * its reflect response and the previous content in the history. Queuing one is
 * `refreshQueue.ts`, which the consolidator reaches without reaching the reflect engine.
 */
import type { JsonValue } from '../../codecs/codecs.js';
import type { ServerContext } from '../context.js';
import type { OperationHandler } from '../operations.js';
import type { OperationRecord } from '../store/model.js';
import { MENTAL_MODEL_KIND, MentalModelRecord } from './mentalModels.js';
import { runReflect } from './reflectEngine.js';
import { putRecord, readRecord } from './records.js';
import { refreshedModelId } from './refreshQueue.js';
import { refreshScope } from './trigger.js';

/** History entries kept per model (oldest dropped). */
const HISTORY_LIMIT = 50;

const modelIdOf = (operation: OperationRecord): string => {
  const id = refreshedModelId(operation);
  if (id === undefined) throw new Error(`refresh operation ${operation.id} has no mental_model_id in its payload`);
  return id;
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
