/**
 * Issue 26 item 10, for real: the chaos run lost acknowledged turns whose pi process could not
 * create the optional `.pi/memory/trace` directory (on a read-only or full state dir Node's
 * recursive mkdir says `ENOENT`): the memory runtime did not start, pi answered and exited 0,
 * and nothing said the turn was not kept. Here the real pi CLI runs one turn (scripted model,
 * embedded server) with the trace directory impossible to create, then with the whole state
 * dir read-only before the first turn (the chaos run's window, as it first met a fresh clone).
 * Memory starts without tracing and keeps the turn when it can; when it cannot, pi's stderr
 * says so in words the chaos harness recognises (`toldNotRetained`).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { runPiCli } from '../helpers/piCli.js';
import { makeProject, type Project } from '../hosts/pi/piSdk.js';
import { toldNotRetained } from './chaos/piTurn.js';
import { markerCounts } from './support/markers.js';
import { canMountTmpfs, isRoot, mountTmpfs, type Tmpfs } from './support/tmpfs.js';

const BANK = 'host-test';
// Against a hang only: on a loaded 2-core machine one pi turn can take most of a minute.
const GUARD = { guardMs: 150_000 };
const TRACE_OFF = /^agent-memory: Memory tracing is off in this session: .*trace could not be created/;

/** The state dir read-only, really: a read-only mount as root, a 0500 directory otherwise. */
const readOnlyStateDir = (project: Project): { readonly dispose: () => void } | undefined => {
  const dir = path.join(project.cwd, '.pi', 'memory');
  if (!isRoot()) {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o500);
    return { dispose: () => chmodSync(dir, 0o700) };
  }
  if (!canMountTmpfs()) return undefined;
  const disk: Tmpfs = mountTmpfs(dir, 256);
  disk.readOnly(true);
  return { dispose: () => disk.dispose() };
};

// Root without CAP_SYS_ADMIN can make no read-only directory: that one test says so instead of faking it.
const readOnlyPossible = !isRoot() || canMountTmpfs();
if (!readOnlyPossible) console.warn('traceDirFaults: root without CAP_SYS_ADMIN cannot make a read-only state dir; that test is skipped');

describe('a pi turn when the trace directory cannot be created', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('memory starts without tracing (one warning), the turn is kept and reaches the server once', async () => {
    const project = await makeProject(server.url);
    // The trace path is taken (by a plain file here): its directory cannot be made.
    mkdirSync(path.join(project.cwd, '.pi', 'memory'), { recursive: true });
    writeFileSync(path.join(project.cwd, '.pi', 'memory', 'trace'), 'not a directory\n');
    const run = await runPiCli(project, ['-p', 'Which port does the queue admin use?'], 'The queue admin listens on 9181. MK1', GUARD);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The queue admin listens on 9181.');
    expect(run.stderr).not.toMatch(/Memory could not start/);
    expect(run.stderr.split('\n').filter((line) => TRACE_OFF.test(line))).toHaveLength(1);
    // It names a command that exists where it is read: pi's slash command, not `agent-memory`, on no PATH from a clone.
    expect(run.stderr).toContain('/memory:doctor checks the state dir');
    expect(run.stderr).not.toContain('agent-memory doctor');
    expect(toldNotRetained(run.stderr)).toBe(false);
    // Acknowledged, so it must arrive: whatever pi's own shutdown flush left, a flush delivers.
    const flush = await runCli(['flush', '--timeout-ms', '20000'], { cwd: project.cwd, env: { HOME: project.home } });
    expect(flush.code, flush.stdout + flush.stderr).toBe(0);
    expect((await markerCounts(server, BANK)).get(1)).toBe(1);
  }, 200_000);

  it.skipIf(!readOnlyPossible)('a read-only state dir before the first turn: pi answers, and stderr says the turn was not retained', async () => {
    const project = await makeProject(server.url);
    const readOnly = readOnlyStateDir(project);
    if (readOnly === undefined) throw new Error('no read-only state dir could be made');
    try {
      const run = await runPiCli(project, ['-p', 'Which port does the cache admin use?'], 'The cache admin listens on 9182. MK2', GUARD);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('The cache admin listens on 9182.');
      expect(run.stderr).not.toMatch(/Memory could not start/);
      expect(run.stderr.split('\n').filter((line) => TRACE_OFF.test(line))).toHaveLength(1);
      // Told, in the words the chaos harness counts: this turn is not acknowledged.
      expect(run.stderr).toMatch(/^agent-memory: Memory could not save this turn \(.*\); it was not retained\./m);
      expect(toldNotRetained(run.stderr)).toBe(true);
    } finally {
      readOnly.dispose();
    }
  }, 200_000);
});
