import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, describe, expect, it } from 'vitest';
import { fileToken } from '../../src/config/load.js';
import { writeConfigFile } from '../../src/adapters/fs/configFile.js';
import { readJsonFile, writeJsonFile } from '../../src/adapters/fs/stateFiles.js';
import { applyConfigEdit } from '../../src/config/configEdit.js';

const root = mkdtempSync(path.join(tmpdir(), 'am-configfiles-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('applyConfigEdit', () => {
  it('sets nested paths, removes keys and prunes emptied objects, keeping the rest', () => {
    const data = { recall: { maxTokens: 5, budget: 'low' }, banks: { project: { bankId: 'a' } }, other: [1] };
    const out = applyConfigEdit(data, { set: [{ path: 'memory.timeoutMs', value: 10 }, { path: 'recall.budget', value: 'high' }], unset: ['banks.project.bankId', 'recall.maxTokens'] });
    expect(out).toEqual({ recall: { budget: 'high' }, other: [1], memory: { timeoutMs: 10 } });
    expect(data.recall.maxTokens).toBe(5);
  });

  it('replaces a scalar in the way and keeps __proto__ a plain key', () => {
    const out = applyConfigEdit({ recall: 3 }, { set: [{ path: 'recall.maxTokens', value: 7 }, { path: '__proto__.polluted', value: true }], unset: [] });
    expect(out['recall']).toEqual({ maxTokens: 7 });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
  });

  it('unsetting a missing path changes nothing', () => {
    expect(applyConfigEdit({ a: { b: 1 } }, { set: [], unset: ['a.c', 'x.y.z'] })).toEqual({ a: { b: 1 } });
  });
});

describe('writeConfigFile', () => {
  it('writes atomically when the file still has the bytes it was read with', async () => {
    const file = path.join(root, 'a', 'memory.json');
    const result = await writeConfigFile(file, 'project', 'absent', { recall: { budget: 'low' } });
    expect(E.isRight(result)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ recall: { budget: 'low' } });
    expect(readdirSync(path.dirname(file))).toEqual(['memory.json']);
  });

  it('refuses when the file changed since it was read, and leaves it as it is', async () => {
    const file = path.join(root, 'b.json');
    writeFileSync(file, '{"a":1}');
    const stale = fileToken('{"a":0}');
    const result = await writeConfigFile(file, 'project', stale, { a: 2 });
    expect(E.isLeft(result) && result.left.message).toContain('changed while the patch was being applied');
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}');
    expect(readdirSync(root).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('reports a directory it cannot write into without throwing', async () => {
    const blocker = path.join(root, 'blocker');
    writeFileSync(blocker, 'not a directory');
    const result = await writeConfigFile(path.join(blocker, 'memory.json'), 'user', 'absent', {});
    expect(E.isLeft(result) && result.left.message).toMatch(/could not write .* nothing was changed/);
  });
});

describe('state files', () => {
  it('round-trips JSON, reports a missing file as empty and bad JSON by position', async () => {
    const file = path.join(root, 'memory', 'receipt.json');
    expect(await readJsonFile(file)).toEqual({});
    expect(await writeJsonFile(file, { a: 1 })).toBeUndefined();
    expect(await readJsonFile(file)).toEqual({ value: { a: 1 } });
    writeFileSync(file, '{"a": }');
    expect((await readJsonFile(file)).error).toMatch(/invalid JSON at line 1:7/);
  });
});
