/**
 * Attack (round 9, left by round 8): a steered model sends a tool a 5 MB string. `runTool`
 * redacted every string of the parameters before the codec checked its length, so the string
 * cost up to ~0.6 s of CPU in redaction (memory_config: in its secret check) before it was
 * refused; and the length checked was the redacted one, so a string over the limit that held a
 * secret passed. Now the sizes the tool's schema states are checked on the raw parameters first,
 * by field, and the error names the field, the limit and the size, never the value. A huge key
 * or a million unknown keys no longer makes a huge error either. Real tools through the
 * catalogue, the real queue and embedded server; no timing is asserted (the CPU figures are in
 * docs/security.md, Round 9).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redact } from '../../src/config/redact.js';
import { findTool, toolCatalogue } from '../../src/tools/catalogue.js';
import type { ToolOutcome } from '../../src/tools/result.js';
import { startHarness, type Harness } from '../tools/harness.js';

const run = async (h: Harness, tool: string, params: unknown): Promise<ToolOutcome> => {
  const found = findTool(tool);
  if (found === undefined) throw new Error(`no tool ${tool}`);
  return found.run(params, await h.context());
};

const refusal = (outcome: ToolOutcome): { field?: string; message: string; code: string } => {
  if (outcome.ok) throw new Error(`accepted: ${outcome.result.text.slice(0, 200)}`);
  return { ...(outcome.error.field === undefined ? {} : { field: outcome.error.field }), message: outcome.error.message, code: outcome.error.code };
};

/** Every top-level string parameter with a stated length, per tool. */
const limitedStrings = toolCatalogue.flatMap((tool) =>
  Object.entries((tool.parameters['properties'] ?? {}) as Record<string, { type?: string; maxLength?: number }>).flatMap(([field, schema]) =>
    schema.type === 'string' && typeof schema.maxLength === 'number' ? [[tool.name, field, schema.maxLength] as const] : [],
  ),
);

// A GitHub token: redaction turns its 40 characters into `[REDACTED]`, 30 fewer.
const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}f6G7h8`;

/** Valid parameters for each tool, so the one field over its limit is the only thing wrong. */
const BASE: Readonly<Record<string, Record<string, unknown>>> = {
  memory_recall: { query: 'q' },
  memory_retain: { content: 'c', context: 'c' },
  memory_retain_global: { content: 'c', context: 'c' },
  memory_reflect: { query: 'q' },
  memory_bank: { action: 'update_mission', dryRun: true },
  memory_mental_model: { action: 'get', id: 'm' },
  memory_knowledge: { action: 'search', query: 'q' },
};

/** Over `max` by 21 characters as sent; at most `max` once redacted. */
const overWithSecret = (max: number): string => `${'a'.repeat(max - 20)} ${TOKEN}`;

// The shape that cost redaction the most of those tried (~0.55 s per 5 MB here).
const HUGE = 'https://a:b@x.com/?key=v '.repeat(200_000);

describe('a tool parameter is held to its size before any of its text is read', () => {
  let h: Harness;
  let configBefore: string;
  beforeAll(async () => {
    h = await startHarness();
    configBefore = readFileSync(path.join(h.stateDir, 'memory.json'), 'utf8');
  });
  afterAll(async () => {
    await h.close();
  });

  it('covers a limited string in every tool that takes text', () => {
    const tools = new Set(limitedStrings.map(([tool]) => tool));
    // memory_status, memory_scope, memory_seed_git and memory_scope_migrate take no top-level text.
    expect([...tools].sort()).toEqual(
      ['memory_bank', 'memory_knowledge', 'memory_mental_model', 'memory_recall', 'memory_reflect', 'memory_retain', 'memory_retain_global'].sort(),
    );
  });

  it.each(limitedStrings)('%s: %s over its %i characters is refused by field, even when redaction would shorten it under the limit', async (tool, field, max) => {
    const value = overWithSecret(max);
    expect(redact(value).length).toBeLessThanOrEqual(max);
    // On the code before, this call ran (the redacted value fit) or failed later than by its size.
    const error = refusal(await run(h, tool, { ...BASE[tool], [field]: value }));
    expect(error.code).toBe('invalidParams');
    expect(error.field).toBe(field);
    expect(error.message).toContain(`field ${field}: at most ${max} characters, got ${value.length}`);
    expect(error.message).not.toContain(TOKEN);
  });

  const KEY = 'k'.repeat(5_000_000);
  // [what, parameter, value, path refused, the limit when the tool declares the parameter, the size reported]
  const NESTED: readonly (readonly [string, string, unknown, string, string, number])[] = [
    ['tags', 'tags', ['ok', HUGE], 'tags.1', 'at most 128 characters', HUGE.length],
    ['metadata', 'metadata', { k: HUGE }, 'metadata.k', 'at most 2048 characters', HUGE.length],
    ['a metadata key', 'metadata', { [KEY]: 'v' }, `metadata.${KEY.slice(0, 64)}…`, 'a key of at most 1024 characters', KEY.length],
    ['patch', 'patch', { projectBankId: HUGE }, 'patch.projectBankId', 'at most 4096 characters', HUGE.length],
    ['responseSchema', 'responseSchema', { description: HUGE }, 'responseSchema.description', 'at most 4096 characters', HUGE.length],
    ['tagGroups', 'tagGroups', [{ tags: [HUGE] }], 'tagGroups.0.tags.0', 'at most 128 characters', HUGE.length],
    ['entities', 'entities', [{ text: HUGE }], 'entities.0.text', 'at most 4096 characters', HUGE.length],
    ['an unknown parameter', 'nope', HUGE, 'nope', 'at most 4096 characters', HUGE.length],
    ['a huge list', 'bankTags', Array.from({ length: 100_000 }, () => 'x'), 'bankTags', 'items', 100_000],
  ];

  it.each(toolCatalogue.map((t) => t.name))('%s: 5 MB in a field, a list, a map, a key or an unknown parameter is refused by its path, in a short error', async (tool) => {
    const declared = Object.keys((findTool(tool)?.parameters['properties'] ?? {}) as object);
    for (const [what, param, value, field, limit, size] of NESTED) {
      const error = refusal(await run(h, tool, { [param]: value }));
      expect(error.code, `${tool} ${what}`).toBe('invalidParams');
      expect(error.field, `${tool} ${what}`).toBe(field);
      // A parameter the tool declares is held to its schema; an undeclared one to the flat bounds.
      expect(error.message, `${tool} ${what}`).toContain(declared.includes(param) || what.includes('key') ? limit : 'at most');
      expect(error.message, `${tool} ${what}`).toContain(`got ${size}`);
      expect(error.message.length, `${tool} ${what}`).toBeLessThan(600);
    }
  });

  it('20,000 unknown keys make an error of a few lines, not one of every key', async () => {
    const params = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`unknown${i}`, 1]));
    for (const tool of ['memory_status', 'memory_recall']) {
      const error = refusal(await run(h, tool, params));
      expect(error.code).toBe('invalidParams');
      expect(error.message.length).toBeLessThan(5000);
      expect(error.message).toContain('more fields');
    }
  });

  it('nothing of it reached the config file', () => {
    expect(readFileSync(path.join(h.stateDir, 'memory.json'), 'utf8')).toBe(configBefore);
  });
});
