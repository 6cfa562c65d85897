/** `POST {b}/memories/recall` (reference 1.6, 4). */
import { badRequest, HttpError, unprocessable, valueError } from '../http/errors.js';
import { dropNulls } from '../http/json.js';
import { decodeOr422, ignoredHeader, unknownFields } from '../http/validation.js';
import { observationsFor } from '../features/observationsFor.js';
import { RecallRequest } from '../../wire/hindsight.js';
import { explainRecall } from '../recall/explain.js';
import { ALL_FACT_TYPES, runRecall } from '../recall/recall.js';
import { countTokens } from '../recall/tokens.js';
import type { FactType } from '../store/model.js';
import type { RouteModule } from './module.js';
import { isOneOf } from '../../codecs/codecs.js';

const MAX_QUERY_TOKENS = 500;
const ISO_LIKE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** `null`/`[]` = all; `opinion` silently dropped; anything else unknown is a 422 with a string detail. */
const factTypesOf = (types: readonly string[] | null | undefined): FactType[] => {
  if (types === undefined || types === null || types.length === 0) return [...ALL_FACT_TYPES];
  const kept = types.filter((t) => t !== 'opinion');
  const bad = kept.filter((t) => !isOneOf(ALL_FACT_TYPES, t));
  if (bad.length > 0) throw unprocessable(`Invalid fact type(s): ${bad.join(', ')}. Must be one of: experience, observation, world`);
  return [...new Set(kept.filter((t) => isOneOf(ALL_FACT_TYPES, t)))];
};

export const recallModule: RouteModule = {
  routes: [
    {
      method: 'POST',
      pattern: '/v1/default/banks/{bank_id}/memories/recall',
      keepNulls: true,
      handler: async ({ params, body, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const request = decodeOr422(RecallRequest, body);
        // `?explain=true` (this server's own addition, for the memory browser): why each result ranked.
        const explain = query.get('explain') === 'true';
        if (server.mimic === 'legacy-0.7' && request.tags_match === 'exact') {
          throw new HttpError(422, [
            { type: 'literal_error', loc: ['body', 'tags_match'], msg: "Input should be 'any', 'all', 'any_strict' or 'all_strict'", input: 'exact' },
          ]);
        }
        if (request.tags !== undefined && request.tags !== null && request.tag_groups !== undefined && request.tag_groups !== null) {
          throw valueError(['body'], "'tags' and 'tag_groups' are mutually exclusive. Use 'tag_groups' for compound filtering.");
        }
        if (request.query.toLowerCase().replace(/\W+/g, ' ').trim().length === 0) {
          throw valueError(['body', 'query'], 'query must contain at least one word character', request.query);
        }
        const types = factTypesOf(request.types);
        const queryTokens = countTokens(request.query);
        if (queryTokens > MAX_QUERY_TOKENS) {
          throw badRequest(`Query too long: ${queryTokens} tokens exceeds maximum of ${MAX_QUERY_TOKENS}. Please shorten your query.`);
        }
        const at = request.query_timestamp;
        if (at !== undefined && at !== null && (!ISO_LIKE.test(at) || Number.isNaN(Date.parse(at)))) {
          throw badRequest(`Invalid query_timestamp format: '${at.slice(0, 64)}'. Expected ISO format (e.g., '2023-05-30T23:40:00')`);
        }
        // Observations are consolidated lazily: bring them up to date before they are read.
        if (types.includes('observation') && server.store.bank(bankId) !== undefined) await observationsFor(server).ensureFresh(bankId);
        const headers = ignoredHeader(unknownFields(RecallRequest, body));
        // The body has no nulls but in the trace and the explanation (keepNulls below): only
        // those are walked to drop theirs, not a copy made of every result.
        if (!explain) {
          const { trace, ...rest } = runRecall(server, bankId, { request, types });
          return { headers, body: trace === undefined ? rest : { ...rest, trace: dropNulls(trace) } };
        }
        // The explanation is read off the trace; the trace stays in the body only if it was asked for.
        const { trace, ...rest } = runRecall(server, bankId, { request: { ...request, trace: true }, types });
        const explanation = explainRecall(server, bankId, request.query, { ...rest, trace });
        return { headers, body: { ...rest, ...(request.trace === true ? { trace: dropNulls(trace) } : {}), explain: dropNulls(explanation) } };
      },
    },
  ],
};
