/** The validator the conformance suite relies on: it must catch what it claims to catch. */
import { describe, expect, it } from 'vitest';
import { checkResponse, templateOf } from './openapi.js';

describe('OpenAPI response validator', () => {
  it('maps concrete paths to templates, static segments first, document ids with slashes', () => {
    expect(templateOf('GET', '/v1/default/banks/b/memories/list')).toBe('/v1/default/banks/{bank_id}/memories/list');
    expect(templateOf('GET', '/v1/default/banks/b/memories/abc')).toBe('/v1/default/banks/{bank_id}/memories/{memory_id}');
    expect(templateOf('GET', '/v1/default/banks/b/documents/a/b/c')).toBe('/v1/default/banks/{bank_id}/documents/{document_id}');
    expect(templateOf('GET', '/v1/default/banks/b/knowledge-base/tree?x=1')).toBe('/v1/default/banks/{bank_id}/knowledge-base/tree');
    expect(templateOf('GET', '/nowhere')).toBeUndefined();
  });

  it('accepts a conforming body and names the field of a non-conforming one', () => {
    expect(checkResponse('POST', '/v1/default/banks/b/reflect', 200, { text: 'ok', based_on: { memories: [{ text: 'x' }] } })).toBeUndefined();
    expect(checkResponse('POST', '/v1/default/banks/b/reflect', 200, {})).toContain("must have required property 'text'");
    expect(checkResponse('GET', '/v1/default/banks/b/knowledge-base/tree', 200, { roots: [{ id: 'a', kind: 'shelf', name: 'n' }] })).toContain('body/roots/0/kind');
    expect(checkResponse('GET', '/v1/default/banks/b/mental-models', 200, { items: [{ id: 'm', bank_id: 'b', name: 'n', tags: 'x' }] })).toContain('body/items/0/tags');
  });

  it('resolves nested component refs (OpenAPI 3.1 anyOf with null)', () => {
    const node = { id: 'a', kind: 'folder', name: 'n', parent_id: null, children: [{ id: 'b', kind: 'page', name: 'p', children: [] }] };
    expect(checkResponse('GET', '/v1/default/banks/b/knowledge-base/tree', 200, { roots: [node] })).toBeUndefined();
  });

  it('undeclared error statuses must be {"detail": ...}; undeclared success statuses are refused', () => {
    expect(checkResponse('GET', '/v1/default/banks/b/profile', 404, { detail: "Bank 'b' not found" })).toBeUndefined();
    expect(checkResponse('GET', '/v1/default/banks/b/profile', 404, { message: 'nope' })).toContain('detail');
    expect(checkResponse('GET', '/v1/default/banks/b/profile', 201, {})).toContain('not declared');
    expect(checkResponse('POST', '/v1/default/banks/b/reflect', 422, { detail: [{ loc: ['body'], msg: 'm', type: 't' }] })).toBeUndefined();
    expect(checkResponse('POST', '/v1/default/banks/b/reflect', 422, { detail: 'a string' })).toBeDefined();
  });
});
