/**
 * Which mental models and knowledge pages a tool call may see and change: only those of the
 * current project's scope. In the shared coding bank every project's objects live side by side,
 * so a tool that listed, read, exported or deleted by bank alone would reach across projects.
 * A project-tier object belongs to this project when it carries its `project:` (or legacy
 * `repo:`) tag; a user-bank object when it carries one of the user scope tags (or there are
 * none). Tags a call gives may not name another project, and a project-tier object always
 * carries this project's tag.
 */
import { isProjectTag, type BankTarget } from '../config/scope.js';
import type { ToolContext } from './context.js';
import { fail, type ToolOutcome } from './result.js';

/** True when an object with `tags` in `target`'s bank belongs to this session's scope. */
export const inProjectScope = (ctx: ToolContext, target: BankTarget, tags: readonly string[] | null | undefined): boolean => {
  const own = tags ?? [];
  if (target.role === 'user') {
    const scopeTags = ctx.scope.userScopeTags;
    return scopeTags.length === 0 || own.some((tag) => scopeTags.includes(tag));
  }
  return own.some((tag) => ctx.scope.projectScopeTags.includes(tag));
};

/** The refusal for an object outside the scope: worded as not found, so it tells nothing about it. */
export const outOfScope = (what: string, id: string, bankId: string): ToolOutcome =>
  fail('rejected', `${what} ${id} is not in this project's scope in ${bankId} (it does not exist or belongs to another project). Nothing was changed.`, { field: 'id' });

/** The tags of `tags` that name a project other than this one (`project:` or legacy `repo:`). */
export const foreignProjectTags = (ctx: ToolContext, tags: readonly string[]): readonly string[] =>
  tags.filter((tag) => isProjectTag(tag) && !ctx.scope.projectScopeTags.includes(tag));

/**
 * The tags an object is created or updated with: a project-tier object always carries this
 * project's tag, and no tag may name another project. `undefined` given stays `undefined` for
 * an update (tags unchanged); `Left` text when a tag names another project.
 */
export const scopedObjectTags = (
  ctx: ToolContext,
  target: BankTarget,
  given: readonly string[] | undefined,
  defaults: readonly string[],
): { readonly tags: string[] } | { readonly refused: string } => {
  const tags = given === undefined || given.length === 0 ? [...defaults] : [...given];
  if (target.role === 'user') return { tags: tags.length === 0 ? ['source:pi'] : tags };
  const foreign = foreignProjectTags(ctx, tags);
  if (foreign.length > 0) {
    return { refused: `tags name another project (${foreign.join(', ')}); a tool call acts only within this project (${ctx.scope.identity.tag}). Nothing was sent.` };
  }
  return { tags: tags.includes(ctx.scope.identity.tag) ? tags : [...tags, ctx.scope.identity.tag] };
};
