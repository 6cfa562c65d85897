/**
 * Mental models (reference 1.8): CRUD, refresh as an async operation, clear, history.
 * Content is built extractively by the refresh (features/refresh.ts).
 */
import { randomBytes } from 'node:crypto';
import type { ServerContext } from '../context.js';
import { capabilityUnavailable, conflict, notFound, valueError } from '../http/errors.js';
import { decodeOr422, ignoredHeader, unknownFields } from '../http/validation.js';
import { choiceParam, intParam, listParam } from '../features/listQuery.js';
import {
  compareModels,
  CreateMentalModelBody,
  DEFAULT_MODEL_TOKENS,
  GENERATING,
  MENTAL_MODEL_KIND,
  MentalModelRecord,
  maxTokensProblem,
  modelMatchesList,
  modelResponse,
  UpdateMentalModelBody,
} from '../features/mentalModels.js';
import type { Detail, ListTagsMatch } from '../features/mentalModels.js';
import { deleteRecord, putRecord, readRecord, readRecords } from '../features/records.js';
import { refreshHandler } from '../features/refresh.js';
import { buildRefresh, REFRESH_TASK } from '../features/refreshQueue.js';
import { modelIsStale } from '../features/staleness.js';
import { normaliseTrigger, triggerProblem } from '../features/trigger.js';
import type { TriggerInput } from '../features/trigger.js';
import { KNOWLEDGE_KIND } from '../features/knowledge.js';
import { ensureBankMutations } from './bankOps.js';
import type { RouteModule } from './module.js';

const BASE = '/v1/default/banks/{bank_id}/mental-models';
const ONE = `${BASE}/{mental_model_id}`;
const DETAILS: readonly Detail[] = ['metadata', 'content', 'full'];

const ids = (params: Readonly<Record<string, string>>): { bankId: string; modelId: string } => ({
  bankId: params['bank_id'] ?? '',
  modelId: params['mental_model_id'] ?? '',
});

const requireModel = (server: ServerContext, bankId: string, modelId: string): MentalModelRecord => {
  const model = readRecord(server, bankId, MENTAL_MODEL_KIND, modelId, MentalModelRecord);
  if (model === undefined) throw notFound(`Mental model '${modelId}' not found`);
  return model;
};

/** The checks upstream runs as validators (422), then the capability refusal (400). */
export const checkTrigger = (trigger: TriggerInput | null | undefined, loc: readonly (string | number)[]): void => {
  if (trigger === undefined || trigger === null) return;
  const problem = triggerProblem(trigger);
  if (problem !== undefined) throw valueError([...loc, ...problem.loc], problem.message);
  if (trigger.response_schema !== undefined && trigger.response_schema !== null) {
    throw capabilityUnavailable('trigger response_schema (structured output needs an LLM)');
  }
};

const checkMaxTokens = (value: number | null | undefined, loc: readonly (string | number)[]): void => {
  if (value === undefined || value === null) return;
  const problem = maxTokensProblem(value);
  if (problem !== undefined) throw valueError(loc, problem, value);
};

const newModelId = (): string => `mm-${randomBytes(16).toString('hex')}`;

export const mentalModelsModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: BASE,
      handler: ({ params, query, server }) => {
        const { bankId } = ids(params);
        const tags = listParam(query, 'tags');
        const mode = choiceParam<ListTagsMatch>(query, 'tags_match', ['any', 'all', 'exact'], 'any');
        const detail = choiceParam(query, 'detail', DETAILS, 'full');
        const limit = intParam(query, 'limit', 100, 1, 1000);
        const offset = intParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const matched = readRecords(server, bankId, MENTAL_MODEL_KIND, MentalModelRecord)
          .filter((m) => modelMatchesList(m.tags, tags, mode))
          .sort(compareModels);
        const items = matched
          .slice(offset, offset + limit)
          // is_stale is exact and costly: only the single read computes it.
          .map((m) => modelResponse(bankId, m, detail));
        // 0.10 pages these lists with total/limit/offset; 0.9.1 answers the items only.
        return { body: server.mimic === '0.10' ? { items, total: matched.length, limit, offset } : { items } };
      },
    },
    {
      method: 'POST',
      pattern: BASE,
      handler: async ({ params, body, server }) => {
        const { bankId } = ids(params);
        const req = decodeOr422(CreateMentalModelBody, body);
        checkMaxTokens(req.max_tokens, ['body', 'max_tokens']);
        checkTrigger(req.trigger, ['body', 'trigger']);
        return server.store.exclusive(bankId, async () => {
          const id = req.id ?? newModelId();
          if (readRecord(server, bankId, MENTAL_MODEL_KIND, id, MentalModelRecord) !== undefined) {
            throw conflict(`Mental model '${id}' already exists in bank '${bankId}'; choose another id or PATCH the existing one`);
          }
          const model: MentalModelRecord = {
            id,
            name: req.name,
            source_query: req.source_query,
            content: GENERATING,
            tags: req.tags ?? [],
            max_tokens: req.max_tokens ?? DEFAULT_MODEL_TOKENS,
            trigger: normaliseTrigger(req.trigger ?? {}),
            created_at: server.nowIso(),
            history: [],
          };
          const refresh = buildRefresh(server, bankId, id);
          await server.store.commit([...ensureBankMutations(server, bankId), putRecord(bankId, MENTAL_MODEL_KIND, id, model), refresh.mutation]);
          server.operations.schedule([refresh.operation]);
          return { body: { mental_model_id: id, operation_id: refresh.operation.id }, headers: ignoredHeader(unknownFields(CreateMentalModelBody, body)) };
        });
      },
    },
    {
      method: 'GET',
      pattern: ONE,
      handler: ({ params, query, server }) => {
        const { bankId, modelId } = ids(params);
        const detail = choiceParam(query, 'detail', DETAILS, 'full');
        const model = requireModel(server, bankId, modelId);
        const stale = detail === 'full' ? modelIsStale(server.store.bank(bankId), model) : undefined;
        return { body: modelResponse(bankId, model, detail, stale) };
      },
    },
    {
      method: 'PATCH',
      pattern: ONE,
      handler: async ({ params, body, server }) => {
        const { bankId, modelId } = ids(params);
        const req = decodeOr422(UpdateMentalModelBody, body ?? {});
        checkMaxTokens(req.max_tokens, ['body', 'max_tokens']);
        checkTrigger(req.trigger, ['body', 'trigger']);
        return server.store.exclusive(bankId, async () => {
          const old = requireModel(server, bankId, modelId);
          const next: MentalModelRecord = {
            ...old,
            ...(req.name === undefined || req.name === null ? {} : { name: req.name }),
            ...(req.source_query === undefined || req.source_query === null ? {} : { source_query: req.source_query }),
            ...(req.max_tokens === undefined || req.max_tokens === null ? {} : { max_tokens: req.max_tokens }),
            ...(req.tags === undefined || req.tags === null ? {} : { tags: req.tags }),
            // A trigger in a PATCH replaces the whole trigger.
            ...(req.trigger === undefined || req.trigger === null ? {} : { trigger: normaliseTrigger(req.trigger) }),
          };
          await server.store.commit([putRecord(bankId, MENTAL_MODEL_KIND, modelId, next)]);
          return { body: modelResponse(bankId, next, 'full'), headers: ignoredHeader(unknownFields(UpdateMentalModelBody, body)) };
        });
      },
    },
    {
      method: 'DELETE',
      pattern: ONE,
      handler: async ({ params, server }) => {
        const { bankId, modelId } = ids(params);
        return server.store.exclusive(bankId, async () => {
          const model = requireModel(server, bankId, modelId);
          const page = model.page_id;
          // A page without its model would be an empty shell: it goes too.
          const pageGone = page !== undefined && server.store.bank(bankId)?.records.get(KNOWLEDGE_KIND)?.has(page) === true;
          await server.store.commit([deleteRecord(bankId, MENTAL_MODEL_KIND, modelId), ...(pageGone ? [deleteRecord(bankId, KNOWLEDGE_KIND, page)] : [])]);
          return { body: { status: 'deleted' } };
        });
      },
    },
    {
      method: 'GET',
      pattern: `${ONE}/history`,
      since: '0.4.17',
      handler: ({ params, server }) => {
        const { bankId, modelId } = ids(params);
        return { body: requireModel(server, bankId, modelId).history };
      },
    },
    {
      method: 'POST',
      pattern: `${ONE}/refresh`,
      handler: async ({ params, server }) => {
        const { bankId, modelId } = ids(params);
        if (readRecord(server, bankId, MENTAL_MODEL_KIND, modelId, MentalModelRecord) === undefined) {
          throw notFound(`Mental model ${modelId} not found in bank ${bankId}`);
        }
        const refresh = buildRefresh(server, bankId, modelId);
        await server.store.commit([refresh.mutation]);
        server.operations.schedule([refresh.operation]);
        return { body: { operation_id: refresh.operation.id, status: 'queued' } };
      },
    },
    {
      method: 'POST',
      pattern: `${ONE}/dry-run-refresh`,
      since: '0.9.0',
      handler: ({ params, server }) => {
        const { bankId, modelId } = ids(params);
        requireModel(server, bankId, modelId);
        throw capabilityUnavailable('mental model dry-run-refresh (an LLM diff of the next refresh)');
      },
    },
    {
      method: 'POST',
      pattern: `${ONE}/clear`,
      since: '0.7.0',
      handler: async ({ params, server }) => {
        const { bankId, modelId } = ids(params);
        return server.store.exclusive(bankId, async () => {
          const old = requireModel(server, bankId, modelId);
          const { reflect_response: _dropped, ...rest } = old;
          const next: MentalModelRecord = { ...rest, content: '' };
          await server.store.commit([putRecord(bankId, MENTAL_MODEL_KIND, modelId, next)]);
          return { body: modelResponse(bankId, next, 'full') };
        });
      },
    },
  ],
  operations: (server) => ({ [REFRESH_TASK]: refreshHandler(server) }),
};
