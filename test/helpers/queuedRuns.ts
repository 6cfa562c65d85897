/**
 * The runs a project's sessions put in the retain queue, as the queue journal holds them: the
 * payload of each `retain.enqueued` record, as JSON text (one per run and chunk).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';

export const queuedRuns = async (cwd: string): Promise<string[]> => {
  const file = path.join(cwd, '.pi', 'memory', 'retain-queue.jsonl');
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { type: string; payload: unknown })
    .filter((record) => record.type === 'retain.enqueued')
    .map((record) => JSON.stringify(record.payload));
};
