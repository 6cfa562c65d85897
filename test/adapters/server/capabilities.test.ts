/** Capability detection from /version and probes, and gating before anything is sent. */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { atLeast, deriveCapabilities, floorFailure, parseVersion } from '../../../src/adapters/server/capabilities.js';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import type { MemoryServer, ServerFailure } from '../../../src/effects/ports/memoryServer.js';
import { startFaultServer, type FaultServer, type RecordedRequest } from '../../helpers/faultServer.js';

const leftOf = <A>(result: E.Either<ServerFailure, A>): ServerFailure => {
  if (E.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`);
  return result.left;
};

describe('version arithmetic and derivation', () => {
  it('parses and compares versions', () => {
    expect(parseVersion('v0.10.0-rc1')).toEqual([0, 10, 0]);
    expect(parseVersion('0.9')).toEqual([0, 9, 0]);
    expect(parseVersion('unknown')).toBeUndefined();
    expect(atLeast('0.10.0', '0.9.1')).toBe(true);
    expect(atLeast('0.8.5', '0.8.6')).toBe(false);
    expect(atLeast('unknown', '0.0.0')).toBe(false);
  });

  it.each([
    ['0.7.0', { append: false, exactTags: false, knowledge: false, operationId: false, tagGroups: true, profile: true }],
    ['0.8.2', { append: true, exactTags: true, knowledge: false, operationId: false, sharedScope: false }],
    ['0.9.1', { append: true, exactTags: true, knowledge: true, operationId: true, listBanksQuery: false, profile: true }],
    ['0.10.0', { knowledge: true, listBanksQuery: true, profile: false }],
  ])('derives features of %s', (version, expected) => {
    expect(deriveCapabilities({ api_version: version, features: {} }, false).features).toMatchObject(expected);
  });

  it('marks the embedded server and its missing response schemas', () => {
    const caps = deriveCapabilities({ api_version: '0.9.1', features: { embedded: true, bank_config_api: true } }, false);
    expect(caps.embedded).toBe(true);
    expect(caps.features.responseSchema).toBe(false);
    expect(caps.features.listBanksQuery).toBe(true);
  });

  it('follows the bank_config_api flag when the server sends it', () => {
    expect(deriveCapabilities({ api_version: '0.9.1', features: { bank_config_api: false } }, false).features.bankConfig).toBe(false);
  });

  it('reports the floor with its remediation', () => {
    expect(floorFailure(deriveCapabilities({ api_version: '0.7.0' }, false))).toEqual({
      _tag: 'unsupportedCapability',
      feature: 'append retain (update_mode "append")',
      serverVersion: '0.7.0',
      remediation: 'upgrade the server to 0.8 or later',
    });
    expect(floorFailure(deriveCapabilities({ api_version: '0.8.0' }, false))).toBeUndefined();
  });
});

const unprefixed = (path: string): string => path.replace(/^\/c\d+/, '');

describe('gating against a scripted server', () => {
  let faults: FaultServer;
  let version = '0.9.1';
  let extra: Record<string, boolean> = {};
  const routes = new Map<string, (req: RecordedRequest) => Parameters<FaultServer['script']>[0]>();

  beforeAll(async () => {
    faults = await startFaultServer();
    faults.setFallback((req) => {
      const path = unprefixed(req.path).split('?')[0] ?? '';
      if (path === '/version') return { kind: 'json', body: { api_version: version, features: extra } };
      const route = routes.get(`${req.method} ${path}`);
      return route === undefined ? { kind: 'json', status: 404, body: { detail: 'Not Found' } } : route(req);
    });
  });
  afterAll(async () => {
    await faults.close();
  });
  afterEach(() => {
    faults.requests.length = 0;
    routes.clear();
    extra = {};
  });

  /**
   * A fresh base URL per client (a root path `/cN`, as a Hindsight behind a path prefix has),
   * so capability caches and breakers are not shared between tests.
   */
  let n = 0;
  const client = (v: string): MemoryServer => {
    version = v;
    n += 1;
    return createMemoryServer({ baseUrl: `${faults.url}/c${n}`, timeoutMs: 2_000 });
  };

  const sentPaths = (): string[] => faults.requests.map((r) => `${r.method} ${unprefixed(r.path)}`);

  it('refuses append retain below the floor without sending it', async () => {
    const old = client('0.7.0');
    const failure = leftOf(await old.retain('b', { items: [{ content: 'turn', document_id: 'd', update_mode: 'append' }] })());
    expect(failure).toMatchObject({ _tag: 'unsupportedCapability', serverVersion: '0.7.0', remediation: 'upgrade the server to 0.8 or later' });
    expect(sentPaths()).toEqual(['GET /version']);
  });

  it('names the floor first when a retain needs several missing features', async () => {
    const old = client('0.7.0');
    const failure = leftOf(
      await old.retain('b', { items: [{ content: 'turn', document_id: 'd', update_mode: 'append', observation_scopes: 'shared' }], async: true, operation_id: '0b5a4c56-4a02-4a39-8f59-3f3f8d6f3a10' })(),
    );
    expect(failure).toMatchObject({ remediation: 'upgrade the server to 0.8 or later' });
  });

  it('refuses exact tags, knowledge pages and source facts on servers that lack them', async () => {
    const old = client('0.8.0');
    expect(leftOf(await old.recall('b', { query: 'q', tags: ['a'], tags_match: 'exact' })())).toMatchObject({ feature: 'tags_match "exact"' });
    expect(leftOf(await old.knowledgeTree('b')())).toMatchObject({ _tag: 'unsupportedCapability', feature: 'knowledge pages' });
    expect(leftOf(await old.recall('b', { query: 'q', tag_groups: [{ tags: ['a'], match: 'exact' }] })())).toMatchObject({ feature: 'tags_match "exact"' });
    // Detected once, then cached.
    expect(sentPaths()).toEqual(['GET /version']);
  });

  it('sends a plain recall without asking for capabilities', async () => {
    routes.set('POST /v1/default/banks/b/memories/recall', () => ({ kind: 'json', body: { results: [] } }));
    const c = client('0.9.1');
    expect(E.isRight(await c.recall('b', { query: 'q' })())).toBe(true);
    expect(sentPaths()).toEqual(['POST /v1/default/banks/b/memories/recall']);
  });

  it('refuses a response schema on the embedded server before sending', async () => {
    extra = { embedded: true };
    const c = client('0.9.1');
    const failure = leftOf(await c.reflect('b', { query: 'q', response_schema: { type: 'object', properties: { a: { type: 'string' } } } })());
    expect(failure).toMatchObject({ _tag: 'unsupportedCapability', feature: 'reflect response_schema' });
    expect(failure._tag === 'unsupportedCapability' && failure.remediation).toContain('embedded server');
    expect(sentPaths()).toEqual(['GET /version']);
  });

  it('treats a field named in X-Ignored-Params as unsupported, and refuses it next time before sending', async () => {
    routes.set('POST /v1/default/banks/b/memories', () => ({
      kind: 'json',
      body: { success: true, items_count: 1, async: false },
      headers: { 'x-ignored-params': 'update_mode' },
    }));
    const c = client('0.9.1');
    const req = { items: [{ content: 'x', document_id: 'd', update_mode: 'append' as const }] };
    expect(leftOf(await c.retain('b', req)())).toMatchObject({ _tag: 'unsupportedCapability', feature: 'append retain (update_mode "append")' });
    faults.requests.length = 0;
    expect(leftOf(await c.retain('b', req)())._tag).toBe('unsupportedCapability');
    expect(sentPaths()).toEqual([]);
  });

  it('falls back to probing when /version is missing', async () => {
    const c = createMemoryServer({ baseUrl: `http://localhost:${faults.port}`, timeoutMs: 2_000 });
    faults.script({ kind: 'json', status: 404, body: { detail: 'Not Found' } }, { kind: 'json', body: { banks: [] } }, { kind: 'json', body: { roots: [] } });
    const caps = await c.capabilities()();
    expect(E.isRight(caps) && caps.right).toMatchObject({ apiVersion: 'unknown', features: { knowledge: true, append: false } });
    expect(sentPaths()).toEqual(['GET /version', 'GET /v1/default/banks', 'GET /v1/default/banks/agent-memory-capability-probe/knowledge-base/tree']);
  });

  it('filters the bank list itself unless the server honours q, and matches ids exactly', async () => {
    routes.set('GET /v1/default/banks', () => ({ kind: 'json', body: { banks: [{ bank_id: 'proj-a' }, { bank_id: 'proj-ab' }, { bank_id: 'other', name: 'Proj-A notes' }] } }));
    const c = client('0.9.1');
    const listed = await c.listBanks({ q: 'proj-a' })();
    expect(E.isRight(listed) && listed.right.map((b) => b.bank_id)).toEqual(['proj-a', 'proj-ab', 'other']);
    expect(faults.requests.map((r) => unprefixed(r.path)).filter((path) => path.startsWith('/v1/default/banks'))).toEqual(['/v1/default/banks']);
    const exists = await c.bankExists('proj-a')();
    expect(E.isRight(exists) && exists.right).toBe(true);
    const absent = await c.bankExists('proj')();
    expect(E.isRight(absent) && absent.right).toBe(false);

    faults.requests.length = 0;
    const newer = client('0.10.0');
    await newer.listBanks({ q: 'proj-a', limit: 5 })();
    expect(faults.requests.map((r) => unprefixed(r.path))).toContain('/v1/default/banks?q=proj-a&limit=5');
  });

  it('answers absent for a retired profile and a missing bank profile', async () => {
    routes.set('GET /v1/default/banks/b/profile', () => ({ kind: 'json', status: 410, body: { detail: 'Use GET /banks/{id}/config' } }));
    routes.set('GET /v1/default/banks/missing/profile', () => ({ kind: 'json', status: 404, body: { detail: "Bank 'missing' not found" } }));
    const c = client('0.10.0');
    const gone = await c.getBankProfile('b')();
    expect(E.isRight(gone) && gone.right).toEqual({ _tag: 'absent', reason: 'gone', detail: 'Use GET /banks/{id}/config' });
    const missing = await c.getBankProfile('missing')();
    expect(E.isRight(missing) && missing.right).toMatchObject({ _tag: 'absent', reason: 'notFound' });
  });

  it('maps an absent stats route or a disabled config API to unsupportedCapability', async () => {
    routes.set('GET /v1/default/banks/b/config', () => ({
      kind: 'json',
      status: 404,
      body: { detail: 'Bank configuration API is disabled. Set HINDSIGHT_API_ENABLE_BANK_CONFIG_API=true to re-enable.' },
    }));
    const c = client('0.9.1');
    expect(leftOf(await c.getBankConfig('b')())).toMatchObject({ _tag: 'unsupportedCapability', feature: 'bank config' });
    expect(leftOf(await c.getBankStats('b')())).toMatchObject({ _tag: 'unsupportedCapability', feature: 'bank stats' });
  });

  it('sends requests unchanged: exactly the fields the caller gave', async () => {
    routes.set('POST /v1/default/banks/b/memories', () => ({ kind: 'json', body: { success: true, items_count: 1, async: true, operation_id: 'op' } }));
    const c = client('0.9.1');
    const req = {
      items: [{ content: 'x', document_id: 'd', update_mode: 'append' as const, tags: ['project:p'], metadata: { k: 'v' }, entities: [{ text: 'pi' }], observation_scopes: 'shared' as const }],
      async: true,
      document_tags: ['source:host'],
      operation_id: '0b5a4c56-4a02-4a39-8f59-3f3f8d6f3a10',
    };
    expect(E.isRight(await c.retain('b', req)())).toBe(true);
    const sent = faults.requests.find((r) => r.method === 'POST');
    expect(JSON.parse(sent?.body ?? '')).toEqual(req);
  });
});

describe('detection sharing', () => {
  it('asks /version once for concurrent gated calls', async () => {
    const faults = await startFaultServer();
    try {
      faults.setFallback((req) =>
        req.path === '/version' ? { kind: 'json', body: { api_version: '0.7.0', features: {} } } : { kind: 'json', status: 404, body: { detail: 'Not Found' } },
      );
      const c = createMemoryServer({ baseUrl: faults.url, timeoutMs: 2_000 });
      const results = await Promise.all([c.knowledgeTree('a')(), c.knowledgeTree('b')(), c.recall('a', { query: 'q', tags_match: 'exact' })()]);
      expect(results.every((r) => E.isLeft(r) && r.left._tag === 'unsupportedCapability')).toBe(true);
      expect(faults.requests.map((r) => r.path)).toEqual(['/version']);
    } finally {
      await faults.close();
    }
  });
});
