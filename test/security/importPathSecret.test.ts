/**
 * Found (nineteenth session): a secret in a session file's path. A directory named with a token
 * (a checkout under `~/work/ghp_…`, a tool's cache keyed by one) holds session files; the import
 * redacted what it sends, but its checkpoint recorded every file's path as it was (the run's
 * sources, the plan's sessions, documents, skipped files and malformed lines), and its manifest
 * each session's path. The real CLI on real files against the embedded server: no file the
 * import writes and nothing it prints holds the token.
 */
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { importWorkspace } from '../helpers/importWorkspace.js';

const TOKEN = 'ghp_Q7vLk2NwX9aBcD4eFgH6iJ8kLmN0pQrStUvW';
const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');

/** Every regular file under `dir`, recursively. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined) return [];
    return stat.isDirectory() ? filesUnder(file) : [file];
  });

describe('a secret in a session file path (real CLI, real files, embedded server)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('the checkpoint, the manifest, every other file the import writes and everything it prints hide it', async () => {
    const { root, cwd, home, sessions } = await importWorkspace('am-sec-import-path-', { serverUrl: server.url, bankId: 'import-path', projectId: 'import-path' });
    const secretDir = path.join(sessions, `checkout-${TOKEN}`);
    mkdirSync(secretDir);
    const pi = readFileSync(path.join(FIXTURES, 'pi/sessions/pi073-linear.jsonl'), 'utf8').split('\n');
    const head = JSON.parse(pi[0] ?? '{}') as Record<string, unknown>;
    // One good session with a malformed line, and one file that is not a session (skipped, by path).
    writeFileSync(path.join(secretDir, `session-${TOKEN}.jsonl`), [JSON.stringify({ ...head, cwd }), '{not json', ...pi.slice(1)].join('\n'));
    writeFileSync(path.join(secretDir, 'notes.jsonl'), '{"hello":"world"}\n');

    const before = new Set(filesUnder(root));
    const outputs: string[] = [];
    for (const flags of [['--dry-run'], [], ['--json']]) {
      const run = await runCli(['import', sessions, ...flags], { cwd, env: { HOME: home } });
      expect(run.code, run.stderr).toBe(0);
      outputs.push(run.stdout, run.stderr);
    }
    // The session was imported (the test reads what a real import wrote).
    expect(outputs.join('\n')).toMatch(/done/);
    const doctor = await runCli(['doctor'], { cwd, env: { HOME: home } });
    const status = await runCli(['status'], { cwd, env: { HOME: home } });
    outputs.push(doctor.stdout, doctor.stderr, status.stdout, status.stderr);
    for (const text of outputs) expect(text).not.toContain(TOKEN);

    const written = filesUnder(root).filter((file) => !before.has(file));
    const names = written.map((file) => path.relative(root, file));
    expect(names.some((name) => name.includes('import-checkpoint'))).toBe(true);
    expect(names.some((name) => name.includes('manifest'))).toBe(true);
    const leaking = written.filter((file) => readFileSync(file, 'latin1').includes(TOKEN)).map((file) => path.relative(root, file));
    expect(leaking).toEqual([]);
  }, 120_000);
});
