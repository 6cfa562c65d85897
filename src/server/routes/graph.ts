/**
 * `GET {b}/graph` (reference 1.12): the bank's memory units as graph nodes, linked when they
 * name the same entity (this server has no semantic or temporal links), plus the table rows
 * the upstream UI shows beside the graph.
 */
import { intParam, listParam, stringParam } from '../http/query.js';
import { graphUnits } from '../features/browseQueries.js';
import type { TagsMatch } from '../recall/tagFilter.js';
import { browseIndexes } from '../features/browseIndexes.js';
import type { FactRecord } from '../store/model.js';
import type { RouteModule } from './module.js';
import { isOneOf } from '../../codecs/codecs.js';

const MODES: readonly TagsMatch[] = ['any', 'all', 'any_strict', 'all_strict', 'exact'];

export const graphModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: '/v1/default/banks/{bank_id}/graph',
      handler: async ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const type = stringParam(query, 'type');
        const limit = intParam(query, 'limit', 1000, 1, 100_000);
        const q = stringParam(query, 'q')?.toLowerCase();
        const tags = listParam(query, 'tags');
        const rawMode = stringParam(query, 'tags_match') ?? 'all_strict';
        const mode = isOneOf(MODES, rawMode) ? rawMode : 'all_strict';
        const documentId = stringParam(query, 'document_id');
        const chunkId = stringParam(query, 'chunk_id');
        const filter = { type, q, documentId, chunkId, tags, tagsMatch: mode };
        // From the bank's index, in its created_at order: only the units shown are read.
        const index = await browseIndexes(server.store).facts(bankId);
        const { items: units, total } = await graphUnits(server.store.bank(bankId), index, filter, limit);
        const byEntity = new Map<string, FactRecord[]>();
        for (const f of units) {
          for (const e of f.entities ?? []) {
            const key = e.text.toLowerCase();
            const facts = byEntity.get(key);
            if (facts === undefined) byEntity.set(key, [f]);
            else facts.push(f);
          }
        }
        const edges = new Map<string, { from: string; to: string; type: string; weight: number }>();
        for (const facts of byEntity.values()) {
          for (let i = 0; i < facts.length; i += 1) {
            for (let j = i + 1; j < facts.length; j += 1) {
              const a = facts[i]?.id ?? '';
              const b = facts[j]?.id ?? '';
              const key = a < b ? `${a}|${b}` : `${b}|${a}`;
              const edge = edges.get(key) ?? { from: a < b ? a : b, to: a < b ? b : a, type: 'entity', weight: 0 };
              edge.weight += 1;
              edges.set(key, edge);
            }
          }
        }
        return {
          body: {
            nodes: units.map((f) => ({ id: f.id, label: f.text.slice(0, 80), type: f.fact_type })),
            edges: [...edges.values()],
            table_rows: units.map((f) => ({
              id: f.id,
              text: f.text,
              context: f.context ?? '',
              date: f.mentioned_at ?? '',
              entities: (f.entities ?? []).map((e) => `${e.text} (${e.type ?? 'CONCEPT'})`).join(', '),
            })),
            total_units: total,
            limit,
          },
        };
      },
    },
  ],
};
