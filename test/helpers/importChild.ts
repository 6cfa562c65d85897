/**
 * Child process for the import kill test (`node --import tsx test/helpers/importChild.ts`):
 * imports SOURCES (a directory) for the project in CWD with the real runtime, importer and
 * queue, and prints `queued N` as documents are recorded (sent straight to the server or
 * queued), until it is killed or done.
 */
import { writeSync } from 'node:fs';
import { createMemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { openImporter } from '../../src/hosts/importer.js';
import { importView } from '../../src/machines/import/selectors.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`importChild: ${name} is not set`);
  return value;
};

const main = async (): Promise<void> => {
  const home = env('HOME');
  const runtime = await createMemoryRuntime({ cwd: env('CWD'), home, env: { HOME: home } });
  const importer = await openImporter(runtime, { home, env: { HOME: home } });
  importer.gate.subscribe((snapshot) => writeSync(1, `queued ${importView(snapshot).queued + importView(snapshot).sent}\n`));
  const view = await importer.gate.run({ sources: [env('SOURCES')], options: importer.options({ dryRun: false }) });
  writeSync(1, `finished ${view.state}\n`);
  await importer.close();
  await runtime.close();
};

void main();
