/**
 * The main job (`npm start`): memory for a pi session, end to end, on the embedded memory
 * server, with nothing to set up. A real pi session (its SDK; the model is scripted, so no key
 * is needed) tells the agent a fact; automatic retain queues it durably and delivers it; a
 * second session asks about it and the model receives the recalled memory before the user's
 * message, while the session file on disk never holds it. Every step prints what happened, and
 * the run leaves its workspace (queue, receipts, traces, the visualiser page) for inspection.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Context } from '@mariozechner/pi-ai';
import { messageText, RECALL_TAG, type HostMessage } from '../../effects/session/messages.js';
import { startEmbeddedServer } from '../../server/index.js';
import { gatePage } from '../../viz/gatePage.js';
import { readTraceFile } from '../../viz/traceFile.js';
import { vizGates } from '../../viz/gates.js';
import { openPiHostSession, type PiHostSession } from './piHost.js';

const RECALL_OPEN = `<${RECALL_TAG}>`;
const BANK = 'demo-shop';
const FACT = 'Our deploys run scripts/ship.sh, which does a blue-green switch; never deploy on Fridays.';
const QUESTION = 'How do we deploy this project?';

export interface MainJobOptions {
  /** Where the workspace goes; default a new temp dir. */
  readonly workspace?: string;
  readonly log?: (line: string) => void;
}

export interface MainJobReport {
  readonly workspace: string;
  readonly recalledBlock: string;
  readonly sessionFileHasBlock: boolean;
  readonly answer: string;
  readonly visualiser: string;
  readonly timings: Readonly<Record<string, number>>;
}

const textOf = (message: unknown): string => messageText(message as HostMessage);

const waitFor = async (check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

const indent = (text: string, prefix = '      │ '): string => text.split('\n').map((l) => `${prefix}${l}`).join('\n');

export const runMainJob = async (options: MainJobOptions = {}): Promise<MainJobReport> => {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = Date.now();
  const timings: Record<string, number> = {};
  const step = (n: number, text: string) => log(`\n[${n}/6] ${text}`);
  const workspace = options.workspace ?? mkdtempSync(path.join(tmpdir(), 'agent-memory-start-'));
  const project = path.join(workspace, 'project');
  const home = path.join(workspace, 'home');
  for (const dir of [path.join(project, '.pi'), home]) mkdirSync(dir, { recursive: true });

  step(1, 'Starting the embedded memory server (Hindsight 0.9.1 API, lexical recall, no LLM)');
  let t = Date.now();
  const server = await startEmbeddedServer({ dataDir: path.join(workspace, 'server-data') });
  timings['server start ms'] = Date.now() - t;
  log(`      listening on ${server.url}, data in ${path.join(workspace, 'server-data')} (${timings['server start ms']} ms)`);

  const { registerFauxProvider, fauxAssistantMessage, fauxToolCall } = await import('@mariozechner/pi-ai');
  const faux = registerFauxProvider();
  const sessions: PiHostSession[] = [];
  try {
    step(2, `A project that uses it: ${project}`);
    // Where memory goes is the user's choice (user file); the project file picks the bank, and
    // its project id is honoured because the user file trusts this project (memory.trustedProjects).
    const userConfig = { memory: { baseUrl: server.url, timeoutMs: 5000, trustedProjects: [project] } };
    mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
    writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), `${JSON.stringify(userConfig, null, 2)}\n`);
    const config = {
      banks: { project: { bankId: BANK } },
      scope: { projectId: 'demo/shop' },
      recall: { storeLastRecall: true },
    };
    writeFileSync(path.join(project, '.pi', 'memory.json'), `${JSON.stringify(config, null, 2)}\n`);
    log(`      ~/.pi/agent/memory.json: ${JSON.stringify(userConfig)}`);
    log(`      .pi/memory.json: ${JSON.stringify(config)}`);
    const open = async () => {
      const s = await openPiHostSession({
        cwd: project,
        agentDir: path.join(workspace, 'pi-agent'),
        sessionsDir: path.join(workspace, 'pi-sessions'),
        faux,
        memory: { env: { HOME: home }, home, trace: true },
        onUi: (kind, text) => {
          if (kind === 'notify' && text !== undefined) log(`      pi notify: ${text}`);
        },
      });
      sessions.push(s);
      return s;
    };

    step(3, `pi session 1: the user tells the agent a fact`);
    faux.setResponses([fauxAssistantMessage('Noted: scripts/ship.sh, blue-green, and no Friday deploys.')]);
    const first = await open();
    log(`      user: ${FACT}`);
    await first.session.prompt(`Remember this: ${FACT}`);
    const runtime1 = first.holder.runtime;
    if (runtime1 === undefined) throw new Error(`memory did not start in the pi session: ${first.holder.failure ?? 'unknown reason'}`);
    await waitFor(() => runtime1.session.view().context.lastRetain !== null, 5000, 'automatic retain');
    const queuedDepth = runtime1.queue?.status().depth ?? 0;
    log(`      agent_end -> retain job written to ${path.relative(workspace, path.join(project, '.pi', 'memory', 'retain-queue.jsonl'))} (fsync'd before the hook returned; depth ${queuedDepth})`);
    t = Date.now();
    const flushed = await runtime1.queue?.flush({ deadline: Date.now() + 5000 });
    timings['flush ms'] = Date.now() - t;
    // In words: the flush report's JSON read as a dump in the middle of the story.
    const delivered = flushed?.delivered ?? 0;
    log(`      delivered ${delivered} job${delivered === 1 ? '' : 's'} to bank ${BANK} in ${timings['flush ms']} ms; ${flushed?.deadLettered ?? 0} refused, ${flushed?.remaining ?? 0} still queued`);
    log(`      footer: ${runtime1.status().footer ?? '(off)'}`);
    await first.close();
    await server.idle();

    step(4, 'pi session 2: the user asks; memory is recalled before the model answers');
    const seen: string[] = [];
    faux.setResponses([
      (context: Context) => {
        seen.push(context.messages.map(textOf).find((text) => text.startsWith(RECALL_OPEN)) ?? '');
        return fauxAssistantMessage([fauxToolCall('memory_recall', { query: 'deploy friday' })], { stopReason: 'toolUse' });
      },
      (context: Context) => {
        seen.push(context.messages.map(textOf).find((text) => text.startsWith(RECALL_OPEN)) ?? '');
        const toolText = context.messages.map(textOf).filter((text) => text.includes('ship.sh')).at(-1) ?? '';
        return fauxAssistantMessage(toolText.includes('ship.sh') ? 'Run scripts/ship.sh (blue-green), and not on a Friday.' : 'I do not know yet.');
      },
    ]);
    const second = await open();
    log(`      user: ${QUESTION}`);
    t = Date.now();
    await second.session.prompt(QUESTION);
    timings['turn ms'] = Date.now() - t;
    const runtime2 = second.holder.runtime;
    await runtime2?.session.idle();
    const recalledBlock = seen[0] ?? '';
    log(recalledBlock === '' ? '      the model received no memory block (see the status line below)' : `      the model received, inserted before the user's message:\n${indent(recalledBlock)}`);
    log(`      the second model call of the run got ${seen[1] === recalledBlock ? 'byte-identical memory (the provider prompt cache holds)' : 'different memory text'}`);
    const answerMessage = second.session.messages.filter((m) => (m as { role?: string }).role === 'assistant').at(-1);
    const answer = textOf(answerMessage);
    log(`      the agent called memory_recall, then answered: ${answer}`);
    const sessionFile = second.session.sessionFile;
    const sessionFileHasBlock = sessionFile !== undefined && readFileSync(sessionFile, 'utf8').includes(RECALL_OPEN);
    log(`      session file ${sessionFile === undefined ? '(none)' : path.relative(workspace, sessionFile)} holds the memory block: ${sessionFileHasBlock ? 'YES (bug)' : 'no, recall is ephemeral'}`);
    log(`      footer: ${runtime2?.status().footer ?? '(off)'}`);
    await second.close();

    step(5, 'What is on disk');
    const memoryDir = path.join(project, '.pi', 'memory');
    for (const f of readdirSync(memoryDir).sort()) log(`      .pi/memory/${f}`);

    step(6, 'The state machines, with this run replayed');
    const traceDir = path.join(memoryDir, 'trace');
    const records = readdirSync(traceDir)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => readTraceFile(path.join(traceDir, f)).records)
      .sort((a, b) => a.at.localeCompare(b.at));
    const visualiser = path.join(workspace, 'visualiser.html');
    writeFileSync(visualiser, await gatePage('agent-memory: the npm start run', vizGates, records));
    log(`      ${records.length} trace records; open ${visualiser} and step with ← →`);

    timings['total ms'] = Date.now() - started;
    log(`\nDone in ${timings['total ms']} ms. Workspace kept for inspection: ${workspace}`);
    return { workspace, recalledBlock, sessionFileHasBlock, answer, visualiser, timings };
  } finally {
    for (const s of sessions) await s.close().catch(() => undefined);
    faux.unregister();
    await server.close();
  }
};
