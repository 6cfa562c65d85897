/** `GET {b}/tags`: tags in use with counts; `q` is a case-insensitive wildcard (`*`). */
import { enumParam, intParam, page, stringParam } from '../http/query.js';
import type { RouteModule } from './module.js';

const MENTAL_MODEL_KIND = 'mental_model';

/**
 * A case-insensitive `*` wildcard, matched without a regex: `^.*a.*a.*a…$` backtracks in time
 * that grows as a power of the number of stars (12 stars against a 40-letter tag froze the
 * server's one event loop for every bank). The first part must start the tag, the last end it,
 * and each part between is taken at its first place after the one before: for `*` alone the
 * earliest place never loses a match, so each part is looked for once.
 */
const wildcard = (pattern: string): { test(tag: string): boolean } => {
  const parts = pattern.toLowerCase().split('*');
  const first = parts[0] ?? '';
  const last = parts.length > 1 ? (parts[parts.length - 1] ?? '') : undefined;
  const middle = parts.slice(1, -1);
  return {
    test: (raw) => {
      const tag = raw.toLowerCase();
      if (last === undefined) return tag === first;
      if (tag.length < first.length + last.length || !tag.startsWith(first) || !tag.endsWith(last)) return false;
      let at = first.length;
      const end = tag.length - last.length;
      for (const part of middle) {
        const found = tag.indexOf(part, at);
        if (found < 0 || found + part.length > end) return false;
        at = found + part.length;
      }
      return true;
    },
  };
};

export const tagsModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: '/v1/default/banks/{bank_id}/tags',
      handler: ({ params, query, server }) => {
        const bank = server.store.bank(params['bank_id'] ?? '');
        const q = stringParam(query, 'q');
        // Without a `*`, q matches as a substring.
        const matcher = q === undefined ? undefined : wildcard(q.includes('*') ? q : `*${q}*`);
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
