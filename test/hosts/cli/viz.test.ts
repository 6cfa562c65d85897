import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'am-viz-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cli = (args: string[]) => runCli(['viz', ...args], { env: { HOME: root } });

describe('agent-memory viz', () => {
  it('prints a Mermaid diagram of one gate', async () => {
    const { code, stdout } = await cli(['--gate', 'setup', '--format', 'mermaid']);
    expect(code).toBe(0);
    expect(stdout).toContain('stateDiagram-v2');
    expect(stdout).toContain('setup_probing --> setup_ready');
  });

  it('writes the page with a trace to replay, and names the trace lines it skipped', async () => {
    const trace = path.join(root, 'trace.jsonl');
    const record = { gate: 'setup', kind: 'transition', at: '2026-11-23T10:00:00.000Z', data: { event: { type: 'setup.configured' }, value: 'probing', status: 'active' } };
    writeFileSync(trace, `${JSON.stringify(record)}\nnot json\n`);
    const out = path.join(root, 'page.html');
    const { code, stdout, stderr } = await cli(['--trace', trace, '--out', out]);
    expect(code).toBe(0);
    expect(stdout).toContain(`wrote ${out}`);
    expect(stderr).toMatch(/skipped .*trace\.jsonl line 2/);
    const page = readFileSync(out, 'utf8');
    for (const gate of ['setup', 'session', 'retainDelivery']) expect(page).toContain(`data-gate="${gate}"`);
    expect(page).toContain('"type":"setup.configured"');
  });

  it('replays a gate from its journal: the gate from the file name, each event folded through the machine', async () => {
    const journal = path.join(root, 'setup.journal.2026-11-23T10-00-00-000Z-1.jsonl');
    const at = '2026-11-23T10:00:00.000Z';
    const records = [
      { type: 'setup.configured', at: 1, enabled: true, configured: true, banks: ['coding'] },
      // Written before setup events carried the `setup.` prefix: replayed as `setup.probe.succeeded`.
      { type: 'probe.succeeded', at: 2, apiVersion: '0.9.1', append: true, missingBanks: [] },
      { type: 'probe.bogus', at: 3 },
    ].map((payload, seq) => JSON.stringify({ v: 1, seq, type: payload.type, at, payload, checksum: '' }));
    writeFileSync(journal, `${records.join('\n')}\n`);
    const out = path.join(root, 'journal.html');
    const { code, stdout, stderr } = await cli(['--journal', journal, '--out', out]);
    expect(code).toBe(0);
    expect(stdout).toContain(`replayed 2 record(s) of ${journal} through the setup gate`);
    expect(stderr).toMatch(/skipped record 2: setup journal record/);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain('data-gate="setup"');
    expect(page).not.toContain('data-gate="session"');
    expect(page).toContain('"value":"ready"');
    expect(page).toContain('"action":"probe"');
    expect((await cli(['--journal', path.join(root, 'mystery.jsonl')])).stderr).toMatch(/cannot tell which gate .*mystery\.jsonl belongs to; pass --gate/);
  });

  it('refuses an unknown gate or format by name', async () => {
    expect((await cli(['--gate', 'nope'])).stderr).toMatch(/no gate named "nope"; gates: setup, session, retainDelivery/);
    expect((await cli(['--format', 'png'])).stderr).toMatch(/--format must be html, mermaid, dot or json; got "png"/);
  });
});
