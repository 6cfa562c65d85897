/**
 * Routes a no-LLM server cannot serve (reference 8.3): answered with 400 and the
 * recognisable `capability_unavailable:` prefix, so a client can tell "unsupported here" from
 * "not found"; and the two routes upstream always answers 410 Gone.
 */
import { capabilityUnavailable, HttpError } from '../http/errors.js';
import type { Route } from '../http/router.js';
import type { RouteModule } from './module.js';

const BANK = '/v1/default/banks/{bank_id}';

const unavailable = (pattern: string, feature: string, multipart = false): Route => ({
  method: 'POST',
  pattern,
  multipart,
  handler: () => {
    throw capabilityUnavailable(feature);
  },
});

export const capabilitiesModule: RouteModule = {
  routes: [
    unavailable(`${BANK}/memories/dry-run-extract`, 'dry-run fact extraction (needs an LLM)'),
    unavailable(`${BANK}/files/retain`, 'file retain (no file conversion)', true),
    unavailable(`${BANK}/consolidate`, 'manual consolidation'),
    unavailable(`${BANK}/health/llm`, 'LLM health check (no LLM is configured)'),
    {
      method: 'POST',
      pattern: `${BANK}/entities/{entity_id}/regenerate`,
      handler: () => {
        throw new HttpError(410, 'Entity observation regeneration was removed; entity summaries now live in mental models.');
      },
    },
    {
      method: 'GET',
      pattern: `${BANK}/document-transfer`,
      handler: () => {
        throw new HttpError(410, 'Synchronous document export was removed; use POST /document-transfer/export.');
      },
    },
  ],
};
