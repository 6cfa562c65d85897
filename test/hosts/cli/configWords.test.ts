/**
 * A person's seventh pass: a config value memory could not use was named with the codec of
 * this source ("recall.timeoutMs: expected RecallDeadlineMs (got "fast")"), and a mistyped
 * key only as "unknown field". The doctor, run as a subprocess, says what the field takes in
 * words and which field a typo most likely meant.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'am-config-words-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('config warnings in words', () => {
  it('names what a field takes and the field a typo meant', async () => {
    const project = path.join(root, 'project');
    const home = path.join(root, 'home');
    mkdirSync(path.join(project, '.pi'), { recursive: true });
    mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
    writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: 'http://127.0.0.1:9', timeoutMs: 0 } }));
    writeFileSync(path.join(project, '.pi', 'memory.json'), JSON.stringify({ recall: { timeoutMs: 'fast', maxTokens: 100000 }, retian: { enabled: false } }));
    const { stdout, stderr } = await runCli(['doctor'], { cwd: project, env: { HOME: home } });
    const out = stdout + stderr;
    expect(out).toContain('field recall.timeoutMs: expected a whole number of milliseconds, 1 to 30,000 (got "fast")');
    expect(out).toContain('field recall.maxTokens: expected a whole number of tokens, 1 to 8,192');
    expect(out).toContain('field memory.timeoutMs: expected a whole number of milliseconds, 1 to 60,000');
    expect(out).toContain('field retian: unknown field, ignored (did you mean retain?)');
    expect(out).not.toMatch(/RecallDeadlineMs|RecallTokens|ServerTimeoutMs|PositiveInt/);
  }, 60_000);
});
