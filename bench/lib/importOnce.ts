/**
 * One import of generated sessions into a running `agent-memory serve`, from the source tree
 * named by `--tree` (this one or an old build's worktree), for `bench/paired-import.ts`: prints
 * one JSON line with the documents, the seconds to the last acknowledgement and until every
 * operation finished, and the CPU of this process (the importer) and of the server over each.
 *
 *   node --import tsx bench/lib/importOnce.ts --tree DIR --dir DIR --url URL --server-pid PID
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { childCpuMs, childWrittenBytes, openRetainOperations } from './childStats.js';
import type * as RuntimeModule from '../../src/hosts/memoryRuntime.js';
import type * as ImporterModule from '../../src/hosts/importer.js';

const { values } = parseArgs({ options: { tree: { type: 'string' }, dir: { type: 'string' }, url: { type: 'string' }, 'server-pid': { type: 'string' } } });
const tree = values.tree ?? '';
const dir = values.dir ?? '';
const url = values.url ?? '';
const serverPid = Number(values['server-pid']);
const cwd = join(dir, 'project');
const home = join(dir, 'home');
const runtimeModule: typeof RuntimeModule = await import(pathToFileURL(join(tree, 'src/hosts/memoryRuntime.ts')).href);
const importerModule: typeof ImporterModule = await import(pathToFileURL(join(tree, 'src/hosts/importer.ts')).href);

const runtime = await runtimeModule.createMemoryRuntime({ cwd, home, env: { HOME: home } });
const importer = await importerModule.openImporter(runtime, { home, env: { HOME: home } });
// tsx expires its disk cache after start-up (an async walk of its cache directory: about 0.15 s
// of this process's CPU with 4,000 entries, inside the window): the window opens once this
// process has been quiet for 100 ms (3 s at most), so it holds the importer's work only.
for (let waited = 0; waited < 30; waited += 1) {
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const spent = process.cpuUsage(before);
  if (spent.user + spent.system < 5_000) break;
}
const cpu0 = process.cpuUsage();
const server0 = childCpuMs(serverPid);
const written0 = childWrittenBytes(serverPid);
const start = process.hrtime.bigint();
const windowStartUs = Number(start / 1000n);
const view = await importer.gate.run({ sources: [join(dir, 'sessions')], options: importer.options({ dryRun: false }) });
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const cpu1 = process.cpuUsage(cpu0);
const windowEndUs = Number(process.hrtime.bigint() / 1000n);
const serverAcked = childCpuMs(serverPid) - server0;
while ((await openRetainOperations(url, 'bench-import', async (u) => (await fetch(u)).json())) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
const searchableSeconds = Number(process.hrtime.bigint() - start) / 1e9;
const serverSearchable = childCpuMs(serverPid) - server0;
const serverWrittenMb = (childWrittenBytes(serverPid) - written0) / 1e6;
if (process.env['IMPORT_TIMELINE'] !== undefined) {
  // Every queue and checkpoint record of the run, in ms from its start (to stderr).
  const t0 = Date.now() - seconds * 1000;
  const { readFileSync } = await import('node:fs');
  const config = runtime.loaded.config;
  for (const file of [config.queuePath, config.importCheckpoint]) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const at = /"at":"([^"]+)"/.exec(line)?.[1];
      const type = /"type":"([^"]+)"/.exec(line)?.[1];
      if (at !== undefined && type !== undefined) console.error(`${String(Date.parse(at) - t0).padStart(6)} ${type} ${line.length}`);
    }
  }
}
await importer.close();
await runtime.close();
if (view.state !== 'done' || view.queued + view.sent !== view.documents) throw new Error(`import ended ${view.state}: ${view.sent} sent and ${view.queued} queued of ${view.documents}`);
console.log(JSON.stringify({ documents: view.documents, seconds, searchableSeconds, importerCpuMs: (cpu1.user + cpu1.system) / 1000, serverCpuMs: serverAcked, serverCpuSearchableMs: serverSearchable, serverWrittenMb, windowUs: [windowStartUs, windowEndUs] }));
