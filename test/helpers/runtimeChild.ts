/**
 * A host process for the multi-process retain tests: what `pi -p` does with memory, without
 * the model. Opens a memory runtime in PROJECT (HOME from env), starts session SESSION, and
 * runs TURNS turns; turn k adds a user line carrying marker MK<START+k> to the conversation
 * and hands the conversation to `retainTurn`, as pi's agent_end does. Prints `acked N` once a
 * turn is durable (on disk before retainTurn returned), then shuts down as pi does.
 * PAUSE_MS between turns.
 */
import { writeSync } from 'node:fs';
import { createMemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import type { HostMessage } from '../../src/effects/session/messages.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`runtimeChild: ${name} is not set`);
  return value;
};
const say = (line: string): void => {
  writeSync(1, `${line}\n`);
};

const main = async (): Promise<void> => {
  const runtime = await createMemoryRuntime({ cwd: env('PROJECT'), shutdownFlushMs: 1_000, notify: (level, text) => say(`notify ${level} ${text.replace(/\n/g, ' ')}`) });
  say('open');
  const until = Date.now() + 10_000;
  while (runtime.status().setup.state === 'probing' && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  await runtime.send({ type: 'session.started', sessionId: env('SESSION'), sessionFile: `/tmp/${env('SESSION')}.jsonl`, reason: 'startup' });
  const start = Number(env('START'));
  const turns = Number(env('TURNS', '3'));
  const pause = Number(env('PAUSE_MS', '0'));
  const conversation: HostMessage[] = [];
  for (let k = 0; k < turns; k += 1) {
    const n = start + k;
    conversation.push({ role: 'user', content: [{ type: 'text', text: `remember fact MK${n} for later` }], timestamp: 2 * k + 1 });
    conversation.push({ role: 'assistant', content: [{ type: 'text', text: `noted ${n}` }], timestamp: 2 * k + 2, model: 'm', stopReason: 'stop' } as HostMessage);
    const turn = runtime.retainTurn(conversation);
    if (turn.durable) say(`acked ${n}`);
    const settled = await turn.settled;
    say(`settled ${n} ${settled.outcome}${settled.reason === undefined ? '' : ` ${settled.reason}`}`);
    if (pause > 0) await new Promise((r) => setTimeout(r, pause));
  }
  await runtime.send({ type: 'session.shutdown', reason: 'quit' });
  await runtime.close();
  say('done');
};

main().catch((error: unknown) => {
  say(`error ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
