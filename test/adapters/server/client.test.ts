/** Client construction: user agent, base URL normalisation, no credentials shown. */
import { readFile } from 'node:fs/promises';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer, DEFAULT_USER_AGENT } from '../../../src/adapters/server/client.js';
import { startFaultServer, type FaultServer } from '../../helpers/faultServer.js';

describe('client construction', () => {
  let faults: FaultServer;
  beforeAll(async () => {
    faults = await startFaultServer();
  });
  afterAll(async () => {
    await faults.close();
  });

  it('names the package version in its user agent', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(DEFAULT_USER_AGENT).toBe(`agent-memory/${pkg.version}`);
  });

  it('drops a trailing slash and hides URL credentials from baseUrl', async () => {
    const withCredentials = `http://admin:hunter2secret@127.0.0.1:${faults.port}/`;
    const client = createMemoryServer({ baseUrl: withCredentials, timeoutMs: 2_000 });
    expect(client.baseUrl).toBe(`http://127.0.0.1:${faults.port}`);
    faults.script({ kind: 'json', body: { api_version: '0.9.1' } });
    expect(E.isRight(await client.version()())).toBe(true);
    expect(faults.requests[0]?.path).toBe('/version');
  });

  it('answers a bad baseUrl with a failure that says what to set', async () => {
    const client = createMemoryServer({ baseUrl: 'ftp://example', timeoutMs: 2_000 });
    const result = await client.recall('b', { query: 'q' })();
    expect(E.isLeft(result) && result.left).toMatchObject({ _tag: 'unreachable' });
    expect(E.isLeft(result) && result.left._tag === 'unreachable' && result.left.message).toContain('baseUrl');
  });
});
