import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/embeddedServer.js';
import type { TestServer } from '../helpers/embeddedServer.js';

let server: TestServer;
const B = '/v1/default/banks';

beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  await server.dispose();
});

const retain = (bank: string, body: unknown) => call(server, 'POST', `${B}/${bank}/memories`, body);
const doc = (bank: string, id: string) => call(server, 'GET', `${B}/${bank}/documents/${encodeURIComponent(id)}`);
const factsOf = async (bank: string, documentId: string) =>
  (await call(server, 'GET', `${B}/${bank}/memories/list?type=world&document_id=${encodeURIComponent(documentId)}`)).body.items as {
    id: string;
    text: string;
    tags: string[];
  }[];

describe('retain (sync)', () => {
  it('answers RetainResponse with zero usage and creates the bank lazily', async () => {
    const res = await retain('r-lazy', { items: [{ content: 'hello world' }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      bank_id: 'r-lazy',
      items_count: 1,
      async: false,
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, cached_tokens: 0, thoughts_tokens: 0 },
    });
    const banks = await call(server, 'GET', `${B}?q=r-lazy`);
    expect(banks.body.banks.map((b: { bank_id: string }) => b.bank_id)).toEqual(['r-lazy']);
    expect(banks.body.banks[0]).toMatchObject({ name: 'r-lazy', disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: '' });
  });

  it('stores items of one document joined with a newline; each item is its own memory with its own metadata, context, entities and timestamp', async () => {
    await retain('r-doc', {
      items: [
        { content: 'first part', document_id: 'd', context: 'ctx', metadata: { k: 'v' }, timestamp: '2024-01-15T10:00:00Z', entities: [{ text: 'Alice' }] },
        { content: 'second part', document_id: 'd' },
      ],
      document_tags: ['proj'],
    });
    const d = await doc('r-doc', 'd');
    expect(d.body).toMatchObject({
      id: 'd',
      original_text: 'first part\nsecond part',
      memory_unit_count: 2,
      tags: ['proj'],
      document_metadata: { k: 'v' },
      retain_params: { context: 'ctx', metadata: { k: 'v' }, event_date: '2024-01-15T10:00:00.000+00:00' },
    });
    expect(d.body.content_hash).toMatch(/^[0-9a-f]{64}$/);
    const items = (await call(server, 'GET', `${B}/r-doc/memories/list?type=world`)).body.items as Record<string, unknown>[];
    const first = items.find((f) => f['text'] === 'first part');
    const second = items.find((f) => f['text'] === 'second part');
    expect(first).toMatchObject({ context: 'ctx', fact_type: 'world', entities: 'Alice', tags: ['proj'], metadata: { k: 'v' } });
    expect(first?.['mentioned_at']).toBe('2024-01-15T10:00:00.000+00:00');
    expect(second).toMatchObject({ context: '', fact_type: 'world', entities: '', tags: ['proj'], metadata: {} });
    expect(second?.['mentioned_at']).not.toBe('2024-01-15T10:00:00.000+00:00');
  });

  it('append keeps the document, concatenates with a newline, keeps created_at, advances updated_at, keeps each item\'s own tags', async () => {
    await retain('r-app', { items: [{ content: 'A text', document_id: 'd', tags: ['t1'] }] });
    const before = await doc('r-app', 'd');
    await new Promise((r) => setTimeout(r, 5));
    await retain('r-app', { items: [{ content: 'B text', document_id: 'd', update_mode: 'append', tags: ['t2'] }] });
    const after = await doc('r-app', 'd');
    expect(after.body.original_text).toBe('A text\nB text');
    expect(after.body.created_at).toBe(before.body.created_at);
    expect(after.body.updated_at > before.body.updated_at).toBe(true);
    const docs = await call(server, 'GET', `${B}/r-app/documents?tags_match=any`);
    expect(docs.body.total).toBe(1);
    expect(docs.body.items[0].tags).toEqual(['t1', 't2']);
    expect(Object.fromEntries((await factsOf('r-app', 'd')).map((f) => [f.text, f.tags]))).toEqual({ 'A text': ['t1'], 'B text': ['t2'] });
    const recalled = await call(server, 'POST', `${B}/r-app/memories/recall`, { query: 'text', tags: ['t2'], tags_match: 'any_strict' });
    expect(recalled.body.results.map((r: { text: string }) => r.text)).toEqual(['B text']);
  });

  it('append onto a missing document creates it; JSON arrays of objects merge into one array', async () => {
    await retain('r-json', { items: [{ content: 'only B', document_id: 'new', update_mode: 'append' }] });
    expect((await doc('r-json', 'new')).body.original_text).toBe('only B');
    await retain('r-json', { items: [{ content: '[{"role":"user","text":"hi"}]', document_id: 'conv' }] });
    await retain('r-json', { items: [{ content: '[{"role":"assistant","text":"hello"}]', document_id: 'conv', update_mode: 'append' }] });
    expect(JSON.parse((await doc('r-json', 'conv')).body.original_text)).toEqual([
      { role: 'user', text: 'hi' },
      { role: 'assistant', text: 'hello' },
    ]);
  });

  it('append without a document_id is a 400 with the upstream detail, and writes nothing', async () => {
    const res = await retain('r-noid', { items: [{ content: 'x', update_mode: 'append' }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "update_mode='append' requires a document_id" });
    expect((await call(server, 'GET', `${B}?q=r-noid`)).body.banks).toEqual([]);
  });

  it('replace: new text wins, old-only facts go, identical chunks keep their fact ids, identical re-retain adds nothing', async () => {
    const long = (word: string) => Array.from({ length: 500 }, (_, i) => `${word}${i}`).join(' ');
    const first = `${long('alpha')}\n\n${long('beta')}`;
    await retain('r-rep', { items: [{ content: first, document_id: 'd', tags: ['old'] }] });
    const factsA = await factsOf('r-rep', 'd');
    expect(factsA.length).toBeGreaterThan(1);
    await retain('r-rep', { items: [{ content: first, document_id: 'd', tags: ['old'] }] });
    expect((await factsOf('r-rep', 'd')).map((f) => f.id).sort()).toEqual(factsA.map((f) => f.id).sort());
    const second = `${long('alpha')}\n\n${long('gamma')}`;
    await retain('r-rep', { items: [{ content: second, document_id: 'd', tags: ['new'] }] });
    const factsC = await factsOf('r-rep', 'd');
    expect((await doc('r-rep', 'd')).body.original_text).toBe(second);
    const alphaA = factsA.find((f) => f.text.startsWith('alpha0'));
    const alphaC = factsC.find((f) => f.text.startsWith('alpha0'));
    expect(alphaC?.id).toBe(alphaA?.id);
    expect(factsC.some((f) => f.text.includes('beta1 '))).toBe(false);
    for (const f of factsC) expect(f.tags).toEqual(['new']);
  });

  it('groups items without ids into the single explicit document, or into their own documents when there are two ids', async () => {
    await retain('r-grp', { items: [{ content: 'one', document_id: 'x' }, { content: 'two' }] });
    expect((await doc('r-grp', 'x')).body.original_text).toBe('one\ntwo');
    await retain('r-grp2', { items: [{ content: 'one', document_id: 'x' }, { content: 'two', document_id: 'y' }, { content: 'three' }] });
    const docs = (await call(server, 'GET', `${B}/r-grp2/documents`)).body;
    expect(docs.total).toBe(3);
    expect(docs.items.map((d: { id: string }) => d.id)).toEqual(expect.arrayContaining(['x', 'y']));
  });

  it('accepts "unset" timestamps (no date) and document ids containing slashes', async () => {
    await retain('r-misc', { items: [{ content: 'timeless', document_id: 'src/a/b.ts', timestamp: 'UNSET' }] });
    const d = await doc('r-misc', 'src/a/b.ts');
    expect(d.status).toBe(200);
    expect(d.body.retain_params.event_date).toBeUndefined();
    const [fact] = (await call(server, 'GET', `${B}/r-misc/memories/list?type=world`)).body.items;
    // The memories list drops null fields, as upstream's exclude-none routes do.
    expect(fact.mentioned_at).toBeUndefined();
  });

  it('coerces a bare string or JSON string of tags to a list', async () => {
    await retain('r-tags', { items: [{ content: 'a', document_id: 'a', tags: 'solo' }, { content: 'b', document_id: 'b', tags: '["x","y"]' }] });
    expect((await doc('r-tags', 'a')).body.tags).toEqual(['solo']);
    expect((await doc('r-tags', 'b')).body.tags).toEqual(['x', 'y']);
  });

  it('names unknown fields in X-Ignored-Params', async () => {
    const res = await retain('r-ign', { items: [{ content: 'a' }], bogus: 1, other: 'x' });
    expect(res.headers.get('x-ignored-params')).toBe('bogus, other');
  });
});

describe('retain validation (422, nothing written)', () => {
  const cases: [string, unknown, (string | number)[], string][] = [
    ['blank content', { items: [{ content: 'ok' }, { content: '   ' }] }, ['body', 'items', 1, 'content'], 'Value error, content cannot be empty'],
    ['missing content', { items: [{ context: 'c' }] }, ['body', 'items', 0, 'content'], 'Field required'],
    ['missing items', {}, ['body', 'items'], 'Field required'],
    ['bad timestamp', { items: [{ content: 'a', timestamp: 'yesterday' }] }, ['body', 'items', 0, 'timestamp'], "Value error, Invalid timestamp 'yesterday': expected an ISO 8601 datetime or 'unset'"],
    ['non-string metadata', { items: [{ content: 'a', metadata: { n: 1 } }] }, ['body', 'items', 0, 'metadata', 'n'], 'Input should be a valid string'],
    ['bad update_mode', { items: [{ content: 'a', update_mode: 'merge' }] }, ['body', 'items', 0, 'update_mode'], "Input should be \"replace\" | \"append\""],
    ['non-UUID operation_id', { items: [{ content: 'a' }], async: true, operation_id: 'nope' }, ['body', 'operation_id'], 'Value error, operation_id must be a valid UUID'],
  ];
  it.each(cases)('%s', async (_name, body, loc, msg) => {
    const res = await retain('r-bad', body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, msg })]));
    expect((await call(server, 'GET', `${B}?q=r-bad`)).body.banks).toEqual([]);
  });

  it('invalid JSON is 422 json_invalid', async () => {
    const res = await call(server, 'POST', `${B}/r-bad/memories`, '{"items": [', { 'Content-Type': 'application/json' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('json_invalid');
  });
});

describe('retain (async) and operation_id idempotency', () => {
  const opId = '0b6f1d8e-7d7c-4c1e-9a53-1f2e3d4c5b6a';

  it('returns an operation that completes, and re-submitting the id does no new work', async () => {
    const res = await retain('r-async', { items: [{ content: 'async fact one', document_id: 'd1' }], async: true, operation_id: opId });
    expect(res.body).toEqual({ success: true, bank_id: 'r-async', items_count: 1, async: true, operation_id: opId });
    await server.idle();
    const status = await call(server, 'GET', `${B}/r-async/operations/${opId}`);
    expect(status.body).toMatchObject({ operation_id: opId, status: 'completed', operation_type: 'batch_retain', error_message: null });
    expect(status.body.child_operations).toHaveLength(1);
    expect(status.body.child_operations[0]).toMatchObject({ status: 'completed', items_count: 1 });
    const again = await retain('r-async', { items: [{ content: 'different content', document_id: 'd2' }], async: true, operation_id: opId });
    expect(again.body).toMatchObject({ operation_id: opId, items_count: 1 });
    await server.idle();
    expect((await call(server, 'GET', `${B}/r-async/documents?tags_match=any`)).body.total).toBe(1);
  });

  it('an async retain stores its items with document ids fixed at submission (a re-run rewrites the same document)', async () => {
    server.setFaults([{ kind: 'pendingOperation', taskType: 'retain', times: 1 }]);
    const res = await retain('r-async-ids', { items: [{ content: 'no id given' }, { content: 'joins it' }], async: true });
    await server.idle();
    server.setFaults([]);
    const ops = await call(server, 'GET', `${B}/r-async-ids/operations?type=retain`);
    const child = ops.body.operations[0].id as string;
    const status = await call(server, 'GET', `${B}/r-async-ids/operations/${child}?include_payload=true`);
    const items = status.body.task_payload.items as { document_id: string }[];
    expect(items).toHaveLength(2);
    expect(items[0]?.document_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(items[1]?.document_id).toBe(items[0]?.document_id);
    expect(res.body.operation_id).not.toBe(child);
  });

  it('a read of the bank right after an async retain finds it (the few waiting retains run first)', async () => {
    const res = await retain('r-async-read', { items: [{ content: 'the deploy key rotates every Tuesday', document_id: 'rot' }], async: true });
    expect(res.status).toBe(200);
    // No idle(): the document GET and the recall themselves let the waiting retain run.
    expect((await call(server, 'GET', `${B}/r-async-read/documents/rot`)).body.original_text).toBe('the deploy key rotates every Tuesday');
    await retain('r-async-read', { items: [{ content: 'the staging database restarts nightly', document_id: 'db' }], async: true });
    const recalled = await call(server, 'POST', `${B}/r-async-read/memories/recall`, { query: 'when does staging database restart' });
    expect(recalled.body.results.map((r: { text: string }) => r.text)).toContain('the staging database restarts nightly');
    // A sync append after an async one to the same document keeps its place.
    await retain('r-async-read', { items: [{ content: 'first, async', document_id: 'order', update_mode: 'append' }], async: true });
    await retain('r-async-read', { items: [{ content: 'second, sync', document_id: 'order', update_mode: 'append' }] });
    expect((await call(server, 'GET', `${B}/r-async-read/documents/order`)).body.original_text).toBe('first, async\nsecond, sync');
  });

  it('the same operation_id on another bank is 409', async () => {
    const res = await retain('r-async-other', { items: [{ content: 'x' }], async: true, operation_id: opId });
    expect(res.status).toBe(409);
    expect(res.body.detail).toBe(`operation_id ${opId} is already in use`);
  });

  it('duplicate document ids in one async request are a 400', async () => {
    const res = await retain('r-async', { items: [{ content: 'a', document_id: 'dup' }, { content: 'b', document_id: 'dup' }], async: true });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('Batch contains duplicate document_ids: ["dup"]');
  });

  it('async append without a document id fails the operation with a readable message', async () => {
    const res = await retain('r-async-fail', { items: [{ content: 'a', update_mode: 'append' }], async: true });
    await server.idle();
    const status = await call(server, 'GET', `${B}/r-async-fail/operations/${res.body.operation_id}`);
    expect(status.body.status).toBe('failed');
    expect(status.body.error_message).toBe("update_mode='append' requires a document_id");
  });
});

describe('concurrent appends to one document', () => {
  it('never lose a turn', async () => {
    await retain('r-race', { items: [{ content: 'turn-start', document_id: 'session' }] });
    const turns = Array.from({ length: 40 }, (_, i) => `turn-${i}`);
    await Promise.all(turns.map((t) => retain('r-race', { items: [{ content: t, document_id: 'session', update_mode: 'append' }] })));
    const text: string = (await doc('r-race', 'session')).body.original_text;
    for (const t of turns) expect(text.split('\n')).toContain(t);
    expect(text.split('\n')).toHaveLength(41);
  });
});
