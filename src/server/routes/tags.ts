/** `GET {b}/tags`: tags in use with counts; `q` is a case-insensitive wildcard (`*`). */
import { enumParam, intParam, page, stringParam } from '../http/query.js';
import { wildcard } from '../wildcard.js';
import type { RouteModule } from './module.js';

const MENTAL_MODEL_KIND = 'mental_model';

export const tagsModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: '/v1/default/banks/{bank_id}/tags',
      handler: ({ params, query, server }) => {
        const bank = server.store.bank(params['bank_id'] ?? '');
        const q = stringParam(query, 'q');
        // Without a `*`, q matches as a substring.
        const matcher = q === undefined ? undefined : wildcard(q.includes('*') ? q : `*${q}*`, { ignoreCase: true });
        const source = enumParam(query, 'source', ['memories', 'mental_models'] as const, 'memories');
        const limit = intParam(query, 'limit', 100);
        const offset = intParam(query, 'offset', 0);
        const counts = new Map<string, number>();
        const count = (tags: readonly unknown[]): void => {
          for (const tag of tags) if (typeof tag === 'string') counts.set(tag, (counts.get(tag) ?? 0) + 1);
        };
        if (bank !== undefined) {
          if (source === 'memories') for (const f of bank.facts.values()) count(f.tags);
          else
            for (const value of bank.records.get(MENTAL_MODEL_KIND)?.values() ?? []) {
              const tags = typeof value === 'object' && value !== null && !Array.isArray(value) ? value['tags'] : undefined;
              if (Array.isArray(tags)) count(tags);
            }
        }
        const all = [...counts]
          .filter(([tag]) => matcher === undefined || matcher.test(tag))
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .map(([tag, n]) => ({ tag, count: n }));
        return { body: { items: page(all, limit, offset), total: all.length, limit, offset } };
      },
    },
  ],
};
