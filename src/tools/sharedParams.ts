/** The parameters several tools share (contract 4.1), declared once. */
import * as t from 'io-ts';
import { ScopeTag } from '../config/codecs.js';
import { TagGroup } from '../config/tagFilter.js';
import { custom, flag, int, list, oneOf, text } from './params.js';

const FACT_TYPES = ['world', 'experience', 'observation'] as const;
const TAGS_MATCH = ['any', 'all', 'any_strict', 'all_strict', 'exact'] as const;
const BUDGETS = ['low', 'mid', 'high'] as const;

const MAX_TAGS = 64;

const isTagGroups = (groups: readonly unknown[]): groups is TagGroup[] => groups.every((group) => TagGroup.is(group));

export const tagParam = custom(ScopeTag, { type: 'string', minLength: 1, maxLength: 128 }, 'A memory tag, e.g. topic:auth');

export const tagsParam = (description: string) => list(tagParam, description, MAX_TAGS);

export const tagsMatchParam = oneOf(
  TAGS_MATCH,
  'How tags match. Always enforced together with the automatic project/user scope filter. exact: memory tags must equal the scope tags plus the given tags exactly.',
);

const MAX_GROUPS = 16;

// The model sees one flat level (a recursive schema breaks some providers); the codec still
// accepts nested and/or/not groups from hosts that build them.
const leafSchema = {
  type: 'object',
  properties: {
    tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 128 }, maxItems: MAX_TAGS },
    match: { type: 'string', enum: ['any', 'all', 'any_strict', 'all_strict', 'exact'] },
  },
  required: ['tags'],
};

const boundedGroups = new t.Type<TagGroup[], unknown, unknown>(
  'TagGroup[]',
  (u): u is TagGroup[] => t.array(TagGroup).is(u) && u.length <= MAX_GROUPS,
  (u, c) => {
    if (!Array.isArray(u)) return t.failure(u, c, 'an array of tag groups');
    if (u.length > MAX_GROUPS) return t.failure(u, c, `at most ${MAX_GROUPS} groups`);
    // One error per bad group: the recursive union's branch-by-branch errors would bury the point.
    const errors: t.Errors = u.flatMap((group, i) =>
      TagGroup.is(group) ? [] : [{ value: group, context: [...c, { key: String(i), type: TagGroup, actual: group }], message: 'a group {tags: string[], match?} or {and: [...]} / {or: [...]} / {not: group}' }],
    );
    return isTagGroups(u) ? t.success(u) : t.failures(errors);
  },
  t.identity,
);

export const tagGroupsParam = custom(
  boundedGroups,
  { type: 'array', items: leafSchema, maxItems: MAX_GROUPS },
  'Compound tag_groups filter, AND-ed with the automatic scope filter. Each group: {tags, match}.',
);

export const includeSharedObservationsParam = flag(
  'Also match shared (untagged) observations in the same bank. Default: config scope.includeSharedObservations.',
);

export const budgetParam = oneOf(BUDGETS, 'Effort for this call (default: config recall.budget).');

export const bankParam = text('Bank id, or the alias project, global or user. Default: the project (coding) bank.', 128);

export const dryRunParam = flag('true (default): preview only, change nothing. false: apply.', true);

export const factTypesParam = (description: string) => list(oneOf(FACT_TYPES, 'Fact type'), description, 3, 1);

/** Token caps: 0 is allowed where the contract gives it a meaning (metadata-only recall). */
export const maxTokensParam = (description: string, min = 1) => int(description, min, 65_536);
