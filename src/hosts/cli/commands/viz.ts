/** `agent-memory viz`: diagrams of every gate, and the replay of a recorded trace. */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from '../commands.js';
import { toDot } from '../../../viz/dot.js';
import { vizGates } from '../../../viz/gates.js';
import { gatePage } from '../../../viz/gatePage.js';
import { machineGraph } from '../../../viz/machineGraph.js';
import { toMermaid } from '../../../viz/mermaid.js';
import { readTraceFile } from '../../../viz/traceFile.js';

const USAGE = `usage: agent-memory viz [--gate NAME] [--format html|mermaid|dot|json] [--trace FILE] [--out FILE]

  --gate NAME    one gate (${vizGates.map((g) => g.name).join(', ') || 'none registered'}); default every gate
  --format F     html (default: the visualiser page), mermaid, dot or json
  --trace FILE   a trace JSONL ({state_dir}/memory/trace/*.jsonl) to replay step by step in the page
  --out FILE     where to write; default .pi/memory/visualiser.html for html, standard output otherwise`;

export const vizCommand: Command = {
  name: 'viz',
  summary: 'draw the state machines, or replay a recorded trace in the browser',
  usage: USAGE,
  run: async (argv) => {
    const { values } = parseArgs({
      args: [...argv],
      options: { gate: { type: 'string' }, format: { type: 'string', default: 'html' }, trace: { type: 'string' }, out: { type: 'string' } },
      strict: true,
    });
    const gates = values.gate === undefined ? vizGates : vizGates.filter((g) => g.name === values.gate);
    if (gates.length === 0) {
      console.error(`agent-memory viz: no gate named ${JSON.stringify(values.gate)}; gates: ${vizGates.map((g) => g.name).join(', ')}`);
      return 2;
    }
    const format = values.format;
    let text: string;
    if (format === 'mermaid') text = gates.map((g) => `%% ${g.name}\n${toMermaid(machineGraph(g.machine))}`).join('\n');
    else if (format === 'dot') text = gates.map((g) => toDot(machineGraph(g.machine))).join('\n');
    else if (format === 'json') text = `${JSON.stringify(gates.map((g) => machineGraph(g.machine)), null, 2)}\n`;
    else if (format === 'html') {
      const trace = values.trace === undefined ? undefined : readTraceFile(values.trace);
      for (const problem of trace?.problems ?? []) console.error(`agent-memory viz: skipped ${problem}`);
      text = await gatePage(`agent-memory: ${gates.map((g) => g.name).join(', ')}`, gates, trace?.records);
    } else {
      console.error(`agent-memory viz: --format must be html, mermaid, dot or json; got ${JSON.stringify(format)}`);
      return 2;
    }
    const out = values.out ?? (format === 'html' ? path.join('.pi', 'memory', 'visualiser.html') : undefined);
    if (out === undefined) {
      process.stdout.write(text);
      return 0;
    }
    mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
    writeFileSync(out, text);
    console.log(`wrote ${out}${format === 'html' ? ': open it in a browser (← and → step through a trace)' : ''}`);
    return 0;
  },
};
