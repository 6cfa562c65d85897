/**
 * Observation housekeeping (reference 1.10): delete every observation of a bank (they are
 * rebuilt from the facts on the next consolidation, as upstream does), list the scopes
 * observations live under, and recover failed consolidations (this consolidator retries on
 * the next change by itself, so there is never a failed one waiting).
 */
import { observationsFor } from '../features/observationsFor.js';
import type { RouteModule } from './module.js';

const BANK = '/v1/default/banks/{bank_id}';

export const observationsAdminModule: RouteModule = {
  routes: [
    {
      method: 'DELETE',
      pattern: `${BANK}/observations`,
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        return server.store.exclusive(bankId, async () => {
          const ids = [...(server.store.bank(bankId)?.facts.values() ?? [])].filter((f) => f.fact_type === 'observation').map((f) => f.id);
          if (ids.length > 0) await server.store.commit([{ type: 'facts.delete', bank_id: bankId, ids }]);
          return { body: { success: true, message: `Deleted ${ids.length} observations`, deleted_count: ids.length } };
        });
      },
    },
    {
      method: 'GET',
      pattern: `${BANK}/observations/scopes`,
      handler: async ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        if (server.store.bank(bankId) !== undefined) await observationsFor(server).ensureFresh(bankId);
        const counts = new Map<string, { tags: string[]; count: number }>();
        for (const f of server.store.bank(bankId)?.facts.values() ?? []) {
          if (f.fact_type !== 'observation') continue;
          const tags = [...f.tags].sort();
          const key = JSON.stringify(tags);
          const entry = counts.get(key) ?? { tags, count: 0 };
          entry.count += 1;
          counts.set(key, entry);
        }
        return { body: { scopes: [...counts.values()].sort((a, b) => b.count - a.count || JSON.stringify(a.tags).localeCompare(JSON.stringify(b.tags))) } };
      },
    },
    { method: 'POST', pattern: `${BANK}/consolidation/recover`, handler: () => ({ body: { retried_count: 0 } }) },
  ],
};
