/**
 * `GET {b}/memories/list`, `GET|PATCH {b}/memories/{memory_id}` (detail and curation),
 * `GET {b}/memories/{memory_id}/history` and `DELETE {b}/memories/{memory_id}/observations`
 * (reference 1.10).
 */
import * as t from 'io-ts';
import { nullable } from '../../codecs/codecs.js';
import { badRequest, notFound } from '../http/errors.js';
import { decodeOr422, ignoredHeader, unknownFields } from '../http/validation.js';
import { browseIndexes } from '../features/browseIndexes.js';
import type { ServerContext } from '../context.js';
import { enumParam, intParam, listParam, stringParam } from '../http/query.js';
import { memoryPage } from '../features/browseQueries.js';
import type { TagsMatch } from '../recall/tagFilter.js';
import { observationsFor } from '../features/observationsFor.js';
import type { FactRecord } from '../store/model.js';
import type { RouteModule } from './module.js';

const TAG_MODES: readonly TagsMatch[] = ['any', 'all', 'any_strict', 'all_strict', 'exact'];

const itemOf = (f: FactRecord): Record<string, unknown> => ({
  id: f.id,
  text: f.text,
  context: f.context ?? '',
  date: f.mentioned_at ?? '',
  fact_type: f.fact_type,
  document_id: f.document_id,
  mentioned_at: f.mentioned_at ?? null,
  occurred_start: f.occurred_start ?? null,
  occurred_end: f.occurred_end ?? null,
  entities: (f.entities ?? []).map((e) => e.text).join(', '),
  chunk_id: f.chunk_id,
  proof_count: f.source_fact_ids?.length ?? 1,
  tags: f.tags,
  metadata: f.metadata ?? {},
  consolidated_at: null,
  consolidation_failed_at: null,
  state: f.state ?? 'valid',
  invalidation_reason: f.invalidation_reason ?? null,
  invalidated_at: f.invalidated_at ?? null,
  edited_at: f.edited_at ?? null,
});

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

const requireFact = (server: ServerContext, bankId: string, id: string): FactRecord => {
  if (!UUID.test(id)) throw badRequest(`Invalid memory_id: '${id}' is not a valid UUID`);
  const fact = server.store.bank(bankId)?.facts.get(id);
  if (fact === undefined) throw notFound(`Memory unit '${id}' not found`);
  return fact;
};

/** Upstream's detail view: `type`, entities as a list of names, observations with their sources. */
const detailOf = (server: ServerContext, bankId: string, f: FactRecord): Record<string, unknown> => {
  const body: Record<string, unknown> = {
    id: f.id,
    text: f.text,
    context: f.context ?? '',
    date: f.mentioned_at ?? '',
    type: f.fact_type,
    mentioned_at: f.mentioned_at ?? null,
    occurred_start: f.occurred_start ?? null,
    occurred_end: f.occurred_end ?? null,
    entities: (f.entities ?? []).map((e) => e.text),
    document_id: f.document_id,
    chunk_id: f.chunk_id,
    tags: f.tags,
    metadata: f.metadata ?? {},
    observation_scopes: null,
    state: f.state ?? 'valid',
    invalidation_reason: f.invalidation_reason ?? null,
    invalidated_at: f.invalidated_at ?? null,
    edited_at: f.edited_at ?? null,
  };
  if (f.fact_type === 'observation') {
    body['history'] = [];
    const ids = f.source_fact_ids ?? [];
    if (ids.length > 0) {
      body['source_memory_ids'] = ids;
      const bank = server.store.bank(bankId);
      body['source_memories'] = ids.flatMap((id) => {
        const s = bank?.facts.get(id);
        return s === undefined
          ? []
          : [{ id: s.id, text: s.text, type: s.fact_type, context: s.context ?? null, occurred_start: s.occurred_start ?? null, mentioned_at: s.mentioned_at ?? null }];
      });
    }
  }
  return body;
};


const UpdateMemoryRequest = t.partial({
  text: nullable(t.string),
  context: nullable(t.string),
  occurred_start: nullable(t.string),
  occurred_end: nullable(t.string),
  fact_type: nullable(t.string),
  entities: nullable(t.array(t.string)),
  state: nullable(t.string),
  reason: nullable(t.string),
});
type UpdateMemoryRequest = t.TypeOf<typeof UpdateMemoryRequest>;

/** "" (or an explicit null) clears a date, a value sets it (ISO, UTC when naive), absent keeps it. */
const editDate = (body: unknown, key: 'occurred_start' | 'occurred_end', value: string | null | undefined, old: string | undefined): string | undefined => {
  const sent = typeof body === 'object' && body !== null && Object.hasOwn(body, key);
  if (!sent) return old;
  if (value === null || value === undefined || value === '') return undefined;
  const ms = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(value) || !value.includes('T') ? value : `${value}Z`);
  if (Number.isNaN(ms)) throw badRequest(`Invalid isoformat string: '${value}'`);
  return new Date(ms).toISOString().replace('Z', '+00:00');
};

/** Curation as upstream does it: edit fields of a live raw fact, invalidate it, or revert it. */
const curate = (server: ServerContext, fact: FactRecord, req: UpdateMemoryRequest, body: unknown): FactRecord => {
  if (req.state !== undefined && req.state !== null && req.state !== 'valid' && req.state !== 'invalidated') {
    throw badRequest(`Invalid state '${req.state}': expected 'valid' or 'invalidated'.`);
  }
  if (req.text !== undefined && req.text !== null && req.text.trim() === '') throw badRequest('text must not be empty.');
  if (req.fact_type !== undefined && req.fact_type !== null && req.fact_type !== 'world' && req.fact_type !== 'experience') {
    throw badRequest(`Invalid fact_type '${req.fact_type}': expected 'world' or 'experience'.`);
  }
  if (fact.fact_type === 'observation') {
    throw badRequest(`Memory '${fact.id}' is a observation; only world/experience facts can be curated. Observations are derived and regenerate from their sources.`);
  }
  const sent = (key: string): boolean => typeof body === 'object' && body !== null && Object.hasOwn(body, key);
  const editing =
    [req.text, req.context, req.fact_type, req.entities].some((v) => v !== undefined && v !== null) || sent('occurred_start') || sent('occurred_end');
  const now = server.nowIso();
  let next: FactRecord = { ...fact };
  if (editing) {
    if (fact.state === 'invalidated') throw badRequest("Cannot edit an invalidated memory; revert it to 'valid' first.");
    const { context: _c, occurred_start: _s, occurred_end: _e, entities: _n, ...rest } = next;
    const context = req.context === undefined || req.context === null ? fact.context : req.context === '' ? undefined : req.context;
    const start = editDate(body, 'occurred_start', req.occurred_start, fact.occurred_start);
    const end = editDate(body, 'occurred_end', req.occurred_end, fact.occurred_end);
    const names = req.entities === undefined || req.entities === null ? undefined : req.entities.map((n) => n.trim()).filter((n, i, all) => n.length > 0 && all.findIndex((m) => m.toLowerCase() === n.toLowerCase()) === i);
    const entities = names === undefined ? fact.entities : names.map((text) => ({ text, type: 'CONCEPT' }));
    next = {
      ...rest,
      text: req.text ?? fact.text,
      fact_type: req.fact_type === 'experience' ? 'experience' : req.fact_type === 'world' ? 'world' : fact.fact_type,
      edited_at: now,
      ...(context === undefined ? {} : { context }),
      ...(start === undefined ? {} : { occurred_start: start }),
      ...(end === undefined ? {} : { occurred_end: end }),
      ...(entities === undefined || entities.length === 0 ? {} : { entities }),
    };
  }
  if (req.state === 'invalidated' && next.state !== 'invalidated') {
    next = { ...next, state: 'invalidated', invalidated_at: now, ...(req.reason === undefined || req.reason === null ? {} : { invalidation_reason: req.reason }) };
  } else if (req.state === 'invalidated' && req.reason !== undefined && req.reason !== null) {
    next = { ...next, invalidation_reason: req.reason };
  } else if (req.state === 'valid' && next.state === 'invalidated') {
    const { state: _st, invalidated_at: _at, invalidation_reason: _r, ...rest } = next;
    next = rest;
  }
  return next;
};

export const memoriesModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: '/v1/default/banks/{bank_id}/memories/list',
      handler: async ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const type = stringParam(query, 'type');
        if ((type === undefined || type === 'observation') && server.store.bank(bankId) !== undefined) {
          await observationsFor(server).ensureFresh(bankId);
        }
        const filter = {
          type,
          documentId: stringParam(query, 'document_id'),
          entityId: stringParam(query, 'entity_id'),
          state: stringParam(query, 'state'),
          q: stringParam(query, 'q')?.toLowerCase(),
          tags: listParam(query, 'tags'),
          tagsMatch: enumParam(query, 'tags_match', TAG_MODES, 'any'),
        };
        const limit = intParam(query, 'limit', 100);
        const offset = intParam(query, 'offset', 0);
        // From the bank's index: only the page's facts are read (the browser polls the newest page each second).
        const index = await browseIndexes(server.store).facts(bankId);
        const { items, total } = await memoryPage(server.store.bank(bankId), index, filter, limit, offset);
        return { body: { items: items.map(itemOf), total, limit, offset } };
      },
    },
    {
      method: 'GET',
      pattern: '/v1/default/banks/{bank_id}/memories/{memory_id}',
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        return { body: detailOf(server, bankId, requireFact(server, bankId, params['memory_id'] ?? '')) };
      },
    },
    {
      method: 'PATCH',
      pattern: '/v1/default/banks/{bank_id}/memories/{memory_id}',
      handler: async ({ params, body, server }) => {
        const bankId = params['bank_id'] ?? '';
        const id = params['memory_id'] ?? '';
        const req = decodeOr422(UpdateMemoryRequest, body ?? {});
        return server.store.exclusive(bankId, async () => {
          const next = curate(server, requireFact(server, bankId, id), req, body);
          await server.store.commit([{ type: 'facts.put', bank_id: bankId, facts: [next] }]);
          return { body: detailOf(server, bankId, next), headers: ignoredHeader(unknownFields(UpdateMemoryRequest, body)) };
        });
      },
    },
    {
      method: 'GET',
      pattern: '/v1/default/banks/{bank_id}/memories/{memory_id}/history',
      // Observations here are rebuilt whole, never edited in place: no change history to show.
      handler: ({ params, server }) => {
        requireFact(server, params['bank_id'] ?? '', params['memory_id'] ?? '');
        return { body: [] };
      },
    },
    {
      method: 'DELETE',
      pattern: '/v1/default/banks/{bank_id}/memories/{memory_id}/observations',
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        const id = params['memory_id'] ?? '';
        return server.store.exclusive(bankId, async () => {
          requireFact(server, bankId, id);
          const bank = server.store.bank(bankId);
          const ids = [...(bank?.facts.values() ?? [])].filter((f) => f.fact_type === 'observation' && (f.source_fact_ids ?? []).includes(id)).map((f) => f.id);
          if (ids.length > 0) await server.store.commit([{ type: 'facts.delete', bank_id: bankId, ids }]);
          return { body: { deleted_count: ids.length } };
        });
      },
    },
  ],
};
