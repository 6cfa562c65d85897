/**
 * Bank templates (reference 1.14): `GET {b}/export` writes the bank's config overrides,
 * mental models and directives as a version-1 manifest; `POST {b}/import` applies one
 * (config as overrides, mental models matched by id, directives by name) through the same
 * handlers the direct routes use, so validation and refresh scheduling are the routes' own;
 * `GET /v1/bank-template-schema` is the manifest's JSON Schema from the shipped spec.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as t from 'io-ts';
import type { ServerContext } from '../context.js';
import { badRequest, HttpError, notFound } from '../http/errors.js';
import type { Route } from '../http/router.js';
import type { Reply } from '../http/types.js';
import { decodeOr422 } from '../http/validation.js';
import { checkConfigUpdates, CONFIG_KIND, CONFIG_OVERRIDES_ID } from '../features/bankConfig.js';
import { DIRECTIVE_KIND, DirectiveRecord } from '../features/directives.js';
import { MENTAL_MODEL_KIND, MentalModelRecord } from '../features/mentalModels.js';
import { readRecord, readRecords } from '../features/records.js';
import { bankProfileModule } from './bankProfile.js';
import { directivesModule } from './directives.js';
import { mentalModelsModule } from './mentalModels.js';
import type { RouteModule } from './module.js';

const BANK = '/v1/default/banks/{bank_id}';

const Manifest = t.intersection([
  t.type({ version: t.string }),
  t.partial({
    bank: t.union([t.record(t.string, t.unknown), t.null]),
    mental_models: t.union([t.array(t.intersection([t.type({ id: t.string, name: t.string, source_query: t.string }), t.record(t.string, t.unknown)])), t.null]),
    directives: t.union([t.array(t.intersection([t.type({ name: t.string, content: t.string }), t.record(t.string, t.unknown)])), t.null]),
  }),
]);

/** Runs another module's handler as if the request had been made to it. */
const invoke = async (module: RouteModule, method: string, pattern: string, server: ServerContext, params: Record<string, string>, body: unknown): Promise<Reply> => {
  const route: Route | undefined = module.routes.find((r) => r.method === method && r.pattern === pattern);
  if (route === undefined) throw new HttpError(500, `bank template import: no ${method} ${pattern} route`);
  return route.handler({ method, path: pattern, params, query: new URLSearchParams(), headers: {}, body, server });
};

const here = dirname(fileURLToPath(import.meta.url));
const specCandidates = [join(here, '..', '..', '..', 'fixtures', 'hindsight', 'openapi.json'), join(here, '..', 'fixtures', 'hindsight', 'openapi.json')];
let schemaCache: unknown;
const manifestSchema = (): unknown => {
  if (schemaCache !== undefined) return schemaCache;
  const path = specCandidates.find((p) => existsSync(p));
  if (path === undefined) throw notFound('The bank template schema ships with the OpenAPI document, which is missing from this install');
  const spec = JSON.parse(readFileSync(path, 'utf8')) as { components: { schemas: Record<string, unknown> } };
  const schemas = spec.components.schemas;
  // A standalone JSON Schema: the manifest at the root, what it refers to under $defs.
  const text = JSON.stringify(schemas['BankTemplateManifest']).replaceAll('#/components/schemas/', '#/$defs/');
  const defs = JSON.parse(JSON.stringify(schemas).replaceAll('#/components/schemas/', '#/$defs/')) as Record<string, unknown>;
  schemaCache = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...(JSON.parse(text) as object), $defs: defs };
  return schemaCache;
};

const exportManifest = (server: ServerContext, bankId: string): Record<string, unknown> => {
  const overrides = server.store.bank(bankId)?.records.get(CONFIG_KIND)?.get(CONFIG_OVERRIDES_ID);
  const models = readRecords(server, bankId, MENTAL_MODEL_KIND, MentalModelRecord);
  const directives = readRecords(server, bankId, DIRECTIVE_KIND, DirectiveRecord);
  return {
    version: '1',
    bank: typeof overrides === 'object' && overrides !== null ? overrides : {},
    mental_models: models.map((m) => ({ id: m.id, name: m.name, source_query: m.source_query, tags: m.tags, max_tokens: m.max_tokens, trigger: m.trigger ?? {} })),
    directives: directives.map((d) => ({ name: d.name, content: d.content, priority: d.priority, is_active: d.is_active, tags: d.tags })),
  };
};

export const bankTemplatesModule: RouteModule = {
  routes: [
    { method: 'GET', pattern: '/v1/bank-template-schema', handler: () => ({ body: manifestSchema() }) },
    {
      method: 'GET',
      pattern: `${BANK}/export`,
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        if (server.store.bank(bankId) === undefined) throw notFound(`Bank '${bankId}' not found`);
        return { body: exportManifest(server, bankId) };
      },
    },
    {
      method: 'POST',
      pattern: `${BANK}/import`,
      handler: async ({ params, query, body, server }) => {
        const bankId = params['bank_id'] ?? '';
        const manifest = decodeOr422(Manifest, body);
        if (manifest.version !== '1') throw badRequest(`Unsupported manifest version '${manifest.version}': this server reads version '1'`);
        const dryRun = query.get('dry_run') === 'true';
        const config = manifest.bank ?? undefined;
        if (config !== undefined) {
          const checked = checkConfigUpdates(config);
          if ('problem' in checked) throw badRequest(checked.problem);
        }
        const created: string[] = [];
        const updated: string[] = [];
        const directivesCreated: string[] = [];
        const directivesUpdated: string[] = [];
        const operationIds: string[] = [];
        const existingDirectives = readRecords(server, bankId, DIRECTIVE_KIND, DirectiveRecord);
        for (const m of manifest.mental_models ?? []) (readRecord(server, bankId, MENTAL_MODEL_KIND, m.id, MentalModelRecord) === undefined ? created : updated).push(m.id);
        for (const d of manifest.directives ?? []) (existingDirectives.some((e) => e.name === d.name) ? directivesUpdated : directivesCreated).push(d.name);
        if (!dryRun) {
          const p = { bank_id: bankId };
          if (config !== undefined) await invoke(bankProfileModule, 'PATCH', `${BANK}/config`, server, p, { updates: config });
          else if (server.store.bank(bankId) === undefined) await invoke(bankProfileModule, 'PATCH', `${BANK}/config`, server, p, { updates: {} });
          for (const m of manifest.mental_models ?? []) {
            const { id, ...fields } = m;
            const reply = updated.includes(id)
              ? await invoke(mentalModelsModule, 'PATCH', `${BANK}/mental-models/{mental_model_id}`, server, { ...p, mental_model_id: id }, fields)
              : await invoke(mentalModelsModule, 'POST', `${BANK}/mental-models`, server, p, m);
            const op = (reply.body as Record<string, unknown> | null)?.['operation_id'];
            if (typeof op === 'string') operationIds.push(op);
          }
          for (const d of manifest.directives ?? []) {
            const existing = existingDirectives.find((e) => e.name === d.name);
            if (existing === undefined) await invoke(directivesModule, 'POST', `${BANK}/directives`, server, p, d);
            else await invoke(directivesModule, 'PATCH', `${BANK}/directives/{directive_id}`, server, { ...p, directive_id: existing.id }, d);
          }
        }
        return {
          body: {
            bank_id: bankId,
            config_applied: config !== undefined && !dryRun,
            mental_models_created: created,
            mental_models_updated: updated,
            directives_created: directivesCreated,
            directives_updated: directivesUpdated,
            operation_ids: operationIds,
            dry_run: dryRun,
          },
        };
      },
    },
  ],
};
