/** `GET {b}/memories/list` and `GET {b}/memories/{memory_id}` (reference 1.10). */
import { notFound } from '../http/errors.js';
import { enumParam, intParam, listParam, page, stringParam } from '../http/query.js';
import { matchesFlat } from '../recall/tagFilter.js';
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
  state: 'valid',
  invalidation_reason: null,
  invalidated_at: null,
  edited_at: null,
});

/** `mentioned_at` desc with nulls last, then `created_at` desc. */
const newestFirst = (a: FactRecord, b: FactRecord): number => {
  if (a.mentioned_at !== b.mentioned_at) {
    if (a.mentioned_at === undefined) return 1;
    if (b.mentioned_at === undefined) return -1;
    return b.mentioned_at.localeCompare(a.mentioned_at);
  }
  return b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id);
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
        const bank = server.store.bank(bankId);
        const q = stringParam(query, 'q')?.toLowerCase();
        const documentId = stringParam(query, 'document_id');
        const tags = listParam(query, 'tags');
        const mode = enumParam(query, 'tags_match', TAG_MODES, 'any');
        const limit = intParam(query, 'limit', 100);
        const offset = intParam(query, 'offset', 0);
        const all = [...(bank?.facts.values() ?? [])]
          .filter(
            (f) =>
              (type === undefined || f.fact_type === type) &&
              (documentId === undefined || f.document_id === documentId) &&
              (q === undefined || f.text.toLowerCase().includes(q)) &&
              matchesFlat(tags, mode, f.tags),
          )
          .sort(newestFirst);
        return { body: { items: page(all, limit, offset).map(itemOf), total: all.length, limit, offset } };
      },
    },
    {
      method: 'GET',
      pattern: '/v1/default/banks/{bank_id}/memories/{memory_id}',
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        const id = params['memory_id'] ?? '';
        const fact = server.store.bank(bankId)?.facts.get(id);
        if (fact === undefined) throw notFound(`Memory unit '${id}' not found`);
        return { body: { ...itemOf(fact), bank_id: bankId } };
      },
    },
  ],
};
