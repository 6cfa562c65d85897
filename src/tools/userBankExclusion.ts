/**
 * What a reflect on the user bank must leave out: memories a project wrote there (they carry a
 * `project:` or `repo:` tag; `fitsUserBank`). Recall filters its results itself, but a reflect's
 * answer is synthesised on the server, so the project tags in use in the bank are listed first
 * and excluded by the request's own tag filter (`{not: ...}`).
 */
import * as E from 'fp-ts/lib/Either.js';
import type { TagGroup } from '../config/tagFilter.js';
import type { ToolContext } from './context.js';
import { callOptions, failureOutcome, runCall } from './serverCall.js';
import { fail, type ToolOutcome } from './result.js';

/** At most this many project tags are excluded; a bank with more is refused rather than half filtered. */
const MAX_EXCLUDED = 1000;

export const projectTagExclusion = async (ctx: ToolContext, bankId: string, what: string): Promise<E.Either<ToolOutcome, TagGroup | undefined>> => {
  const found: string[] = [];
  for (const q of ['project:*', 'repo:*']) {
    const listed = await runCall(ctx.server.listTags(bankId, { q, limit: MAX_EXCLUDED }, callOptions(ctx)));
    if (E.isLeft(listed)) return E.left(failureOutcome(ctx, `${what} (listing the project tags to leave out of your personal memory)`, listed.left));
    if ((listed.right.total ?? listed.right.items.length) > MAX_EXCLUDED) {
      return E.left(fail('rejected', `${what}: ${bankId} holds memories of more than ${MAX_EXCLUDED} projects, which a reflect on your personal memory cannot leave out; nothing was sent.`));
    }
    // The listing matches case-blind; only a tag that is a project tag as written is one.
    found.push(...listed.right.items.map((i) => i.tag).filter((tag) => tag.startsWith(q.slice(0, -1))));
  }
  return E.right(found.length === 0 ? undefined : { not: { tags: [...new Set(found)], match: 'any_strict' } });
};
