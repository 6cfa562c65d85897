/**
 * Child process for the response-cap test: one recall through the real client adapter against
 * the URL in argv, then prints the failure tag and this process's peak RSS as JSON.
 */
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryServer } from '../../../src/adapters/server/client.js';

const url = process.argv[2] ?? '';
const server = createMemoryServer({ baseUrl: url, timeoutMs: 60_000 });
const before = process.memoryUsage().rss;
const result = await server.recall('cap-bank', { query: 'anything' })();
process.stdout.write(
  `${JSON.stringify({
    outcome: E.isLeft(result) ? result.left._tag : 'ok',
    detail: E.isLeft(result) && result.left._tag === 'responseTooLarge' ? result.left : null,
    rssBeforeBytes: before,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  })}\n`,
);
