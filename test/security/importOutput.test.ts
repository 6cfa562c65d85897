/**
 * Attack: a session file name with terminal escapes (issue 26, item 9). `agent-memory import`
 * printed the names of the files it skipped raw: an OSC sequence set the window title, `ESC[2J`
 * cleared the screen, U+009B (CSI in eight-bit terminals) and bidi controls passed. The real CLI
 * on real files: the table, the JSON and the errors show every control escaped, never sent.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';

const HOSTILE = 'notes\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil\u2028x.jsonl';
// What a terminal acts on: C0 but newline, DEL, C1, bidi controls, line separators.
// eslint-disable-next-line no-control-regex -- matching controls is the point
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

describe('import output escapes control characters (real CLI, real files)', () => {
  let server: TestServer;
  let cwd: string;
  let home: string;
  let sessions: string;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    const root = await mkdtemp(path.join(tmpdir(), 'am-sec-import-out-'));
    cwd = path.join(root, 'project');
    home = path.join(root, 'home');
    sessions = path.join(root, 'sessions');
    for (const d of [path.join(cwd, '.pi'), path.join(home, '.pi', 'agent'), sessions]) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
    writeFileSync(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: 'import-out' } }, scope: { projectId: 'import-out' }, setupComplete: true }));
    // Not a session: the import lists it among the files it did not import, by name.
    writeFileSync(path.join(sessions, HOSTILE), '{"hello":"world"}\n');
  });
  afterAll(async () => {
    await server.dispose();
  });

  it.each([[['--dry-run']], [[]], [['--json']]])('import %j: the name is shown escaped, no control reaches the terminal', async (flags) => {
    const run = await runCli(['import', sessions, ...flags], { cwd, env: { HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/notes\\(x1b|u001b)\]0;pwned/);
    expect(run.stdout).not.toMatch(ACTIVE);
    expect(run.stderr).not.toMatch(ACTIVE);
  });
});
