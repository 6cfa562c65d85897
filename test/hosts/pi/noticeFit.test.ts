/**
 * /memory:doctor and the hub's reports inside pi: pi draws a notice with its own Text component,
 * padded one column each side, and wraps a longer line at column 1, so the doctor's indented
 * lines lost their layout at 80 columns (fourth pass). The report is fitted first; pi's own
 * Text of both lines (the component pi's interactive mode draws notices with: `new Text(text,
 * 1, 0)`) then wraps nothing, and every line keeps its indent.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitNotice, piColumns, type NoticeLevel } from '../../../src/hosts/pi/noticeFit.js';
import { runCli } from '../../helpers/cli.js';

interface TextComponent {
  render(width: number): readonly string[];
}
type TextClass = new (text: string, paddingX: number, paddingY: number) => TextComponent;

const lines: ReadonlyArray<readonly [string, string]> = [
  ['pi 0.73 (@mariozechner/pi-tui)', '@mariozechner/pi-tui'],
  ['pi 1.6 (@earendil-works/pi-tui)', '@earendil-works/pi-tui'],
];
const PREFIX: Readonly<Record<NoticeLevel, string>> = { info: '', warning: 'Warning: ', error: 'Error: ' };

const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

let root: string;
let doctor: string;
beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'am-notice-'));
  const [home, agent, cwd] = ['home', 'agent', 'project'].map((d) => path.join(root, d)) as [string, string, string];
  for (const dir of [home, agent, cwd]) mkdirSync(dir);
  writeFileSync(path.join(agent, 'memory.json'), JSON.stringify({ memory: { baseUrl: `http://127.0.0.1:${await closedPort()}` } }));
  // A pipe keeps whole lines: the text pi's command gets from the same report.
  doctor = (await runCli(['doctor'], { cwd, env: { HOME: home, PI_CODING_AGENT_DIR: agent } })).stdout.trimEnd();
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What pi draws: the notice's first line after its level's prefix, each line padded and wrapped by pi's Text. */
const drawn = (Text: TextClass, text: string, level: NoticeLevel, columns: number): string[] =>
  new Text(`${PREFIX[level]}${text}`, 1, 0).render(columns).map((l) => l.replace(/\s+$/, ''));

describe.each(lines)('a report as a notice in %s', (_name, pkg) => {
  it.each([80, 60] as const)('at %i columns pi wraps none of its lines, and each keeps its indent', async (columns) => {
    const { Text } = (await import(pkg)) as { Text: TextClass };
    const long = doctor.split('\n').filter((l) => l.length > columns - 2);
    expect(long.length).toBeGreaterThan(0);
    // Unfitted, pi wrapped lines at column 1: more lines drawn than the report has.
    expect(drawn(Text, doctor, 'info', columns).length).toBeGreaterThan(doctor.split('\n').length);
    for (const level of ['info', 'warning'] as const) {
      const fitted = fitNotice(doctor, level, columns);
      // pi's Text wraps each line on its own: each fitted line is drawn as one, except a
      // single word wider than the notice (a temporary directory's path), which nothing can fit.
      for (const [i, line] of `${PREFIX[level]}${fitted}`.split('\n').entries()) {
        const one = i === 0 ? drawn(Text, line.slice(PREFIX[level].length), level, columns) : drawn(Text, line, 'info', columns);
        if (line.length <= columns - 2) expect(one).toEqual([` ${line}`.replace(/\s+$/, '')]);
        else expect(line.trim()).not.toContain(' ');
      }
      // Nothing is lost or reordered: the same words.
      expect(fitted.split(/\s+/).join(' ')).toBe(doctor.split(/\s+/).join(' '));
    }
    // A wrapped status row continues under its value, not at column 1.
    const fitted = fitNotice(doctor, 'info', columns).split('\n');
    const server = fitted.findIndex((l) => l.startsWith('Server: '));
    expect(server).toBeGreaterThanOrEqual(0);
    if (fitted[server + 1]?.startsWith(' ') !== true) expect(fitted[server]?.length).toBeLessThanOrEqual(columns - 2);
  });
});

describe('the width a notice is fitted to', () => {
  it("is the terminal's when pi draws in one; none in RPC or print (a pipe)", () => {
    expect(piColumns({ isTTY: true, columns: 80 })).toBe(80);
    expect(piColumns({ isTTY: false, columns: 80 })).toBeUndefined();
    expect(piColumns({})).toBeUndefined();
    expect(fitNotice('a b', 'info', undefined)).toBe('a b');
    // One line of prose is left to pi, which wraps it at column 1 as prose reads.
    const prose = `Memory will not save the next run of this session (the footer says memory: skip next until it ends).`;
    expect(fitNotice(prose, 'info', 80)).toBe(prose);
  });
});
