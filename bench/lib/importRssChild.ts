/**
 * The importer process of the RSS benchmark: imports `$RSS_DIR/sessions` for `$RSS_DIR/project`
 * through the real runtime, importer and retain queue into a loopback server that answers
 * every call and keeps nothing (so only the importer's memory is measured), then prints its
 * peak RSS as JSON.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createMemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { openImporter } from '../../src/hosts/importer.js';

const dir = process.env['RSS_DIR'] ?? '';
// Just enough of the Hindsight API for the runtime: version, bank list, retain.
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const url = req.url ?? '';
    const body = url.startsWith('/version')
      ? { api_version: '0.9.1' }
      : url.includes('/memories')
        ? { success: true, bank_id: 'bench-import', items_count: 1, async: false }
        : url.startsWith('/v1/default/banks')
          ? { banks: [{ bank_id: 'bench-import', name: 'bench-import' }] }
          : {};
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
const cwd = join(dir, 'project');
const home = join(dir, 'home');
mkdirSync(join(cwd, '.pi'), { recursive: true });
mkdirSync(home, { recursive: true });
mkdirSync(join(home, '.pi', 'agent'), { recursive: true });
writeFileSync(join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl } }));
writeFileSync(join(cwd, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl, timeoutMs: 60_000 }, banks: { project: { bankId: 'bench-import' } }, scope: { projectId: 'bench' }, setupComplete: true }));

const runtime = await createMemoryRuntime({ cwd, home, env: { HOME: home } });
const importer = await openImporter(runtime, { home, env: { HOME: home } });
const start = process.hrtime.bigint();
const view = await importer.gate.run({ sources: [join(dir, 'sessions')], options: importer.options({ dryRun: false }) });
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
await importer.close();
await runtime.close();
sink.close();
// maxRSS is in kilobytes.
console.log(JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024, documents: view.documents, state: view.state, seconds }));
