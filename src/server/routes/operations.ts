/** Operations: list, status, cancel, retry, delete (reference 1.10, 3.5). */
import { badRequest, notFound } from '../http/errors.js';
import { intParam, page, stringParam } from '../http/query.js';
import type { ServerContext } from '../context.js';
import type { OperationRecord } from '../store/model.js';
import type { RouteModule } from './module.js';

const OPS = '/v1/default/banks/{bank_id}/operations';
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

const listItem = (op: OperationRecord): Record<string, unknown> => ({
  id: op.id,
  task_type: op.task_type,
  items_count: op.items_count,
  document_id: op.document_id ?? null,
  filename: null,
  created_at: op.created_at,
  updated_at: op.updated_at,
  status: op.status,
  error_message: op.error_message ?? null,
  retry_count: 0,
  next_retry_at: null,
  progress: null,
});

const statusOf = (server: ServerContext, op: OperationRecord, includePayload: boolean): Record<string, unknown> => {
  const bank = server.store.bank(op.bank_id);
  const children =
    op.child_ids?.map((id, index) => {
      const child = bank?.operations.get(id);
      return {
        operation_id: id,
        status: child?.status ?? 'not_found',
        sub_batch_index: index,
        items_count: child?.items_count ?? null,
        error_message: child?.error_message ?? null,
      };
    }) ?? null;
  return {
    operation_id: op.id,
    status: op.status,
    operation_type: op.task_type,
    created_at: op.created_at,
    updated_at: op.updated_at,
    completed_at: op.completed_at ?? null,
    error_message: op.error_message ?? null,
    retry_count: 0,
    next_retry_at: null,
    progress: null,
    result_metadata: op.result_metadata ?? null,
    child_operations: children,
    ...(includePayload ? { task_payload: typeof op.payload === 'object' && op.payload !== null && !Array.isArray(op.payload) ? op.payload : null } : {}),
  };
};

const requireOperation = (server: ServerContext, bankId: string, id: string): OperationRecord => {
  const op = server.store.bank(bankId)?.operations.get(id);
  if (op === undefined) throw notFound(`Operation '${id}' not found`);
  return op;
};

export const operationsModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: OPS,
      keepNulls: true,
      handler: ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const status = stringParam(query, 'status');
        const type = stringParam(query, 'type');
        const excludeParents = stringParam(query, 'exclude_parents') === 'true';
        const limit = intParam(query, 'limit', 20);
        const offset = intParam(query, 'offset', 0);
        const all = [...(server.store.bank(bankId)?.operations.values() ?? [])]
          .filter(
            (op) =>
              (status === undefined || op.status === status) &&
              (type === undefined || op.task_type === type) &&
              !(excludeParents && op.child_ids !== undefined),
          )
          .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
        return { body: { bank_id: bankId, total: all.length, limit, offset, operations: page(all, limit, offset).map(listItem) } };
      },
    },
    {
      method: 'GET',
      pattern: `${OPS}/{operation_id}`,
      keepNulls: true,
      handler: ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const id = params['operation_id'] ?? '';
        if (!UUID.test(id)) throw badRequest(`Invalid operation_id format: ${id}`);
        const op = server.store.bank(bankId)?.operations.get(id);
        if (op === undefined) return { body: { operation_id: id, status: 'not_found' } };
        return { body: statusOf(server, op, stringParam(query, 'include_payload') === 'true') };
      },
    },
    {
      method: 'DELETE',
      pattern: `${OPS}/{operation_id}`,
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        const id = params['operation_id'] ?? '';
        return server.store.exclusive(bankId, async () => {
          const op = requireOperation(server, bankId, id);
          if (op.status !== 'pending') throw badRequest(`Operation '${id}' is ${op.status}; only pending operations can be cancelled`);
          const now = server.nowIso();
          const cancelled = [op, ...(op.child_ids ?? []).flatMap((c) => server.store.bank(bankId)?.operations.get(c) ?? [])]
            .filter((o) => o.status === 'pending')
            .map((o) => ({ type: 'operation.put' as const, operation: { ...o, status: 'cancelled' as const, updated_at: now, completed_at: now } }));
          await server.store.commit(cancelled);
          return { body: { success: true, message: `Operation '${id}' cancelled`, operation_id: id } };
        });
      },
    },
    {
      method: 'POST',
      pattern: `${OPS}/{operation_id}/retry`,
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        const id = params['operation_id'] ?? '';
        return server.store.exclusive(bankId, async () => {
          const op = requireOperation(server, bankId, id);
          if (op.status !== 'failed') throw badRequest(`Operation '${id}' is ${op.status}; only failed operations can be retried`);
          const bank = server.store.bank(bankId);
          const now = server.nowIso();
          const targets = [op, ...(op.child_ids ?? []).flatMap((c) => bank?.operations.get(c) ?? [])].filter((o) => o.status === 'failed');
          const reset = targets.map((o) => {
            const { error_message: _dropped, completed_at: _done, ...rest } = o;
            return { ...rest, status: 'pending' as const, updated_at: now };
          });
          await server.store.commit(reset.map((operation) => ({ type: 'operation.put' as const, operation })));
          server.operations.schedule(reset);
          return { body: { success: true, message: `Operation '${id}' queued for retry`, operation_id: id } };
        });
      },
    },
    {
      method: 'DELETE',
      pattern: `${OPS}/{operation_id}/delete`,
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        const id = params['operation_id'] ?? '';
        return server.store.exclusive(bankId, async () => {
          const op = requireOperation(server, bankId, id);
          if (!TERMINAL.has(op.status)) throw badRequest(`Operation '${id}' is ${op.status}; only finished operations can be deleted`);
          const ids = [id, ...(op.child_ids ?? [])];
          await server.store.commit(ids.map((operationId) => ({ type: 'operation.delete' as const, bank_id: bankId, operation_id: operationId })));
          return { body: { success: true, message: `Operation '${id}' deleted`, operation_id: id } };
        });
      },
    },
  ],
};
