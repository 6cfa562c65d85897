/**
 * Tag filter composition for recall and reflect. The automatic scope filter is always part
 * of the result: caller tags and groups are AND-ed with it (they can only narrow), `exact`
 * folds the scope tags into the exact set (AND-ing a separate scope group with an exact set
 * would be unsatisfiable), and shared observations are OR-ed in as an exact-empty leaf.
 */
import * as t from 'io-ts';
import { select } from './codecs.js';

const tagsMatch = select(['any', 'all', 'any_strict', 'all_strict', 'exact']);
export const TagsMatch = tagsMatch.codec;
export type TagsMatch = t.TypeOf<typeof TagsMatch>;
export const tagsMatchModes = tagsMatch.choices;

export interface TagLeaf {
  tags: string[];
  match?: TagsMatch;
}
export type TagGroup = TagLeaf | { and: TagGroup[] } | { or: TagGroup[] } | { not: TagGroup };

/** The server's `tag_groups` element: a leaf `{tags, match}` or `{and}`, `{or}`, `{not}`. */
export const TagGroup: t.Type<TagGroup> = t.recursion('TagGroup', () =>
  t.union([
    t.intersection([t.type({ tags: t.array(t.string) }), t.partial({ match: TagsMatch })]),
    t.type({ and: t.array(TagGroup) }),
    t.type({ or: t.array(TagGroup) }),
    t.type({ not: TagGroup }),
  ]),
);

export interface TagFilterInput {
  /** The automatic scope tags of the bank (project: + repo:, or the user scope tags). */
  readonly scopeTags: readonly string[];
  readonly tags?: readonly string[] | undefined;
  readonly tagsMatch?: TagsMatch | undefined;
  readonly tagGroups?: readonly TagGroup[] | undefined;
  readonly includeSharedObservations?: boolean | undefined;
}

/** The request fields. Groups are used whenever there is a filter, so `tags` stays unset (422 otherwise). */
export interface TagFilter {
  readonly tags?: string[];
  readonly tags_match?: TagsMatch;
  readonly tag_groups?: TagGroup[];
}

const unique = (tags: readonly string[]): string[] => [...new Set(tags)];

const SHARED: TagLeaf = { tags: [], match: 'exact' };

export const composeTagFilter = (input: TagFilterInput): TagFilter => {
  const scope = unique(input.scopeTags);
  const caller = unique(input.tags ?? []);
  const shared = input.includeSharedObservations === true;
  const withShared = (leaf: TagGroup): TagGroup => (shared ? { or: [leaf, SHARED] } : leaf);
  const groups: TagGroup[] = [];

  if (input.tagsMatch === 'exact' && caller.length > 0) {
    // Memory tags must equal scope tags plus the caller's tags, exactly.
    groups.push(withShared({ tags: unique([...scope, ...caller]), match: 'exact' }));
  } else {
    if (scope.length > 0) groups.push(withShared({ tags: scope, match: 'any_strict' }));
    else if (shared) groups.push(SHARED);
    if (caller.length > 0) groups.push({ tags: caller, match: input.tagsMatch ?? 'any_strict' });
  }
  // The top-level list is AND-ed: a caller group can narrow the result, never widen it.
  groups.push(...(input.tagGroups ?? []));
  return groups.length === 0 ? {} : { tag_groups: groups };
};
