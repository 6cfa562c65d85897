/** The in-memory twin keeps the port's contract: append/replace, tag modes, idempotent async retain, faults, gating. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { deriveCapabilities } from '../../../src/adapters/server/capabilities.js';
import { createMemoryTwin } from '../../../src/adapters/server/memoryTwin.js';

const right = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) throw new Error(`expected success, got ${JSON.stringify(result.left)}`);
  return result.right;
};

describe('memory twin', () => {
  it('appends to and replaces a document', async () => {
    const twin = createMemoryTwin();
    right(await twin.retain('b', { items: [{ content: 'first turn', document_id: 'd1' }] })());
    right(await twin.retain('b', { items: [{ content: 'second turn', document_id: 'd1', update_mode: 'append' }] })());
    expect(twin.documentText('b', 'd1')).toBe('first turn\nsecond turn');
    right(await twin.retain('b', { items: [{ content: 'rewritten', document_id: 'd1' }] })());
    expect(twin.documentText('b', 'd1')).toBe('rewritten');
    expect(twin.counts('b')).toEqual({ documents: 1, facts: 1 });
  });

  it('rejects append without a document id like the server', async () => {
    const twin = createMemoryTwin();
    const result = await twin.retain('b', { items: [{ content: 'x', update_mode: 'append' }] })();
    expect(E.isLeft(result) && result.left._tag).toBe('invalidRequest');
  });

  it('recalls by substring and honours the tag modes', async () => {
    const twin = createMemoryTwin();
    right(await twin.retain('b', { items: [{ content: 'alice likes tea', document_id: 'a', tags: ['user:alice'] }, { content: 'team likes tea', document_id: 't' }] })());
    const any = right(await twin.recall('b', { query: 'tea', tags: ['user:alice'] })());
    expect(any.results.map((hit) => hit.document_id).sort()).toEqual(['a', 't']);
    const strict = right(await twin.recall('b', { query: 'tea', tags: ['user:alice'], tags_match: 'any_strict' })());
    expect(strict.results.map((hit) => hit.document_id)).toEqual(['a']);
    const exact = right(await twin.recall('b', { query: 'tea', tags_match: 'exact' })());
    expect(exact.results.map((hit) => hit.document_id)).toEqual(['t']);
  });

  it('does not repeat an async retain with the same operation id', async () => {
    const twin = createMemoryTwin();
    const req = { items: [{ content: 'once', document_id: 'd' }], async: true, operation_id: '6f1c0a52-8a11-4e55-9d0b-0f7a4c1f0e11' };
    right(await twin.retain('b', req)());
    right(await twin.retain('b', { ...req, items: [{ content: 'twice', document_id: 'd', update_mode: 'append' as const }] })());
    expect(twin.documentText('b', 'd')).toBe('once');
  });

  it('injects failures a given number of times and logs every call', async () => {
    const twin = createMemoryTwin();
    twin.inject({ op: 'retain', failure: { _tag: 'unreachable', message: 'down' }, times: 1 });
    const first = await twin.retain('b', { items: [{ content: 'x' }] })();
    expect(E.isLeft(first) && first.left._tag).toBe('unreachable');
    expect(E.isRight(await twin.retain('b', { items: [{ content: 'x' }] })())).toBe(true);
    expect(twin.calls.map((call) => call.op)).toEqual(['retain', 'retain']);
  });

  it('gates options on its advertised capabilities', async () => {
    const twin = createMemoryTwin({ capabilities: deriveCapabilities({ api_version: '0.7.0' }, false) });
    const append = await twin.retain('b', { items: [{ content: 'x', document_id: 'd', update_mode: 'append' }] })();
    expect(E.isLeft(append) && append.left).toMatchObject({ _tag: 'unsupportedCapability', remediation: 'upgrade the server to 0.8 or later' });
    const tree = await twin.knowledgeTree('b')();
    expect(E.isLeft(tree) && tree.left._tag).toBe('unsupportedCapability');
    expect(twin.counts('b').documents).toBe(0);
  });

  it('reports a missing bank and lists an ensured one', async () => {
    const twin = createMemoryTwin();
    expect(right(await twin.bankExists('proj')())).toBe(false);
    right(await twin.ensureBank('proj', { mission: 'coding' })());
    expect(right(await twin.bankExists('proj')())).toBe(true);
    expect(right(await twin.listBanks({ q: 'pro' })()).map((bank) => bank.bank_id)).toEqual(['proj']);
  });
});
