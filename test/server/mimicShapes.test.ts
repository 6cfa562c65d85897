/**
 * Issue 13, finding 2: the server speaks exactly the version it reports. `--mimic 0.9` answers
 * `/version` with the 0.9.1 feature keys only and `/banks` as `{"banks": [...every bank]}`;
 * `--mimic 0.10` pages banks, directives and mental models with total/limit/offset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/embeddedServer.js';
import type { TestServer } from '../helpers/embeddedServer.js';

const B = '/v1/default/banks';
const FEATURES_0_9_1 = [
  'audit_log',
  'bank_config_api',
  'bank_llm_health',
  'document_export_api',
  'document_import_api',
  'file_upload_api',
  'llm_trace',
  'mcp',
  'observations',
  'store_document_text',
  'worker',
];

const makeBanks = async (server: TestServer, n: number): Promise<void> => {
  for (let i = 0; i < n; i += 1) await call(server, 'PUT', `${B}/bank-${String(i).padStart(3, '0')}`, {});
};

describe('--mimic 0.9 (default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    await makeBanks(server, 130);
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('/version has exactly api_version and the 0.9.1 feature keys; the embedded marker is the header', async () => {
    const res = await call(server, 'GET', '/version');
    expect(Object.keys(res.body).sort()).toEqual(['api_version', 'features']);
    expect(Object.keys(res.body.features).sort()).toEqual(FEATURES_0_9_1);
    expect(res.headers.get('x-hindsight-embedded')).toBe('1');
  });

  it('/banks is {"banks": [...]} with every bank, past 100, whatever limit/offset say', async () => {
    for (const path of [B, `${B}?limit=10&offset=5`]) {
      const res = await call(server, 'GET', path);
      expect(Object.keys(res.body)).toEqual(['banks']);
      expect(res.body.banks).toHaveLength(130);
    }
  });

  it('directive and mental model lists are {"items": [...]} only', async () => {
    expect(Object.keys((await call(server, 'GET', `${B}/bank-000/directives`)).body)).toEqual(['items']);
    expect(Object.keys((await call(server, 'GET', `${B}/bank-000/mental-models`)).body)).toEqual(['items']);
  });
});

describe('--mimic 0.10', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false, mimic: '0.10' });
    await makeBanks(server, 130);
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('/version reports 0.10.0 with the same feature keys', async () => {
    const res = await call(server, 'GET', '/version');
    expect(res.body.api_version).toBe('0.10.0');
    expect(Object.keys(res.body.features).sort()).toEqual(FEATURES_0_9_1);
  });

  it('/banks pages with total, limit and offset (default 100); q narrows', async () => {
    const first = await call(server, 'GET', B);
    expect(first.body).toMatchObject({ total: 130, limit: 100, offset: 0 });
    expect(first.body.banks).toHaveLength(100);
    const paged = await call(server, 'GET', `${B}?limit=10&offset=125`);
    expect(paged.body.banks).toHaveLength(5);
    expect((await call(server, 'GET', `${B}?q=BANK-12`)).body.total).toBe(10);
    expect((await call(server, 'GET', `${B}?limit=-1`)).status).toBe(422);
  });

  it('directive and mental model lists carry total, limit and offset; the profile is gone (410)', async () => {
    expect((await call(server, 'GET', `${B}/bank-000/directives?limit=5`)).body).toEqual({ items: [], total: 0, limit: 5, offset: 0 });
    expect((await call(server, 'GET', `${B}/bank-000/mental-models`)).body).toEqual({ items: [], total: 0, limit: 100, offset: 0 });
    expect((await call(server, 'GET', `${B}/bank-000/profile`)).status).toBe(410);
  });
});
