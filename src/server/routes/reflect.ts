/**
 * `POST {b}/reflect`: extractive reflect (reference 1.7, 5, 8.4). No LLM: the answer is
 * built from recalled facts, observations and mental models; `response_schema` is checked
 * like upstream (422 when malformed) and then refused with a capability error, since there
 * is no model to fill it.
 */
import { capabilityUnavailable, HttpError, valueError } from '../http/errors.js';
import { decodeOr422, ignoredHeader, unknownFields } from '../http/validation.js';
import { ReflectRequest } from '../../wire/hindsight.js';
import { closeObservations, observationsFor } from '../features/observationsFor.js';
import { runReflect } from '../features/reflectEngine.js';
import { responseSchemaProblem } from '../features/responseSchema.js';
import { ensureBankMutations } from './bankOps.js';
import type { RouteModule } from './module.js';



export const reflectModule: RouteModule = {
  routes: [
    {
      method: 'POST',
      pattern: '/v1/default/banks/{bank_id}/reflect',
      handler: async ({ params, body, server }) => {
        const bankId = params['bank_id'] ?? '';
        const req = decodeOr422(ReflectRequest, body);
        // An older server knows neither `exact` (0.8.2) nor `apply_all_directives` (0.8.6).
        const legacy = server.mimic === 'legacy-0.7';
        if (legacy && req.tags_match === 'exact') {
          throw new HttpError(422, [
            { type: 'literal_error', loc: ['body', 'tags_match'], msg: "Input should be 'any', 'all', 'any_strict' or 'all_strict'", input: 'exact' },
          ]);
        }
        const ignored = unknownFields(ReflectRequest, body);
        if (legacy && req.apply_all_directives !== undefined) ignored.push('apply_all_directives');
        const tags = req.tags ?? null;
        const groups = req.tag_groups ?? null;
        if (tags !== null && groups !== null) {
          throw valueError(['body'], "'tags' and 'tag_groups' are mutually exclusive. Use 'tag_groups' for compound filtering.");
        }
        if (req.fact_types !== undefined && req.fact_types !== null && req.fact_types.length === 0) {
          throw valueError(['body', 'fact_types'], 'fact_types must not be empty; omit it (null) to use all fact types');
        }
        if (req.response_schema !== undefined && req.response_schema !== null) {
          const problem = responseSchemaProblem(req.response_schema);
          if (problem !== undefined) throw valueError(['body', 'response_schema'], problem);
          throw capabilityUnavailable('reflect response_schema (structured output needs an LLM)');
        }
        const query = req.context === undefined || req.context === null || req.context.length === 0 ? req.query : `${req.query}\n\nAdditional context: ${req.context}`;
        const created = ensureBankMutations(server, bankId);
        if (created.length > 0) await server.store.commit(created);
        const toolCalls = req.include?.tool_calls ?? null;
        const answer = await runReflect(server, bankId, {
          query,
          budget: req.budget ?? 'low',
          maxTokens: req.max_tokens ?? 4096,
          factTypes: req.fact_types ?? undefined,
          filter: { tags, tagsMatch: req.tags_match ?? 'any', tagGroups: groups },
          excludeMentalModels: req.exclude_mental_models ?? false,
          excludeMentalModelIds: req.exclude_mental_model_ids ?? [],
          applyAllDirectives: legacy ? false : (req.apply_all_directives ?? false),
          includeFacts: req.include?.facts !== undefined && req.include.facts !== null,
          toolCalls: toolCalls === null ? null : { output: toolCalls.output ?? true },
        });
        return { body: answer, headers: ignoredHeader(ignored) };
      },
    },
  ],
  // Observations are consolidated from start-up on (background, after writes settle), not only on first read.
  operations: (server) => {
    observationsFor(server);
    return {};
  },
  close: closeObservations,
};
