/**
 * Round 12: every numeric field a project file or `memory_config` may set has a bound, as
 * `recall.maxQueryChars` since round 11. `memory.timeoutMs` took any value up to a timer's
 * limit (24.8 days): a cloned repository's `.pi/memory.json`, or a steered model through
 * `memory_config` (`scope: "global"`: every project), made every memory tool call and retain
 * flush wait that long on a server that stalls. `recall.maxTokens` asked the server for 2
 * billion tokens, `retain.flushIntervalMs: 1` woke a timer every millisecond,
 * `import.toolResultSummaryMaxChars` kept whole tool results as a "summary", `status.maxLength`
 * any footer. A value past the bound in a file is refused by field with a warning (the default
 * applies); a patch naming one is refused and writes nothing. Real `memory_config` over real
 * files, real `loadConfig`.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_RECALL_TOKENS, MAX_SERVER_TIMEOUT_MS, MAX_STATUS_CHARS, MAX_SUMMARY_CHARS, MIN_FLUSH_INTERVAL_MS } from '../../src/codecs/codecs.js';
import { loadConfig } from '../../src/config/load.js';
import { startHarness } from '../tools/harness.js';

/** Each bounded field: its path, the config's name for it, its default, values past the bound, and the bound itself (still allowed). */
const BOUNDED = [
  { path: 'memory.timeoutMs', name: 'timeoutMs', fallback: 30_000, past: [MAX_SERVER_TIMEOUT_MS + 1, 600_000, 2_147_483_647], edge: MAX_SERVER_TIMEOUT_MS },
  { path: 'recall.maxTokens', name: 'recallMaxTokens', fallback: 800, past: [MAX_RECALL_TOKENS + 1, 2_000_000_000], edge: MAX_RECALL_TOKENS },
  { path: 'recall.userMaxTokens', name: 'recallUserMaxTokens', fallback: 400, past: [MAX_RECALL_TOKENS + 1, 2_000_000_000], edge: MAX_RECALL_TOKENS },
  { path: 'retain.flushIntervalMs', name: 'retainFlushIntervalMs', fallback: 0, past: [1, MIN_FLUSH_INTERVAL_MS - 1], edge: MIN_FLUSH_INTERVAL_MS },
  { path: 'import.toolResultSummaryMaxChars', name: 'importToolSummaryMaxChars', fallback: 500, past: [MAX_SUMMARY_CHARS + 1, 2_000_000_000], edge: MAX_SUMMARY_CHARS },
  { path: 'status.maxLength', name: 'statusMaxLength', fallback: 24, past: [MAX_STATUS_CHARS + 1, 2_000_000_000], edge: MAX_STATUS_CHARS },
] as const;

const nest = (dotted: string, value: unknown): Record<string, unknown> => {
  const [head, ...rest] = dotted.split('.');
  return { [head ?? '']: rest.length === 0 ? value : nest(rest.join('.'), value) };
};

describe('numeric config fields are bounded', () => {
  it("a clone's project file past a bound: refused by field with a warning, and the default applies", async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'am-sec-bounds-'));
    const cwd = path.join(root, 'clone');
    const home = path.join(root, 'home');
    await mkdir(path.join(cwd, '.pi'), { recursive: true });
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    for (const field of BOUNDED) {
      for (const value of field.past) {
        await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ setupComplete: true, ...nest(field.path, value) }));
        const loaded = loadConfig({ cwd, home, env: { HOME: home } });
        expect((loaded.config as unknown as Record<string, unknown>)[field.name], `${field.path} = ${value}`).toBe(field.fallback);
        expect(loaded.warnings.map((w) => w.message).join('\n')).toContain(`field ${field.path}`);
      }
      // The bound itself is still the person's to choose.
      await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ setupComplete: true, ...nest(field.path, field.edge) }));
      const loaded = loadConfig({ cwd, home, env: { HOME: home } });
      expect((loaded.config as unknown as Record<string, unknown>)[field.name], `${field.path} = ${field.edge}`).toBe(field.edge);
      expect(loaded.warnings.map((w) => w.message).join('\n')).not.toContain(`field ${field.path}`);
    }
  });

  it('memory_config refuses a patch past a bound in both scopes, and writes nothing', async () => {
    const h = await startHarness({ user: { memory: { timeoutMs: 30_000 } } });
    try {
      const userFile = path.join(h.home, '.pi', 'agent', 'memory.json');
      const projectFile = path.join(h.stateDir, 'memory.json');
      const before = [await readFile(userFile, 'utf8'), await readFile(projectFile, 'utf8')];
      for (const scope of ['global', 'project'] as const) {
        for (const [key, value] of [
          ['timeoutMs', MAX_SERVER_TIMEOUT_MS + 1],
          ['timeoutMs', 2_147_483_647],
          ['recallMaxTokens', 2_000_000_000],
          ['recallUserMaxTokens', MAX_RECALL_TOKENS + 1],
          ['retainFlushIntervalMs', 1],
        ] as const) {
          const error = await h.fails('memory_config', { action: 'patch', scope, patch: { [key]: value }, dryRun: false });
          expect(error.code, `${scope} ${key} = ${value}`).toBe('invalidParams');
          expect(error.field).toBe(`patch.${key}`);
        }
      }
      expect([await readFile(userFile, 'utf8'), await readFile(projectFile, 'utf8')]).toEqual(before);
      const set = await h.ok('memory_config', { action: 'patch', scope: 'project', patch: { timeoutMs: MAX_SERVER_TIMEOUT_MS, recallMaxTokens: MAX_RECALL_TOKENS }, dryRun: false });
      expect(set.text).toContain(String(MAX_SERVER_TIMEOUT_MS));
    } finally {
      await h.close();
    }
  }, 60_000);
});
