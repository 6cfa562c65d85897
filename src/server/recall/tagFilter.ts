/**
 * Tag filtering exactly as upstream (reference section 2): five flat modes, where an empty
 * request list means "no filter" except for `exact` (untagged only), and `tag_groups`
 * (leaf default `any_strict`, and/or/not, top level AND-ed; a leaf never means "no filter").
 */

import { TagGroup, TagsMatch } from '../../wire/hindsight.js';

export { TagGroup, TagsMatch };

/** One mode over one row's tag set; `requested` is non-empty or the caller decided it matters. */
const leafMatches = (mode: TagsMatch, requested: readonly string[], row: readonly string[]): boolean => {
  const untagged = row.length === 0;
  const rowSet = new Set(row);
  const overlap = requested.some((tag) => rowSet.has(tag));
  const containsAll = requested.every((tag) => rowSet.has(tag));
  switch (mode) {
    case 'any':
      return untagged || overlap;
    case 'all':
      return untagged || containsAll;
    case 'any_strict':
      return !untagged && overlap;
    case 'all_strict':
      return !untagged && containsAll;
    case 'exact': {
      const want = new Set(requested);
      return containsAll && row.every((tag) => want.has(tag));
    }
  }
};

/** The flat `tags` + `tags_match` filter. */
export const matchesFlat = (tags: readonly string[] | null | undefined, mode: TagsMatch, row: readonly string[]): boolean => {
  const requested = tags ?? [];
  if (requested.length === 0) return mode === 'exact' ? row.length === 0 : true;
  return leafMatches(mode, requested, row);
};

export const matchesGroup = (group: TagGroup, row: readonly string[]): boolean => {
  if ('tags' in group) {
    const mode = group.match ?? 'any_strict';
    if (group.tags.length === 0) {
      // A leaf never means "no filter": an empty list is evaluated literally.
      switch (mode) {
        case 'exact':
        case 'any':
          return row.length === 0;
        case 'any_strict':
          return false;
        case 'all':
          return true;
        case 'all_strict':
          return row.length > 0;
      }
    }
    return leafMatches(mode, group.tags, row);
  }
  if ('and' in group) return group.and.every((g) => matchesGroup(g, row));
  if ('or' in group) return group.or.some((g) => matchesGroup(g, row));
  return !matchesGroup(group.not, row);
};

export interface TagFilter {
  readonly tags?: readonly string[] | null;
  readonly tagsMatch?: TagsMatch;
  readonly tagGroups?: readonly TagGroup[] | null;
}

/** Flat filter AND every top-level group. */
export const matchesTagFilter = (filter: TagFilter, row: readonly string[]): boolean =>
  matchesFlat(filter.tags, filter.tagsMatch ?? 'any', row) && (filter.tagGroups ?? []).every((g) => matchesGroup(g, row));
