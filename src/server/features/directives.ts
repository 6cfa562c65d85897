/**
 * Directives: hard rules a reflect answer carries. Request codecs, the stored record, the
 * list filter (untagged directives always listed) and the reflect selection of reference
 * 2.5 (global ones always; tagged ones only when the request's tag scope matches them).
 */
import * as t from 'io-ts';
import { nullable } from '../../codecs/codecs.js';
import type { TagGroup, TagsMatch } from '../recall/tagFilter.js';


export const DIRECTIVE_KIND = 'directive';

export const CreateDirectiveBody = t.intersection([
  t.type({ name: t.string, content: t.string }),
  t.partial({ priority: t.Int, is_active: t.boolean, tags: t.array(t.string) }),
]);
export type CreateDirectiveBody = t.TypeOf<typeof CreateDirectiveBody>;

export const UpdateDirectiveBody = t.partial({
  name: nullable(t.string),
  content: nullable(t.string),
  priority: nullable(t.Int),
  is_active: nullable(t.boolean),
  tags: nullable(t.array(t.string)),
});
export type UpdateDirectiveBody = t.TypeOf<typeof UpdateDirectiveBody>;

export const DirectiveRecord = t.type({
  id: t.string,
  name: t.string,
  content: t.string,
  priority: t.number,
  is_active: t.boolean,
  tags: t.array(t.string),
  created_at: t.string,
  updated_at: t.string,
});
export type DirectiveRecord = t.TypeOf<typeof DirectiveRecord>;

export type DirectiveListMatch = 'any' | 'all' | 'exact';

/** The list filter: no tags lists all; untagged directives are always included. */
export const directiveListed = (directive: DirectiveRecord, tags: readonly string[] | undefined, mode: DirectiveListMatch, activeOnly: boolean): boolean => {
  if (activeOnly && !directive.is_active) return false;
  if (tags === undefined || tags.length === 0 || directive.tags.length === 0) return true;
  switch (mode) {
    case 'any':
      return tags.some((tag) => directive.tags.includes(tag));
    case 'all':
      return tags.every((tag) => directive.tags.includes(tag));
    case 'exact': {
      const want = new Set(tags);
      const have = new Set(directive.tags);
      return want.size === have.size && [...want].every((tag) => have.has(tag));
    }
  }
};

/** Higher priority first, then oldest first, then id: the order directives are applied in. */
export const compareDirectives = (a: DirectiveRecord, b: DirectiveRecord): number =>
  b.priority - a.priority || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export interface ReflectTagScope {
  readonly tags?: readonly string[] | null | undefined;
  readonly tagsMatch?: TagsMatch | undefined;
  readonly tagGroups?: readonly TagGroup[] | null | undefined;
}

/**
 * The active directives a reflect applies. `rowMatches` is the recall tag predicate of the
 * request's scope, evaluated on a directive's tags as if it were a memory.
 */
export const directivesForReflect = (
  all: readonly DirectiveRecord[],
  scope: ReflectTagScope,
  applyAll: boolean,
  rowMatches: (tags: readonly string[]) => boolean,
): DirectiveRecord[] => {
  const scoped = (scope.tags !== undefined && scope.tags !== null) || (scope.tagGroups !== undefined && scope.tagGroups !== null);
  return all
    .filter((d) => d.is_active)
    .filter((d) => applyAll || d.tags.length === 0 || (scoped && rowMatches(d.tags)))
    .sort(compareDirectives);
};

/** `DirectiveResponse` for a stored directive. */
export const directiveResponse = (bankId: string, d: DirectiveRecord): Record<string, unknown> => ({
  id: d.id,
  bank_id: bankId,
  name: d.name,
  content: d.content,
  priority: d.priority,
  is_active: d.is_active,
  tags: d.tags,
  created_at: d.created_at,
  updated_at: d.updated_at,
});
