/** `/version`, `/health*`, `/openapi.json`: what a client probes before anything else. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Mimic } from '../context.js';
import { notFound } from '../http/errors.js';
import type { RouteModule } from './module.js';

/**
 * Feature flags of reference section 7 for a server with no LLM. Exactly the keys the version
 * declares: strict clients refuse unknown ones, so the embedded marker is the
 * `X-Hindsight-Embedded` header only.
 */
const featuresFor = (_mimic: Mimic): Record<string, boolean> => ({
  observations: false,
  mcp: false,
  worker: true,
  bank_config_api: true,
  bank_llm_health: false,
  file_upload_api: false,
  document_export_api: false,
  document_import_api: false,
  audit_log: false,
  llm_trace: false,
  store_document_text: true,
});

const startedAt = Date.now();

// The spec ships in the repository's fixtures; from a bundle in dist/ it is one level up.
const here = dirname(fileURLToPath(import.meta.url));
const specCandidates = [join(here, '..', '..', '..', 'fixtures', 'hindsight', 'openapi.json'), join(here, '..', 'fixtures', 'hindsight', 'openapi.json')];
let specCache: unknown;
const loadSpec = (): unknown => {
  if (specCache !== undefined) return specCache;
  const path = specCandidates.find((p) => existsSync(p));
  if (path === undefined) throw notFound();
  const spec: unknown = JSON.parse(readFileSync(path, 'utf8'));
  specCache = spec;
  return specCache;
};

const healthy = { status: 'healthy', database: 'connected', db_acquire_ms: 0 };

export const metaModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: '/version',
      handler: ({ server }) => ({ body: { api_version: server.apiVersion, features: featuresFor(server.mimic) } }),
    },
    { method: 'GET', pattern: '/health', handler: () => ({ body: healthy }) },
    { method: 'GET', pattern: '/health/ready', since: '0.9.1', handler: () => ({ body: healthy }) },
    {
      method: 'GET',
      pattern: '/health/live',
      since: '0.9.1',
      handler: ({ server }) => ({
        body: { status: 'alive', version: server.apiVersion, uptime_seconds: Math.floor((server.clock.now() - startedAt) / 1000) },
      }),
    },
    { method: 'GET', pattern: '/openapi.json', handler: () => ({ body: loadSpec() }) },
  ],
};
