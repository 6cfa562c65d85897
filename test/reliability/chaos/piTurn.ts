/**
 * One real `pi -p` turn on the chaos project: the pi CLI from node_modules, offline, with the
 * scripted faux model and the extension built from this project. The scripted answer carries
 * the turn's marker `<cm:N>`, so the retained run can be found on the server. The turn may be
 * SIGKILLed at a chosen moment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { piTmpEnv } from '../../helpers/piTmp.js';

export interface PiTurnSetup {
  /** The pi CLI script and the Node binary that runs it. */
  readonly cli: string;
  readonly node: string;
  readonly fauxProvider: string;
  readonly extension: string;
  readonly cwd: string;
  readonly home: string;
  readonly agentDir: string;
  /** A `--import` preload that jumps this process's clock (`clockJump.mjs`). */
  readonly clockPreload: string;
  /** The pi processes running now, so a teardown can end them (the test's own timeout). */
  readonly live?: Set<ChildProcess>;
}

export interface PiTurnPlan {
  readonly marker: number;
  readonly env: Readonly<Record<string, string>>;
  /** SIGKILL after this many ms (undefined: let it finish). */
  readonly killAfterMs?: number;
  /** `afterMs:offsetMs`: the clock jumps by offsetMs once afterMs have passed. */
  readonly clockJump?: string;
  /** Hard guard against a hung pi. */
  readonly guardMs: number;
}

export interface PiTurnOutcome {
  readonly marker: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** We killed it (at our chosen moment, not by the guard). */
  readonly killed: boolean;
  readonly hung: boolean;
  /** The answer with the marker reached stdout: the user saw the turn. */
  readonly answered: boolean;
  readonly startedAt: number;
  readonly ms: number;
  readonly stderr: string;
}

export const markerText = (marker: number): string => `<cm:${marker}>`;

/** What the extension says on stderr (pi -p has no UI) when a turn is not kept. */
const NOT_RETAINED = /retain(?: at shutdown)? failed|not retained|retain failing|could not be made durable|nothing was queued|memory is off/i;

/**
 * Whether the person was told this turn was lost: an `agent-memory:` line of pi's stderr says
 * it was not retained. Only such a turn may be left out of the acknowledged count.
 */
export const toldNotRetained = (stderr: string): boolean => stderr.split('\n').some((line) => line.startsWith('agent-memory: ') && NOT_RETAINED.test(line));

export const runPiTurn = (setup: PiTurnSetup, plan: PiTurnPlan): Promise<PiTurnOutcome> =>
  new Promise((resolve) => {
    const started = Date.now();
    const answer = `Noted, chaos turn ${markerText(plan.marker)} is recorded.`;
    const preload = plan.clockJump === undefined ? [] : ['--import', setup.clockPreload];
    const child = spawn(
      setup.node,
      [
        ...preload,
        setup.cli,
        '--no-extensions',
        '-e',
        setup.fauxProvider,
        '-e',
        setup.extension,
        '--provider',
        'faux',
        '--model',
        'faux-1',
        '--no-builtin-tools',
        '-p',
        `Please remember chaos turn number ${plan.marker}.`,
      ],
      {
        cwd: setup.cwd,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: setup.home,
          PI_CODING_AGENT_DIR: setup.agentDir,
          PI_OFFLINE: '1',
          ...piTmpEnv(),
          AM_FAUX_SCRIPT: JSON.stringify([answer]),
          ...(plan.clockJump === undefined ? {} : { AM_CHAOS_CLOCK_JUMP: plan.clockJump }),
          ...plan.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    setup.live?.add(child);
    let stdout = '';
    let stderr = '';
    let killed = false;
    let hung = false;
    const killTimer =
      plan.killAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            killed = true;
            child.kill('SIGKILL');
          }, plan.killAfterMs);
    const guard = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, plan.guardMs);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-8_000);
    });
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(killTimer);
      clearTimeout(guard);
      setup.live?.delete(child);
      resolve({ marker: plan.marker, code, signal, killed: killed && !hung, hung, answered: stdout.includes(markerText(plan.marker)), startedAt: started, ms: Date.now() - started, stderr });
    };
    child.on('error', () => finish(null, null));
    child.on('close', finish);
  });
