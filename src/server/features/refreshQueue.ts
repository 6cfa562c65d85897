/**
 * Queuing a mental-model refresh (`refresh_mental_model`): the pending operation and the
 * mutation that records it, and the refreshes consolidation asks for. Apart from the handler
 * (`refresh.ts`), which runs the reflect engine: the engine brings observations up to date
 * first, and the consolidator queues refreshes, so one module holding both made an import
 * cycle (observationsFor -> refresh -> reflectEngine -> observationsFor).
 */
import type { ServerContext } from '../context.js';
import type { Mutation, OperationRecord } from '../store/model.js';
import { MENTAL_MODEL_KIND, MentalModelRecord } from './mentalModels.js';
import { readRecords } from './records.js';

export const REFRESH_TASK = 'refresh_mental_model';

/** A pending refresh operation and the mutation that records it. */
export const buildRefresh = (server: ServerContext, bankId: string, modelId: string): { operation: OperationRecord; mutation: Mutation } => {
  const operation = server.operations.build({ bankId, taskType: REFRESH_TASK, itemsCount: 1, payload: { mental_model_id: modelId } });
  return { operation, mutation: { type: 'operation.put', operation } };
};

/** The model a refresh operation names in its payload, if it names one. */
export const refreshedModelId = (operation: OperationRecord): string | undefined => {
  const payload = operation.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const id = payload['mental_model_id'];
  return typeof id === 'string' ? id : undefined;
};

/** True when a refresh of `modelId` is already waiting or running: no need for another. */
const refreshPending = (server: ServerContext, bankId: string, modelId: string): boolean => {
  for (const op of server.store.bank(bankId)?.operations.values() ?? []) {
    if (op.task_type !== REFRESH_TASK || (op.status !== 'pending' && op.status !== 'processing')) continue;
    if (refreshedModelId(op) === modelId) return true;
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
