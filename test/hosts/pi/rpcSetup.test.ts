/**
 * A person's side, in the real `pi` CLI in RPC mode on a fresh repository (no project file),
 * the test answering pi's `extension_ui_request` dialogs over stdin as a person would: the
 * first-run question and guided setup against the embedded server end with a turn retained
 * and recalled in the next session, in at most 8 answers; "never in this repository"
 * holds across sessions; a turn told before setup is held and delivered when setup finishes;
 * a cancelled setup leaves every file byte for byte; the settings editor changes and resets
 * (the shared key reset clears both key fields); memory goes off and back on from the hub;
 * dead letters are requeued and delivered from the hub; print mode never blocks; a server
 * started after the server step said "nothing answers" is found at "Check again".
 *
 * The first-run cases never look at http://localhost:8888 (the default a person's own server
 * listens on): the user file names a port this test bound and closed, so "nothing answers"
 * holds whatever runs on the machine, and no bank is ever created on a person's server.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { startEmbeddedServer } from '../../../src/server/index.js';
import { piExtension } from '../../helpers/piExtension.js';
import { startPiRpc, type PiRpc, type Rule } from '../../helpers/piRpc.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { hostLine } from './hostLine.js';
import { piTmpEnv } from '../../helpers/piTmp.js';

const repo = path.resolve(__dirname, '../../..');

interface Fresh {
  readonly root: string;
  readonly cwd: string;
  readonly home: string;
  readonly agentDir: string;
  readonly seen: string;
}

/** A repository nobody set up: no project file, no user file. */
const freshProject = async (name: string): Promise<Fresh> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-person-'));
  const cwd = path.join(root, name);
  const home = path.join(root, 'home');
  const agentDir = path.join(root, 'agent');
  await mkdir(cwd, { recursive: true });
  await mkdir(home, { recursive: true });
  await mkdir(agentDir, { recursive: true });
  return { root, cwd, home, agentDir, seen: path.join(root, 'seen.jsonl') };
};

/** A port nothing listens on: bound here, then closed. */
const closedPort = (): Promise<number> =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });

/**
 * A repository nobody set up whose user file names a server URL where nothing answers, as a
 * person's would before they start the server: setup's server step then says "nothing
 * answers" without probing the default http://localhost:8888, where a person's own server may run.
 */
const freshProjectNoServer = async (name: string): Promise<Fresh & { readonly deadUrl: string }> => {
  const p = await freshProject(name);
  const deadUrl = `http://127.0.0.1:${await closedPort()}`;
  await writeFile(path.join(p.agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: deadUrl } }));
  return { ...p, deadUrl };
};

/**
 * The wait for the first thing a new pi process says: its start-up (pi 1.5.2 on Node 22, beside
 * two other pi suites on two cores) took over 30 s once in a full run as a normal user.
 */
const FIRST_NOTICE_MS = 60_000;

const open = (p: Fresh, answers: readonly string[], rules: readonly Rule[] = [], env: Record<string, string> = {}): PiRpc =>
  startPiRpc({ cli: hostLine.cli, cwd: p.cwd, answers, rules, env: { HOME: p.home, PI_CODING_AGENT_DIR: p.agentDir, AM_FAUX_SEEN: p.seen, ...env } });

/** Every file under `dir` with its bytes (memory's own trace journals excluded: they are logs, not config). */
const snapshot = (dir: string): Map<string, string> => {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.set(path.relative(dir, full), readFileSync(full, 'utf8'));
    }
  };
  walk(dir);
  return out;
};

const configFiles = (p: Fresh): Map<string, string> => {
  const all = snapshot(p.root);
  return new Map([...all].filter(([file]) => file.endsWith('memory.json')));
};

const json = (file: string): Record<string, unknown> => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

/** The answers that take a fresh repository to working memory on `url` (server step: another URL). */
const setupRules = (url: string, o: { readonly bank?: string; readonly starters?: 'Coding' | 'No starter' } = {}): Rule[] => [
  { when: /^Memory is not set up in this repository/, answer: { option: 'Set up now' } },
  { when: /^Memory server: nothing answers/, answer: { option: 'Use another server URL' } },
  { when: /^Memory server URL/, answer: { text: url } },
  { when: /^What should memory do/, answer: { option: 'This project: recall and save' } },
  { when: /^How should this project keep its memory/, answer: { option: 'One bank for all your projects' } },
  ...(o.bank === undefined
    ? [{ when: /^Which bank holds/, answer: { option: 'Create "coding"' } }]
    : [
        { when: /^Which bank holds/, answer: { option: 'Another bank id' } },
        { when: /^Bank id \(Enter for /, answer: { text: o.bank } },
      ]),
  { when: /^Start with mental models/, answer: { option: o.starters ?? 'Coding' } },
  { when: /^Write this memory setup\?/, answer: { confirm: true } },
];

describe(`pi ${hostLine.version} in RPC mode: a person sets memory up by answering dialogs`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('first run: set up now, at most 8 answers, then a turn is retained and recalled in the next session', async () => {
    const p = await freshProjectNoServer('fresh-repo');
    const pi = open(p, ['The staging API listens on port 8443.'], setupRules(server.url));
    try {
      // The project is named by its tag once ("project project:fresh-repo" before).
      await pi.notice(/^Memory is on: bank coding, tagged project:fresh-repo\.$/m, { ms: 60_000 });
      expect(pi.unanswered).toEqual([]);
      // Answers a person gave: one per dialog.
      expect(pi.dialogs.length).toBeLessThanOrEqual(8);
      // Each choice fits one line of an 80-column terminal (pi draws " → " before it): a longer
      // one wrapped its "(recommended)" to the start of the next line, where it read as a choice.
      const choices = pi.dialogs.flatMap((d) => (d.dialog.method === 'select' ? d.dialog.options : []));
      expect(choices.filter((c) => [...c].length > 76)).toEqual([]);
      // The server step said how to start the embedded server, with a command that exists here.
      const serverStep = pi.dialogs.find((d) => d.dialog.title.startsWith('Memory server: nothing answers'));
      // On the port the user file names, where setup looks: the bare command would start it on 8888.
      expect(serverStep?.dialog.title).toMatch(new RegExp(`start it in another terminal:\\n {2}node .*serve\\.(ts|mjs) --port ${new URL(p.deadUrl).port}\\n`));
      expect(serverStep?.dialog.title).toContain(`Memory server: nothing answers at ${p.deadUrl} (`);
      // pi's input dialog draws no placeholder: the URL step's title says what Enter takes.
      expect(pi.dialogs.map((d) => d.dialog.title)).toContain('Memory server URL (Enter for http://localhost:8888)');
      // The review showed the diff: the user file gets the server, the project file the rest.
      const review = pi.dialogs.find((d) => d.dialog.title === 'Write this memory setup?');
      const message = review?.dialog.method === 'confirm' ? review.dialog.message : '';
      expect(message).toContain(`memory.baseUrl: "${p.deadUrl}" -> "${server.url}"`);
      expect(message).toContain('banks.project.bankId: (not set) -> "coding"');
      expect(message).toContain('setupComplete: (not set) -> true');
      expect(message).toContain('Creates the bank "coding"');
      // The profile it wrote to the project file counts only in a project the user file trusts (memory.trustedProjects).
      expect(json(path.join(p.agentDir, 'memory.json'))).toEqual({ memory: { baseUrl: server.url, trustedProjects: [p.cwd] } });
      expect(json(path.join(p.cwd, '.pi', 'memory.json'))).toMatchObject({ setupComplete: true, agentUse: 'coding', banks: { profile: 'project-only', project: { bankId: 'coding' } }, scope: { mode: 'domain-tagged' } });
      await pi.notice(/Created starter mental models: Architecture, Conventions, Decisions/);
      // Nothing was told before setup, so the footer says ready (it said "nothing new").
      await waitUntil(() => pi.statuses.get('memory') === 'memory: ready', 10_000, `footer "memory: ready", not ${pi.statuses.get('memory')}`);
      // The hub's mental models: the list is a choice, and the chosen one is read in full.
      pi.script([
        { when: /^Memory: ready/, answer: { option: 'Mental models' } },
        { when: /^Mental models$/, answer: { option: 'List' } },
        { when: /^Mental models: choose one to read \(3\)$/, answer: { option: 'Architecture (' } },
      ]);
      pi.prompt('/memory');
      expect(await pi.notice(/^Mental model mm-/)).toMatch(/^Mental model mm-[\w-]+: Architecture\n/);

      const from = pi.notices.length;
      pi.prompt('Which port does the staging API use?');
      await pi.agentEnds(1);
      await pi.notice(/./, { from, ms: 1_000 }).catch(() => undefined);
    } finally {
      await pi.close();
    }
    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 5_000 });
    const models = await client.listMentalModels('coding', {})();
    expect(E.isRight(models) ? models.right.items.map((m) => m.name).sort() : models.left).toEqual(['Architecture', 'Conventions', 'Decisions']);

    // The next session: no question, and the model call carries the recalled turn.
    const next = open(p, ['Port 8443, from memory.']);
    try {
      next.prompt('What port was the staging API on?');
      await next.agentEnds(1, FIRST_NOTICE_MS);
      expect(next.dialogs).toEqual([]);
    } finally {
      await next.close();
    }
    const calls = readFileSync(p.seen, 'utf8').trim().split('\n');
    expect(calls.at(-1)).toContain('<memory-recall>');
    expect(calls.at(-1)).toContain('8443');
  }, 180_000);

  it('"Check again" finds the server the person started after "nothing answers", without waiting out a cool-down', async () => {
    const p = await freshProject('late-server-repo');
    // A port nothing listens on yet, named in the user file as a person's server would be.
    const port = await closedPort();
    await writeFile(path.join(p.agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: `http://127.0.0.1:${port}` } }));
    let late: Awaited<ReturnType<typeof startEmbeddedServer>> | undefined;
    const pi = open(p, ['ok'], [
      { when: /^Memory is not set up in this repository/, answer: { option: 'Set up now' } },
      // What the dialog says to do: start the server in another terminal, then "Check again".
      {
        when: /^Memory server: nothing answers/,
        answer: async () => {
          late = await startEmbeddedServer({ port, host: '127.0.0.1' });
          return { option: 'Check again' };
        },
      },
      { when: /^Memory server at /, answer: { cancel: true } },
    ]);
    try {
      await pi.notice(/Memory setup cancelled/, { ms: 60_000 });
      expect(pi.unanswered).toEqual([]);
      expect(pi.dialogs.map((d) => d.dialog.title.split('\n')[0])).toEqual([
        expect.stringMatching(/^Memory is not set up/),
        `Memory server: nothing answers at http://127.0.0.1:${port} (connection refused).`,
        `Memory server at http://127.0.0.1:${port}: Hindsight 0.9.1 (embedded).`,
      ]);
    } finally {
      await pi.close();
      await late?.close();
    }
  }, 120_000);

  it('a turn told before setup is held, then delivered when setup completes', async () => {
    const p = await freshProjectNoServer('held-repo');
    const pi = open(p, ['Deploys go out on Thursdays.'], [{ when: /^Memory is not set up in this repository/, answer: { option: 'Not now' } }]);
    try {
      await pi.notice(/run \/memory setup when you want it/, { ms: FIRST_NOTICE_MS });
      pi.prompt('When do deploys go out?');
      await pi.agentEnds(1);
      await pi.notice(/this conversation is held, not saved/);
      // From the hub, as its glance says: not set up, its first choice is setup (it was ninth).
      const hub: Rule = {
        when: /^Memory: not set up in this project yet/,
        answer: (d) => (d.method === 'select' && d.options[0] === 'Set up memory (guided)' ? { option: 'Set up memory (guided)' } : { cancel: true }),
      };
      pi.script([hub, ...setupRules(server.url, { bank: 'held-coding', starters: 'No starter' }).slice(1)]);
      pi.prompt('/memory');
      await pi.notice(/Memory is on: bank held-coding/, { ms: 60_000 });
      expect(pi.unanswered).toEqual([]);
    } finally {
      await pi.close();
    }
    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 5_000 });
    let found = '';
    for (let i = 0; i < 50 && !found.includes('Thursdays'); i += 1) {
      const recalled = await client.recall('held-coding', { query: 'When do deploys go out?' })();
      found = E.isRight(recalled) ? JSON.stringify(recalled.right) : '';
      if (!found.includes('Thursdays')) await new Promise((r) => setTimeout(r, 200));
    }
    expect(found).toContain('Thursdays');
  }, 180_000);

  it('"never in this repository" is remembered in the user file by project id and holds across sessions', async () => {
    const p = await freshProject('never-repo');
    const pi = open(p, ['ok'], [{ when: /^Memory is not set up in this repository/, answer: { option: 'Never in this repository' } }]);
    try {
      await pi.notice(/Memory will not ask again in this repository/, { ms: FIRST_NOTICE_MS });
    } finally {
      await pi.close();
    }
    expect(json(path.join(p.agentDir, 'memory.json'))).toEqual({ setup: { declinedProjects: ['never-repo'] } });
    const again = open(p, ['ok']);
    try {
      again.prompt('hello');
      await again.agentEnds(1, FIRST_NOTICE_MS);
      expect(again.dialogs).toEqual([]);
      expect(again.unanswered).toEqual([]);
    } finally {
      await again.close();
    }
  }, 180_000);

  it('a project file that is not valid JSON: no first-run question, setup stops before its first question, the footer says config error', async () => {
    const p = await freshProjectNoServer('broken-file-repo');
    await mkdir(path.join(p.cwd, '.pi'), { recursive: true });
    // A person's hand edit with a trailing comma, in a project that was set up.
    const broken = '{\n  "setupComplete": true,\n  "banks": { "project": { "bankId": "coding", } }\n}\n';
    await writeFile(path.join(p.cwd, '.pi', 'memory.json'), broken);
    const before = configFiles(p);
    const pi = open(p, ['ok']);
    try {
      pi.prompt('/memory setup');
      const told = await pi.notice(/Memory setup cannot start/, { ms: FIRST_NOTICE_MS });
      expect(told).toContain(`${path.join(p.cwd, '.pi', 'memory.json')}: invalid JSON at line 3:47`);
      expect(told).toContain('trailing comma');
      expect(told).toContain('then run /memory setup');
      await waitUntil(() => pi.statuses.get('memory') === 'memory: config error', 10_000, `footer "memory: config error", not ${pi.statuses.get('memory')}`);
      // Neither the first-run question nor any setup step: setup could not have written.
      expect(pi.dialogs).toEqual([]);
      expect(pi.unanswered).toEqual([]);
      expect(pi.notices.map((n) => n.text).join('\n')).not.toContain('Memory setup needed');
    } finally {
      await pi.close();
    }
    expect(configFiles(p)).toEqual(before);
  }, 120_000);

  it('a setup cancelled at any step leaves every file byte for byte', async () => {
    const p = await freshProject('cancel-repo');
    await mkdir(path.join(p.cwd, '.pi'), { recursive: true });
    await writeFile(path.join(p.cwd, '.pi', 'memory.json'), '{ "recall": { "maxTokens": 900 } }\n');
    await writeFile(path.join(p.agentDir, 'memory.json'), `{"memory":{"baseUrl":"${server.url}"}}`);
    const before = configFiles(p);
    const pi = open(p, ['ok'], [{ when: /^Memory is not set up in this repository/, answer: { option: 'Not now' } }]);
    try {
      await pi.notice(/run \/memory setup when you want it/, { ms: FIRST_NOTICE_MS });
      // Esc in the middle (the bank step), then "no" at the review.
      pi.script([
        { when: /^Memory server at/, answer: { option: 'Use ' } },
        { when: /^What should memory do/, answer: { option: 'This project: recall and save' } },
        { when: /^How should this project keep its memory/, answer: { option: 'A memory bank for this repository alone' } },
        { when: /^Which bank holds/, answer: { cancel: true } },
      ]);
      pi.prompt('/memory setup');
      await pi.notice(/Memory setup cancelled; nothing was written/);
      expect(configFiles(p)).toEqual(before);
      pi.script([
        { when: /^Memory server at/, answer: { option: 'Use ' } },
        { when: /^What should memory do/, answer: { option: 'Recall only' } },
        { when: /^How should this project keep its memory/, answer: { option: 'Skip this step' } },
        { when: /^Which bank holds/, answer: { option: 'Skip this step' } },
        { when: /^Start with mental models/, answer: { option: 'No starter' } },
        { when: /^Write this memory setup\?/, answer: { confirm: false } },
      ]);
      const from = pi.notices.length;
      pi.prompt('/memory setup');
      await pi.notice(/Memory setup cancelled; nothing was written/, { from });
      expect(pi.unanswered).toEqual([]);
    } finally {
      await pi.close();
    }
    expect(configFiles(p)).toEqual(before);
  }, 120_000);

  it('settings: a change is validated and written after its diff; the shared key reset clears both key fields', async () => {
    const p = await freshProject('settings-repo');
    await mkdir(path.join(p.cwd, '.pi'), { recursive: true });
    await writeFile(path.join(p.cwd, '.pi', 'memory.json'), JSON.stringify({ setupComplete: true, banks: { project: { bankId: 'settings-bank' } } }));
    await writeFile(path.join(p.agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, apiKeyEnv: 'SOME_KEY_VAR', apiKeyDirect: 'raw-key-value-123' } }));
    const pi = open(p, ['ok']);
    try {
      // pi 1.x's RPC mode may emit start-up notices before a client reads them: ask for the status.
      pi.prompt('/memory status');
      await pi.notice(/settings-bank/, { ms: FIRST_NOTICE_MS });
      pi.script([
        { when: /^Memory settings$/, answer: { option: 'Recall' } },
        { when: /^Recall settings/, answer: { option: 'recall.maxTokens' } },
        { when: /^recall\.maxTokens: /, answer: { option: 'Change' } },
        { when: /^recall\.maxTokens \(a whole number above 0; now 800; Enter keeps it\)$/, answer: { text: 'lots' } },
        // Refused, and asked again at once (it went back to the first menu, thirteenth session).
        { when: /^recall\.maxTokens \(a whole number above 0; now 800; Enter keeps it\)$/, answer: { text: '-3' } },
        // pi draws no placeholder: the title says the value now, and an empty line keeps it (tenth session).
        { when: /^recall\.maxTokens \(a whole number above 0; now 800; Enter keeps it\)$/, answer: { text: '' } },
        { when: /^Memory settings$/, answer: { option: 'Recall' } },
        { when: /^Recall settings/, answer: { option: 'recall.maxTokens' } },
        { when: /^recall\.maxTokens: /, answer: { option: 'Change' } },
        { when: /^recall\.maxTokens \(a whole number above 0; now 800; Enter keeps it\)$/, answer: { text: '1200' } },
        { when: /^Change recall\.maxTokens\?/, answer: { confirm: true } },
        { when: /^Memory settings$/, answer: { option: 'Show advanced settings' } },
        { when: /^Memory settings$/, answer: { option: 'Connection' } },
        { when: /^Connection settings$/, answer: { option: 'memory.apiKeyDirect' } },
        { when: /^memory\.apiKeyDirect: /, answer: { option: 'Reset memory.apiKey' } },
        { when: /^Reset memory\.apiKey\?/, answer: { confirm: true } },
        { when: /^Memory settings$/, answer: { option: 'Done' } },
      ]);
      pi.prompt('/memory settings');
      await pi.notice(/memory\.apiKey: written|Reset memory\.apiKey: written/, { ms: 30_000 });
      expect(pi.unanswered).toEqual([]);
    } finally {
      await pi.close();
    }
    // Said in words, with what was typed (it said "expected PositiveInt"), and asked again in the same box.
    const refused = pi.notices.filter((n) => n.text.startsWith('recall.maxTokens: "lots"') || n.text.startsWith('recall.maxTokens: -3'));
    expect(refused.map((n) => n.text)).toEqual([
      'recall.maxTokens: "lots" is not a whole number above 0; nothing was written. Type another value, or Esc to leave it as it is.',
      'recall.maxTokens: -3 is not a whole number above 0; nothing was written. Type another value, or Esc to leave it as it is.',
    ]);
    expect(pi.notices.map((n) => n.text)).toContain('recall.maxTokens: unchanged (800); nothing was written.');
    // A written value names the file it went to (it said only "recall.maxTokens: written.").
    expect(pi.notices.map((n) => n.text)).toContainEqual(expect.stringMatching(/^recall\.maxTokens: written to \S*memory\.json\.$/));
    const change = pi.dialogs.find((d) => d.dialog.title === 'Change recall.maxTokens?');
    expect(change?.dialog.method === 'confirm' ? change.dialog.message : '').toContain('recall.maxTokens: (not set) -> 1200');
    const reset = pi.dialogs.find((d) => d.dialog.title === 'Reset memory.apiKey?');
    const resetDiff = reset?.dialog.method === 'confirm' ? reset.dialog.message : '';
    expect(resetDiff).toContain('memory.apiKeyEnv: "SOME_KEY_VAR" -> (not set)');
    expect(resetDiff).toContain('memory.apiKeyDirect: (a key, not shown) -> (not set)');
    expect(resetDiff).not.toContain('raw-key-value-123');
    expect(json(path.join(p.cwd, '.pi', 'memory.json'))).toMatchObject({ recall: { maxTokens: 1200 } });
    expect(json(path.join(p.agentDir, 'memory.json'))).toEqual({ memory: { baseUrl: server.url } });
  }, 120_000);

  it('the hub turns memory off and back on, and requeues and delivers a dead letter', async () => {
    const p = await freshProject('hub-repo');
    await mkdir(path.join(p.cwd, '.pi'), { recursive: true });
    await writeFile(path.join(p.cwd, '.pi', 'memory.json'), JSON.stringify({ setupComplete: true, banks: { project: { bankId: 'hub-bank' } } }));
    await writeFile(path.join(p.agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
    const pi = open(p, ['The release branch is cut on Mondays.']);
    try {
      // pi 1.x's RPC mode may emit start-up notices before a client reads them: ask for the status.
      pi.prompt('/memory status');
      await pi.notice(/hub-bank/, { ms: FIRST_NOTICE_MS });
      // A turn the server refuses for good becomes a dead letter.
      server.setFaults([{ kind: 'status', status: 422, detail: 'item rejected by the test server', method: 'POST', path: '/v1/default/banks/*/memories', times: 1 }]);
      pi.prompt('When is the release branch cut?');
      await pi.agentEnds(1);
      pi.script([
        {
          when: /^Memory: ready/,
          answer: (d) => {
            // pi 1.6 lists ten choices and scrolls the rest away: the hub has at most ten, each action one level in at most.
            expect(d.method === 'select' ? d.options.length : 0).toBeLessThanOrEqual(10);
            return { option: 'Queue: deliver now, dead letters (1)' };
          },
        },
        { when: /^Queue: \d+ queued, 1 dead letter$/, answer: { option: 'Dead letters (1)' } },
        {
          when: /^1 dead letter\(s\)/,
          answer: (d) => {
            // Each letter one line at 80 columns: a label of job id, bank, status and reason wrapped.
            expect(d.method === 'select' ? d.options.filter((o) => [...o].length > 76) : ['not a select']).toEqual([]);
            expect(d.method === 'select' ? d.options[0] : '').toMatch(/^1\. HTTP 422, bank hub-bank: \S/);
            return { option: 'Requeue all and deliver' };
          },
        },
      ]);
      for (let i = 0; i < 50; i += 1) {
        // The refused delivery may still be in flight: the hub shows what the queue holds now.
        pi.prompt('/memory status');
        const from = pi.notices.length;
        const text = await pi.notice(/^Memory/, { from });
        if (/Queue: 0 pending, 1 dead/.test(text) || /1 dead letter/.test(text)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      pi.prompt('/memory');
      await pi.notice(/Memory flushed 1; dead-lettered 0; remaining 0/);

      // The session's choices are one hub choice: the mode, then the next run.
      pi.script([
        { when: /^Memory: ready/, answer: { option: 'This session (mode normal)' } },
        { when: /^This session: memory mode normal$/, answer: { option: 'Session memory mode (now normal)' } },
        { when: /^Session memory mode$/, answer: { option: 'read-only: recall, never save' } },
      ]);
      pi.prompt('/memory');
      await pi.notice(/^Session memory mode: read-only$/);
      pi.script([
        { when: /^Memory: ready/, answer: { option: 'This session (mode read-only)' } },
        { when: /^This session: memory mode read-only$/, answer: { option: 'Session memory mode (now read-only)' } },
        { when: /^Session memory mode$/, answer: { option: 'normal: recall and save' } },
      ]);
      pi.prompt('/memory');
      await pi.notice(/^Session memory mode: normal$/);

      // Off in this project only: the project file says so, the user file is untouched.
      pi.script([
        { when: /^Memory: ready/, answer: { option: 'Turn memory off' } },
        { when: /^Turn memory off where\?/, answer: { option: 'In this project only' } },
        { when: /^Turn memory off\?/, answer: { confirm: true } },
      ]);
      pi.prompt('/memory');
      await pi.notice(/Memory is off in this project \(enabled: false in \.pi\/memory\.json\)\. Turn it back on from \/memory\./);
      expect(json(path.join(p.cwd, '.pi', 'memory.json'))).toMatchObject({ enabled: false });
      expect(json(path.join(p.agentDir, 'memory.json'))).toEqual({ memory: { baseUrl: server.url } });
      // With memory off, the hub still opens and offers the way back.
      const turnOn = (): readonly Rule[] => [
        { when: /^Memory: off/, answer: (d) => (d.method === 'select' && d.options.includes('Turn memory on') && !d.options.some((o) => o.startsWith('Dead letters')) ? { option: 'Turn memory on' } : { cancel: true }) },
        { when: /^Turn memory on\?/, answer: { confirm: true } },
      ];
      pi.script(turnOn());
      pi.prompt('/memory');
      await pi.notice(/Memory is on in this project \(enabled removed from \.pi\/memory\.json\)\./);
      await waitUntil(() => pi.statuses.get('memory') === 'memory: ready', 10_000, `footer "memory: ready", not ${pi.statuses.get('memory')}`);
      expect(json(path.join(p.cwd, '.pi', 'memory.json'))).not.toHaveProperty('enabled');

      pi.script([
        { when: /^Memory: ready/, answer: { option: 'Turn memory off' } },
        { when: /^Turn memory off where\?/, answer: { option: 'In every project' } },
        { when: /^Turn memory off\?/, answer: { confirm: true } },
      ]);
      pi.prompt('/memory');
      await pi.notice(/Memory is off in every project \(enabled: false in .*memory\.json\)\. Turn it back on from \/memory\./);
      expect(json(path.join(p.agentDir, 'memory.json'))).toEqual({ memory: { baseUrl: server.url }, enabled: false });
      pi.script(turnOn());
      pi.prompt('/memory');
      await pi.notice(/Memory is on in every project \(enabled removed from .*memory\.json\)\./);
      expect(pi.unanswered).toEqual([]);
      expect(pi.dialogs.some((d) => d.dialog.title.includes('\nBank hub-bank, tagged project:hub-repo · '))).toBe(true);
    } finally {
      await pi.close();
    }
    expect(json(path.join(p.agentDir, 'memory.json'))).toEqual({ memory: { baseUrl: server.url } });
    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 5_000 });
    const recalled = await client.recall('hub-bank', { query: 'When is the release branch cut?' })();
    expect(E.isRight(recalled) ? JSON.stringify(recalled.right) : '').toContain('Mondays');
  }, 180_000);

  it("the session's choices hold when memory is turned off and on: the run opted out of is not saved, the mode stays", async () => {
    const p = await freshProject('choices-repo');
    await mkdir(path.join(p.cwd, '.pi'), { recursive: true });
    await writeFile(path.join(p.cwd, '.pi', 'memory.json'), JSON.stringify({ setupComplete: true, banks: { project: { bankId: 'choices-bank' } } }));
    await writeFile(path.join(p.agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
    const pi = open(p, ['Noted.']);
    const offAndOn = async (): Promise<void> => {
      pi.script([
        { when: /^Memory: ready/, answer: { option: 'Turn memory off' } },
        { when: /^Turn memory off where\?/, answer: { option: 'In this project only' } },
        { when: /^Turn memory off\?/, answer: { confirm: true } },
      ]);
      pi.prompt('/memory');
      await pi.notice(/Memory is off in this project/);
      pi.script([
        { when: /^Memory: off/, answer: { option: 'Turn memory on' } },
        { when: /^Turn memory on\?/, answer: { confirm: true } },
      ]);
      pi.prompt('/memory');
      await pi.notice(/Memory is on in this project/);
    };
    try {
      pi.prompt('/memory status');
      await pi.notice(/choices-bank/, { ms: FIRST_NOTICE_MS });
      pi.prompt('/memory:next-opt-out');
      await pi.notice(/will not save the next run/);
      await offAndOn();
      // Before the fix the new runtime began with no opt-out: the footer said "memory: ready".
      await waitUntil(() => pi.statuses.get('memory') === 'memory: skip next', 10_000, `footer "memory: skip next", not ${pi.statuses.get('memory')}`);
      pi.prompt('My locker code is 4471.');
      await pi.agentEnds(1);
      pi.prompt('The build uses pnpm workspaces.');
      await pi.agentEnds(2);
      await waitUntil(() => /^memory: retained/.test(pi.statuses.get('memory') ?? ''), 15_000, `a retain, not ${pi.statuses.get('memory')}`);

      // A mode chosen for the session stays too.
      pi.script([
        { when: /^Memory: ready/, answer: { option: 'This session (mode normal)' } },
        { when: /^This session: memory mode normal$/, answer: { option: 'Session memory mode (now normal)' } },
        { when: /^Session memory mode$/, answer: { option: 'read-only: recall, never save' } },
      ]);
      pi.prompt('/memory');
      await pi.notice(/^Session memory mode: read-only$/);
      await offAndOn();
      let options: readonly string[] = [];
      pi.script([{ when: /^Memory: ready/, answer: (d) => ((options = d.method === 'select' ? d.options : []), { cancel: true }) }]);
      pi.prompt('/memory');
      await waitUntil(() => options.length > 0, 10_000, 'the hub');
      expect(options).toContain('This session (mode read-only)');
    } finally {
      await pi.close();
    }
    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 5_000 });
    const said = async (query: string): Promise<string> => {
      const recalled = await client.recall('choices-bank', { query })();
      return E.isRight(recalled) ? JSON.stringify(recalled.right) : '';
    };
    expect(await said('pnpm workspaces build')).toContain('pnpm');
    expect(await said('locker code 4471')).not.toContain('4471');
  }, 180_000);

  it('print mode never blocks on the first-run question: it says what to run', async () => {
    const p = await freshProject('headless-repo');
    const run = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [hostLine.cli, '--no-extensions', '-e', path.join(repo, 'fixtures/pi/faux-provider.ts'), '-e', piExtension(), '--provider', 'faux', '--model', 'faux-1', '--no-builtin-tools', '-p', 'hello'],
        { cwd: p.cwd, env: { PATH: process.env['PATH'] ?? '', HOME: p.home, PI_CODING_AGENT_DIR: p.agentDir, PI_OFFLINE: '1', ...piTmpEnv(), AM_FAUX_SCRIPT: '["Hello there."]' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      const guard = setTimeout(() => child.kill('SIGKILL'), 45_000);
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(guard);
        resolve({ code, stderr, stdout });
      });
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Hello there.');
    expect(run.stderr).toContain('run /memory setup in pi');
    expect(run.stderr).toContain('this conversation is held, not saved');
    expect(existsSync(path.join(p.agentDir, 'memory.json'))).toBe(false);
  }, 60_000);
});
