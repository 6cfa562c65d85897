/**
 * The real `pi` CLI (print and json modes, offline, isolated agent dir) with the extension
 * loaded by pi's own loader (its source in the first test, the run's bundle of it after). One
 * turn runs end to end; and a SIGTERM right after the answer still leaves the run on disk for
 * the retain queue.
 */
import { mkdirSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { runPiCli, type PiCliOptions, type PiCliRun } from '../../helpers/piCli.js';
import { hostLine } from './hostLine.js';
import { makeProject, type Project } from './piSdk.js';

const runPi = (
  project: Project,
  args: readonly string[],
  answer: string,
  onStdout?: PiCliOptions['onStdout'],
  env: Readonly<Record<string, string>> = {},
): Promise<PiCliRun> => runPiCli(project, args, answer, { ...(onStdout === undefined ? {} : { onStdout }), env });

const memoryFiles = async (project: Project): Promise<string> => {
  const dir = path.join(project.cwd, '.pi', 'memory');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl'));
  const texts = await Promise.all(names.map((n) => readFile(path.join(dir, n), 'utf8')));
  return texts.join('\n');
};

/** The session gate's journal records of the one pi process that ran in `project`. */
const sessionJournal = async (project: Project): Promise<{ type: string; payload: Record<string, unknown> }[]> => {
  const dir = path.join(project.cwd, '.pi', 'memory', 'trace');
  const names = (await readdir(dir)).filter((n) => n.startsWith('session.journal.'));
  expect(names).toHaveLength(1);
  const text = await readFile(path.join(dir, names[0]!), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { type: string; payload: Record<string, unknown> });
};

describe(`pi ${hostLine.version} CLI with the extension`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('runs one turn in print mode and retains it through the queue', async () => {
    const project = await makeProject(server.url);
    // From the TypeScript source, as `pi -e src/hosts/pi/extension.ts` loads it (the other runs load the run's bundle of it).
    const run = await runPiCli(project, ['-p', 'Which port does the staging API use?'], 'Staging API listens on port 8443.', { fromSource: true });
    expect(run.stderr).not.toContain('Extension error');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Staging API listens on port 8443.');
    const files = await memoryFiles(project);
    expect(files).toContain('Staging API listens on port 8443.');
    expect(files).toContain('Which port does the staging API use?');
    // pi's own system prompt ("You are ... coding assistant"; a message of the run since pi 1.x) is not memory.
    expect(files).not.toContain('coding assistant');
  }, 150_000);

  it('print mode has no UI to notify: memory that cannot keep this run says so on stderr', async () => {
    const project = await makeProject(server.url);
    // A state file's path (the retain cursor's) is taken by a directory: the state dir is refused, nothing is kept.
    mkdirSync(path.join(project.cwd, '.pi', 'memory', 'retain-cursors.json'), { recursive: true });
    const run = await runPi(project, ['-p', 'Which region hosts the database?'], 'The database runs in eu-west-1.');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The database runs in eu-west-1.');
    expect(run.stderr).toMatch(/agent-memory: Memory setup needed: memory is off for this project: refusing .*retain-cursors\.json: it is a directory/);
  }, 150_000);

  // Tenth session: a mistyped value fell back to its default in silence; only the doctor said so.
  it('a config value memory cannot use is told at session start, with where to fix it', async () => {
    const project = await makeProject(server.url, { recall: { budget: 'huge' } });
    const run = await runPi(project, ['-p', 'Which budget do we use?'], 'The mid one.');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The mid one.');
    expect(run.stderr).toMatch(/agent-memory: Memory config: .*\.pi\/memory\.json: field recall\.budget: expected low \| mid \| high \(got "huge"\); using "mid".*Fix the file, or choose the value in \/memory settings; \/memory:doctor lists them\./);
    // Said once, at the start.
    expect(run.stderr.split('Memory config:')).toHaveLength(2);
  }, 150_000);

  // Tenth session: a project file with a trailing comma read as "memory is not set up in this
  // project yet", and the person was sent to setup, which never rewrites a file it cannot read.
  it('a config file that is not valid JSON is named at session start, before anything else memory says', async () => {
    const project = await makeProject(server.url);
    await writeFile(path.join(project.cwd, '.pi', 'memory.json'), '{ "banks": { "project": { "bankId": "host-test" } }, }');
    const run = await runPi(project, ['-p', 'Is memory on?'], 'Not yet.');
    expect(run.code).toBe(0);
    const first = run.stderr.split('\n').find((line) => line.startsWith('agent-memory: '));
    expect(first).toMatch(/^agent-memory: Memory config: .*\.pi\/memory\.json: invalid JSON at line 1:\d+ .*trailing comma.*Memory goes on without that file until it is fixed; \/memory:doctor shows it\.$/);
  }, 150_000);

  // Tenth session: the light entry ran the binding against a recording host that had no
  // appendEntry, so every installed pi warned "pi.appendEntry is not a function" and a run taken
  // with memory off (or opted out) carried no mark: an import brought it back.
  it('a run taken with memory off is marked not kept in the session file, through the extension entry pi loads', async () => {
    const project = await makeProject(server.url, { enabled: false });
    const run = await runPi(project, ['-p', 'secret plan, not for memory'], 'Understood.');
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('could not mark');
    const sessionsDir = path.join(project.agentDir, 'sessions');
    const files = (await readdir(sessionsDir, { recursive: true })).filter((name) => name.endsWith('.jsonl'));
    expect(files).toHaveLength(1);
    const entries = (await readFile(path.join(sessionsDir, files[0]!), 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { type: string; id?: string; customType?: string; data?: unknown; message?: { role?: string } });
    // The run's first message: the prompt on pi 0.73, pi's own system message before it on pi 1.x.
    const first = entries.find((e) => e.type === 'message');
    const prompt = entries.findIndex((e) => e.type === 'message' && e.message?.role === 'user');
    expect(entries.indexOf(first!)).toBeLessThanOrEqual(prompt);
    const marks = entries.filter((e) => e.type === 'custom' && e.customType === 'agent-memory');
    expect(marks.map((m) => m.data)).toEqual([{ notKept: { reason: 'off', fromEntryId: first?.id } }]);
    expect(entries.indexOf(marks[0]!)).toBeGreaterThan(prompt);
  }, 150_000);

  it('keeps the run on disk when pi is SIGTERMed right after the answer (json mode)', async () => {
    const project = await makeProject(server.url);
    let killed = false;
    const answer = 'Rotate the signing keys every 90 days.';
    const run = await runPi(project, ['--mode', 'json', 'How often do we rotate signing keys?'], answer, (stdout, kill) => {
      // The assistant message is complete on stdout: terminate at once.
      if (!killed && stdout.includes('"type":"message_end"') && stdout.includes(answer)) {
        killed = true;
        kill('SIGTERM');
      }
    });
    expect(killed).toBe(true);
    expect(run.code === 143 || run.signal === 'SIGTERM' || run.code === 0).toBe(true);
    const files = await memoryFiles(project);
    expect(files).toContain(answer);
  }, 150_000);

  // pi's print and json modes end on SIGTERM and SIGHUP through session_shutdown (quit): the
  // session gate records the quit, and its bounded flush finishes before pi exits.
  it.each(['SIGTERM', 'SIGHUP'] as const)('%s while the answer streams: pi shuts the session down (quit), the flush finishes, the prompt is kept', async (signal) => {
    const project = await makeProject(server.url);
    let killed = false;
    const question = 'Which region hosts the billing database?';
    const answer = `The billing database lives in eu-west-1. ${'More detail follows. '.repeat(40)}`;
    const run = await runPi(
      project,
      ['--mode', 'json', question],
      answer,
      (stdout, kill) => {
        // The answer has started streaming: the run is in progress.
        if (!killed && stdout.includes('"type":"message_update"')) {
          killed = true;
          kill(signal);
        }
      },
      { AM_FAUX_TOKENS_PER_SECOND: '40' },
    );
    expect(killed).toBe(true);
    expect(run.code).toBe(signal === 'SIGTERM' ? 143 : 129);
    expect(run.stdout).not.toContain('More detail follows. More detail follows. '.repeat(20));
    const records = await sessionJournal(project);
    const shutdown = records.findIndex((r) => r.type === 'session.shutdown');
    expect(records[shutdown]?.payload['reason']).toBe('quit');
    expect(records.findIndex((r) => r.type === 'session.shutdown.finished')).toBeGreaterThan(shutdown);
    expect(await memoryFiles(project)).toContain(question);
  }, 150_000);
});
