/** Small builders shared by the retain-queue tests: temp dirs, jobs, a client for a server. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import type { MemoryServer } from '../../../src/effects/ports/memoryServer.js';
import type { NewRetainJob } from '../../../src/effects/retainDelivery/jobs.js';

export const tempQueueDir = async (): Promise<{ dir: string; queuePath: string; dispose: () => Promise<void> }> => {
  const dir = await mkdtemp(join(tmpdir(), 'am-queue-'));
  return { dir, queuePath: join(dir, 'memory', 'retain-queue.jsonl'), dispose: () => rm(dir, { recursive: true, force: true }) };
};

export const newJob = (content: string, overrides: Partial<NewRetainJob> = {}): NewRetainJob =>
  ({
    bankId: 'bank-a',
    documentId: 'doc-1',
    updateMode: 'append',
    item: { content, tags: ['project:x'] },
    ...overrides,
  }) as NewRetainJob;

/** A real client; the queue owns retries, so the client makes one attempt and its breaker cools fast. */
export const clientFor = (url: string, apiKey?: string): MemoryServer =>
  createMemoryServer({
    baseUrl: url,
    timeoutMs: 5_000,
    retry: { attempts: 1, baseMs: 10, capMs: 50 },
    breaker: { threshold: 1_000, coolDownMs: 100 },
    ...(apiKey === undefined ? {} : { apiKey }),
  });
