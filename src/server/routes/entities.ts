/**
 * `GET {b}/entities`, `{b}/entities/graph` and `{b}/entities/{entity_id}` (reference 1.11):
 * the entities the bank's facts name, counted and linked by co-occurrence, derived from the
 * bank's fact index (`features/factIndex.ts`; reading every stored fact on each call took 0.4 s
 * at 100k memories). Regenerate stays 410, as upstream answers.
 */
import { badRequest, notFound } from '../http/errors.js';
import { intParam } from '../http/query.js';
import { byMentions } from '../features/entities.js';
import type { BankEntity } from '../features/entities.js';
import { browseIndexes } from '../features/browseIndexes.js';
import type { RouteModule } from './module.js';

const BANK = '/v1/default/banks/{bank_id}';
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

const itemOf = (e: BankEntity): Record<string, unknown> => ({
  id: e.id,
  canonical_name: e.canonicalName,
  mention_count: e.factIds.length,
  first_seen: e.firstSeen ?? null,
  last_seen: e.lastSeen ?? null,
  metadata: {},
});

export const entitiesModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: `${BANK}/entities`,
      handler: async ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const limit = intParam(query, 'limit', 100, 1, 1000);
        const offset = intParam(query, 'offset', 0);
        const q = query.get('q')?.toLowerCase();
        const all = [...((await browseIndexes(server.store).facts(bankId))?.entities().values() ?? [])]
          .filter((e) => q === undefined || e.canonicalName.toLowerCase().includes(q))
          .sort(byMentions);
        return { body: { items: all.slice(offset, offset + limit).map(itemOf), total: all.length, limit, offset } };
      },
    },
    {
      method: 'GET',
      pattern: `${BANK}/entities/graph`,
      handler: async ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const limit = intParam(query, 'limit', 1000, 1, 10000);
        const minCount = intParam(query, 'min_count', 1, 1);
        const index = await browseIndexes(server.store).facts(bankId);
        const entities = index?.entities() ?? new Map<string, BankEntity>();
        const edges = (index?.cooccurrences() ?? [])
          .filter((p) => p.count >= minCount)
          .slice(0, limit);
        const nodeIds = [...new Set(edges.flatMap((p) => [p.source, p.target]))];
        const nodes = nodeIds.flatMap((id) => {
          const e = entities.get(id);
          if (e === undefined) return [];
          const mentions = e.factIds.length;
          return [{ data: { id, label: e.canonicalName, mentionCount: mentions, color: mentions > 1 ? '#42a5f5' : '#90caf9' } }];
        });
        const edgeBodies = edges.map((p) => ({
          data: { id: `${p.source}-${p.target}`, source: p.source, target: p.target, linkType: 'cooccurrence', weight: p.count, color: '#ffd700', lineStyle: 'solid', lastCooccurred: p.last },
        }));
        return { body: { nodes, edges: edgeBodies, total_entities: nodes.length, total_edges: edgeBodies.length, limit } };
      },
    },
    {
      method: 'GET',
      pattern: `${BANK}/entities/{entity_id}`,
      handler: async ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        const id = params['entity_id'] ?? '';
        if (!UUID.test(id)) throw badRequest(`Invalid entity_id: '${id}' is not a valid UUID`);
        const entity = (await browseIndexes(server.store).facts(bankId))?.entities().get(id.toLowerCase());
        if (entity === undefined) throw notFound(`Entity '${id}' not found`);
        // Entity summaries moved to mental models upstream; the list stays empty there too.
        return { body: { ...itemOf(entity), observations: [] } };
      },
    },
  ],
};
