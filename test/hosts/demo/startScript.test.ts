/**
 * `npm start` as a person runs it: it says what it is doing before it builds, and builds the
 * command line alone (the library, the self-contained pi bundle and the type declarations are
 * not what it runs). It built all but the declarations, silently: 57 s on a loaded two-core
 * machine (31 s of CPU) before its first line; now 5 s of CPU.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../../..');

describe('npm start', () => {
  it('says it is building, then builds only the command line it runs', async () => {
    const scripts = (JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const start = scripts['start'] ?? '';
    const steps = start.split(' && ');
    expect(steps[0]).toMatch(/^echo 'agent-memory: building/);
    expect(steps[1]).toBe('rollup -c rollup.config.mjs --environment CLI_ONLY --silent');
    expect(steps.at(-1)).toBe('node dist/cli.mjs start');
    process.env['CLI_ONLY'] = 'true';
    try {
      const config = (await import(`${path.join(repo, 'rollup.config.mjs')}?cli-only`)) as { default: readonly { input: unknown; output: unknown }[] };
      expect(config.default.map((c) => c.input)).toEqual(['src/hosts/cli/main.ts']);
    } finally {
      delete process.env['CLI_ONLY'];
    }
  });
});
