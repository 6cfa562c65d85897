/**
 * Child process for the retain-queue kill tests (`node --import tsx test/helpers/queueChild.ts`).
 *
 * Environment: QUEUE_PATH, SERVER_URL, BANK, START (first job number), COUNT, MODE
 * (`immediate` | `coalesced`), DRAIN (`1`: only deliver what is queued, then exit), BACKOFF_MS.
 *
 * Enqueues numbered jobs whose content carries a unique marker `<mk:N>` and prints
 * `acked N` only after `enqueue` resolved (the job is fsync'd). Writes to a pipe are
 * synchronous on Linux, so a printed line is a real acknowledgement even if SIGKILL follows.
 */
import { writeSync } from 'node:fs';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { openRetainQueue } from '../../src/effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../../src/hosts/retainQueueStore.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`queueChild: ${name} is not set`);
  return value;
};

const say = (line: string): void => {
  writeSync(1, `${line}\n`);
};

const main = async (): Promise<void> => {
  const loadedAt = Math.round(performance.now());
  const server = createMemoryServer({
    baseUrl: env('SERVER_URL'),
    timeoutMs: 5_000,
    retry: { attempts: 1, baseMs: 10, capMs: 50 },
    breaker: { threshold: 1_000, coolDownMs: 100 },
  });
  const queue = await openRetainQueue({
    ...fileRetainQueuePorts({ queuePath: env('QUEUE_PATH'), leaseStaleMs: 2_000 }),
    server,
    mode: env('MODE', 'immediate') === 'coalesced' ? 'coalesced' : 'immediate',
    flushIntervalMs: 50,
    // BACKOFF_MS: a long backoff, to leave one behind when the child is killed.
    backoff: { baseMs: Number(env('BACKOFF_MS', '20')), capMs: Math.max(200, Number(env('BACKOFF_MS', '20'))) },
    onWarning: (message) => say(`warn ${message}`),
  });
  say('open');
  say(`timing loaded ${loadedAt} ms, opened ${Math.round(performance.now())} ms`);
  if (env('DRAIN', '0') === '1') {
    for (let round = 0; round < 200 && queue.status().depth > 0; round += 1) {
      await queue.flush({ deadline: Date.now() + 2_000, force: true });
      if (queue.status().depth > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    say(`drained ${queue.status().depth} ${queue.status().deadLetters}`);
    await queue.close({ flush: false });
    return;
  }
  const start = Number(env('START'));
  const count = Number(env('COUNT', '1000000'));
  const bank = env('BANK');
  for (let n = start; n < start + count; n += 1) {
    await queue.enqueue([{ bankId: bank, documentId: `doc-${n % 8}`, updateMode: 'append', item: { content: `job <mk:${n}>` } } as never]);
    say(`acked ${n}`);
    // A turn-like pace: a pi session enqueues once per turn, not in a tight loop.
    const pause = Number(env('PAUSE_MS', '0'));
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
  await queue.flush({ deadline: Date.now() + 5_000 });
  say(`done ${queue.status().depth}`);
  await queue.close({ flush: false });
};

main().catch((error: unknown) => {
  say(`error ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
