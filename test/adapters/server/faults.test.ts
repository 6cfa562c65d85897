/**
 * The client against a scripted fault server: every network and HTTP fault maps to the right
 * `ServerFailure`, no call throws, and the API key appears in no failure.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import { describeFailure, type MemoryServer, type ServerFailure } from '../../../src/effects/ports/memoryServer.js';
import { refusedPort, startFaultServer, type FaultServer } from '../../helpers/faultServer.js';

const API_KEY = 'hsk_canary_5f2c9e7a1b3d4f6081726354';

const noRetry = { attempts: 1, baseMs: 1, capMs: 1 };
const lenientBreaker = { threshold: 1_000, coolDownMs: 1 };

/** Runs a call that must fail; checks the failure holds no secret, whichever way it is printed. */
const failureOf = async <A>(call: () => Promise<E.Either<ServerFailure, A>>): Promise<ServerFailure> => {
  const result = await call();
  if (E.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`);
  const failure = result.left;
  expect(JSON.stringify(failure)).not.toContain(API_KEY);
  expect(String(Object.values(failure).join(' '))).not.toContain(API_KEY);
  expect(describeFailure(failure)).not.toContain(API_KEY);
  return failure;
};

describe('server adapter against a fault server', () => {
  let faults: FaultServer;
  let client: MemoryServer;

  beforeAll(async () => {
    faults = await startFaultServer();
    client = createMemoryServer({ baseUrl: faults.url, apiKey: API_KEY, timeoutMs: 2_000, retry: noRetry, breaker: lenientBreaker });
  });
  afterAll(async () => {
    await faults.close();
  });
  afterEach(() => {
    faults.requests.length = 0;
  });

  const recall = (o?: { deadline?: number; signal?: AbortSignal }) => client.recall('bank-a', { query: 'what did we decide' }, o);

  it('sends the key as a bearer token and names itself agent-memory', async () => {
    faults.script({ kind: 'json', body: { results: [{ id: 'f1', text: 'hello' }] } });
    const result = await recall()();
    expect(E.isRight(result) && result.right.results[0]?.text).toBe('hello');
    const sent = faults.requests[0];
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.headers['user-agent']).toMatch(/^agent-memory\/\d+\.\d+\.\d+/);
    expect(sent?.path).toBe('/v1/default/banks/bank-a/memories/recall');
    expect(JSON.parse(sent?.body ?? '{}')).toEqual({ query: 'what did we decide' });
  });

  it('maps a refused connection to unreachable', async () => {
    const port = await refusedPort();
    const closed = createMemoryServer({ baseUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY, timeoutMs: 2_000, retry: noRetry });
    const failure = await failureOf(closed.recall('b', { query: 'q' }));
    expect(failure).toMatchObject({ _tag: 'unreachable' });
    expect(failure._tag === 'unreachable' && failure.message).toContain('ECONNREFUSED');
  });

  it('maps a reset before headers to unreachable', async () => {
    faults.script({ kind: 'reset' });
    const failure = await failureOf(recall());
    expect(failure._tag).toBe('unreachable');
  });

  // The network timeout is 30 s here: only the 300 ms deadline can end the call before the
  // 3 s test timeout, so a call that ignores the deadline fails the test.
  it('gives up on a stalled server by the deadline with a timeout', { timeout: 3_000 }, async () => {
    const patient = createMemoryServer({ baseUrl: faults.url, apiKey: API_KEY, timeoutMs: 30_000, retry: noRetry, breaker: lenientBreaker });
    faults.script({ kind: 'stall' });
    const failure = await failureOf(patient.recall('bank-a', { query: 'q' }, { deadline: Date.now() + 300 }));
    expect(failure._tag).toBe('timeout');
  });

  it('answers at once with timeout when the deadline has already passed, sending nothing', async () => {
    const failure = await failureOf(recall({ deadline: Date.now() - 1 }));
    expect(failure._tag).toBe('timeout');
    expect(faults.requests).toHaveLength(0);
  });

  it('maps an abort to aborted', async () => {
    faults.script({ kind: 'stall' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const failure = await failureOf(recall({ signal: controller.signal }));
    expect(failure).toEqual({ _tag: 'aborted' });
  });

  it('reads Retry-After in seconds on 429', async () => {
    faults.script({ kind: 'json', status: 429, body: { detail: 'slow down' }, headers: { 'retry-after': '7' } });
    expect(await failureOf(recall())).toEqual({ _tag: 'rateLimited', retryAfterMs: 7_000 });
  });

  it('reads Retry-After as an HTTP date on 429', async () => {
    const at = new Date(Date.now() + 60_000).toUTCString();
    faults.script({ kind: 'json', status: 429, body: {}, headers: { 'retry-after': at } });
    const failure = await failureOf(recall());
    expect(failure._tag).toBe('rateLimited');
    const wait = failure._tag === 'rateLimited' ? failure.retryAfterMs : undefined;
    expect(wait).toBeGreaterThan(55_000);
    expect(wait).toBeLessThanOrEqual(60_000);
  });

  it.each([500, 502, 503, 504, 408])('maps HTTP %i to serverError', async (status) => {
    faults.script({ kind: 'json', status, body: { detail: 'database unavailable' } });
    expect(await failureOf(recall())).toEqual({ _tag: 'serverError', status, detail: 'database unavailable' });
  });

  it.each([
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'notFound'],
    [410, 'gone'],
  ] as const)('maps HTTP %i to %s with the server detail', async (status, tag) => {
    faults.script({ kind: 'json', status, body: { detail: 'Invalid API key' } });
    expect(await failureOf(recall())).toEqual({ _tag: tag, detail: 'Invalid API key' });
  });

  it('maps 400 to invalidRequest with the string detail', async () => {
    faults.script({ kind: 'json', status: 400, body: { detail: "update_mode='append' requires a document_id" } });
    expect(await failureOf(recall())).toEqual({ _tag: 'invalidRequest', status: 400, detail: "update_mode='append' requires a document_id" });
  });

  it('flattens a FastAPI 422 list into loc: msg', async () => {
    faults.script({
      kind: 'json',
      status: 422,
      body: { detail: [{ type: 'missing', loc: ['body', 'query'], msg: 'Field required', input: {} }, { type: 'value_error', loc: ['body', 'items', 0, 'content'], msg: 'Value error, content cannot be empty' }] },
    });
    expect(await failureOf(recall())).toEqual({
      _tag: 'invalidRequest',
      status: 422,
      detail: 'query: Field required; items.0.content: Value error, content cannot be empty',
    });
  });

  it('redacts a secret the server echoes in its detail', async () => {
    faults.script({ kind: 'json', status: 500, body: { detail: `auth failed for Authorization: Bearer ${API_KEY}` } });
    const failure = await failureOf(recall());
    expect(failure._tag).toBe('serverError');
  });

  it('maps the capability prefix to unsupportedCapability', async () => {
    faults.script({ kind: 'json', status: 400, body: { detail: 'capability_unavailable: reflect response_schema is not supported by the embedded server' } });
    const failure = await failureOf(client.reflect('b', { query: 'q' }));
    expect(failure).toMatchObject({ _tag: 'unsupportedCapability', feature: 'reflect response_schema' });
  });

  it('maps malformed JSON, an empty body and a wrong shape to badResponse naming the field', async () => {
    faults.script({ kind: 'text', body: '{"results": [' });
    const malformed = await failureOf(recall());
    expect(malformed._tag).toBe('badResponse');
    expect(malformed._tag === 'badResponse' && malformed.detail).toContain('valid JSON');

    faults.script({ kind: 'text', body: '' });
    const empty = await failureOf(recall());
    expect(empty._tag === 'badResponse' && empty.detail).toContain('empty body');

    faults.script({ kind: 'json', body: { results: [{ id: 'f1', text: 42 }] } });
    const wrong = await failureOf(recall());
    expect(wrong._tag === 'badResponse' && wrong.detail).toContain('results.0.text');
  });

  it('refuses a bad bank id or body before sending, naming the field', async () => {
    const badBank = await failureOf(client.recall('../admin', { query: 'q' }));
    expect(badBank).toMatchObject({ _tag: 'invalidRequest', status: 400 });
    expect(badBank._tag === 'invalidRequest' && badBank.detail).toContain('bankId');
    const badBody = await failureOf(client.retain('b', { items: [{ content: 'x', update_mode: 'merge' }] } as unknown as Parameters<MemoryServer['retain']>[1]));
    expect(badBody._tag === 'invalidRequest' && badBody.detail).toContain('items.0.update_mode');
    expect(faults.requests).toHaveLength(0);
  });

  it('answers a key that cannot be a header as unauthorized, nothing sent', async () => {
    const broken = createMemoryServer({ baseUrl: faults.url, apiKey: `${API_KEY}\n`, timeoutMs: 2_000, retry: noRetry, breaker: lenientBreaker });
    const failure = await failureOf(broken.recall('b', { query: 'q' }));
    expect(failure._tag).toBe('unauthorized');
    expect(faults.requests).toHaveLength(0);
  });

  it('never rejects, whatever the fault', async () => {
    const all: FaultStepLike[] = [{ kind: 'reset' }, { kind: 'text', body: 'nope' }, { kind: 'json', status: 500, body: 'x' }];
    for (const step of all) {
      faults.script(step);
      await expect(recall()()).resolves.toSatisfy(E.isLeft);
    }
  });
});

type FaultStepLike = Parameters<FaultServer['script']>[0];

describe('retries', () => {
  let faults: FaultServer;
  beforeAll(async () => {
    faults = await startFaultServer();
  });
  afterAll(async () => {
    await faults.close();
  });
  afterEach(() => {
    faults.requests.length = 0;
  });

  const client = (): MemoryServer =>
    createMemoryServer({ baseUrl: faults.url, apiKey: API_KEY, timeoutMs: 2_000, retry: { attempts: 3, baseMs: 5, capMs: 20 }, breaker: lenientBreaker });

  it('retries an idempotent GET after 503 and a reset', async () => {
    faults.script({ kind: 'json', status: 503, body: { detail: 'busy' } }, { kind: 'reset' }, { kind: 'json', body: { api_version: '0.9.1', features: {} } });
    const result = await client().version()();
    expect(E.isRight(result) && result.right.api_version).toBe('0.9.1');
    expect(faults.requests).toHaveLength(3);
  });

  it('does not retry a GET on a permanent failure', async () => {
    faults.script({ kind: 'json', status: 401, body: { detail: 'Invalid API key' } });
    const result = await client().version()();
    expect(E.isLeft(result) && result.left._tag).toBe('unauthorized');
    expect(faults.requests).toHaveLength(1);
  });

  it('never resends a retain without an operation id', async () => {
    faults.script({ kind: 'reset' });
    const result = await client().retain('b', { items: [{ content: 'x', document_id: 'd' }] })();
    expect(E.isLeft(result) && result.left._tag).toBe('unreachable');
    expect(faults.requests).toHaveLength(1);
  });

  it('never resends recall or reflect', async () => {
    faults.script({ kind: 'json', status: 503, body: {} }, { kind: 'json', status: 503, body: {} });
    await client().recall('b', { query: 'q' })();
    await client().reflect('b', { query: 'q' })();
    expect(faults.requests).toHaveLength(2);
  });

  it('ends a stalled call at timeoutMs when no deadline is given', { timeout: 3_000 }, async () => {
    faults.script({ kind: 'stall' });
    const short = createMemoryServer({ baseUrl: faults.url, timeoutMs: 200, retry: { attempts: 3, baseMs: 5, capMs: 20 }, breaker: lenientBreaker });
    const result = await short.version()();
    expect(E.isLeft(result) && result.left._tag).toBe('timeout');
  });

  it('answers aborted when the signal fires during a backoff wait', { timeout: 3_000 }, async () => {
    faults.script({ kind: 'json', status: 503, body: {} });
    // Waits of up to 2 s fit the 10 s budget; full jitter may pick a tiny wait, so there are
    // enough attempts that one of the waits is still running when the signal fires.
    const patient = createMemoryServer({ baseUrl: faults.url, timeoutMs: 10_000, retry: { attempts: 10, baseMs: 2_000, capMs: 2_000 }, breaker: lenientBreaker });
    const controller = new AbortController();
    faults.setFallback({ kind: 'json', status: 503, body: {} });
    setTimeout(() => controller.abort(), 100);
    const result = await patient.version({ signal: controller.signal })();
    faults.setFallback({ kind: 'json', status: 200, body: {} });
    expect(E.isLeft(result) && result.left).toEqual({ _tag: 'aborted' });
  });

  it('stops retrying when the next attempt would pass the deadline', async () => {
    faults.setFallback({ kind: 'json', status: 503, body: {} });
    const slow = createMemoryServer({ baseUrl: faults.url, timeoutMs: 2_000, retry: { attempts: 10, baseMs: 400, capMs: 400 }, breaker: lenientBreaker });
    // Full jitter can pick 0 ms, so bound the count rather than pin it.
    const result = await slow.version({ deadline: Date.now() + 150 })();
    expect(E.isLeft(result) && result.left._tag).toBe('serverError');
    expect(faults.requests.length).toBeLessThan(10);
    faults.setFallback({ kind: 'json', status: 200, body: {} });
  });
});
