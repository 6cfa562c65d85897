/**
 * Attack (round 8): hostile parameters to all 12 memory tools, as a steered model (or a broken
 * host) can send them: objects nested 200,000 deep (whole, and in `metadata`, `patch`,
 * `responseSchema`, `tagGroups`), NUL bytes, lone surrogates (invalid UTF-16), path steps, a
 * 200 KB string, numbers out of range, `__proto__` keys. Parameters nested that deep threw a
 * stack overflow out of ten of the tools (the call rejected instead of failing by field); now
 * every call answers as a value, the deep ones `invalidParams`, and nothing is applied. The real
 * tools (`runTool` through the catalogue), queue and embedded server.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTool } from '../../src/tools/catalogue.js';
import type { ToolOutcome } from '../../src/tools/result.js';
import { call } from '../helpers/embeddedServer.js';
import { startHarness, type Harness } from '../tools/harness.js';

const TOOLS = [
  'memory_recall', 'memory_retain', 'memory_retain_global', 'memory_reflect', 'memory_status', 'memory_seed_git',
  'memory_scope', 'memory_config', 'memory_bank', 'memory_mental_model', 'memory_knowledge', 'memory_scope_migrate',
] as const;

const nested = (depth: number, leaf: unknown = 'x'): unknown => {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
};
const nestedArray = (depth: number): unknown => {
  let value: unknown = [];
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
};

const DEEP = 200_000;
const STRINGS = ['\u0000', 'a\u0000b', '\ud800', '\udfff tail \ud800', '..', '../../etc/passwd', '\u202eevil', 'A'.repeat(200_000)];
const NUMBERS = [-1, 0, 1e308, -1e308, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53 + 2, 1.5];

const answers = async (h: Harness, tool: string, params: unknown): Promise<ToolOutcome> => {
  const found = findTool(tool);
  if (found === undefined) throw new Error(`no tool ${tool}`);
  // A rejection here (a throw out of the tool) fails the test: a tool answers as a value.
  return found.run(params, await h.context());
};

describe('hostile parameters to every memory tool', () => {
  let h: Harness;
  let configBefore: string;
  beforeAll(async () => {
    h = await startHarness();
    configBefore = readFileSync(path.join(h.stateDir, 'memory.json'), 'utf8');
  });
  afterAll(async () => {
    await h.close();
  });

  it.each(TOOLS)('%s: parameters nested 200,000 deep fail by value (invalidParams), whole or in a field', async (tool) => {
    for (const params of [
      nested(DEEP),
      { action: 'get', query: 'q', content: 'c', context: 'c', metadata: nested(DEEP) },
      { action: 'patch', patch: nested(DEEP), dryRun: false },
      { action: 'get', query: 'q', responseSchema: nested(DEEP), tagGroups: nestedArray(DEEP) },
    ]) {
      const outcome = await answers(h, tool, params);
      expect(outcome.ok, tool).toBe(false);
      if (!outcome.ok) expect(outcome.error.code, tool).toBe('invalidParams');
    }
  });

  it.each(TOOLS)('%s: NUL, lone surrogates, path steps, 200 KB strings and numbers out of range answer as values and apply nothing', async (tool) => {
    for (const s of STRINGS) {
      await answers(h, tool, {
        action: 'get', query: s, content: s, context: s, bank: s, id: s, documentId: s, tags: [s], name: s, sourceQuery: s,
        parentId: s, timestamp: s, metadata: { k: s }, entities: [s], patch: { projectBankId: s }, bankTags: [s],
      });
    }
    for (const n of NUMBERS) {
      await answers(h, tool, { action: 'list', query: 'q', content: 'c', context: 'c', maxTokens: n, limit: n, recallChunksMaxTokens: n, maxSourceFactsTokens: n, dryRun: n });
    }
    await answers(h, tool, JSON.parse('{"__proto__": {"dryRun": false}, "action": "patch", "patch": {"__proto__": {"baseUrl": "http://127.0.0.1:1"}}}'));
  });

  it('nothing of it reached the config file or a bank that a path step names', async () => {
    expect(readFileSync(path.join(h.stateDir, 'memory.json'), 'utf8')).toBe(configBefore);
    const banks = JSON.stringify((await call(h, 'GET', '/v1/default/banks')).body);
    expect(banks).not.toContain('passwd');
    expect(banks).not.toContain('\\u0000');
    // The harness's own bank is still there to answer.
    expect((await answers(h, 'memory_recall', { query: 'anything' })).ok).toBe(true);
  });
});
