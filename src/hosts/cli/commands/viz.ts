/** `agent-memory viz`: diagrams of every gate, and the replay of a recorded trace. */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { readJournalFile } from '../../../adapters/journal/traceJournal.js';
import type { Command } from '../commands.js';
import { toDot } from '../../../viz/dot.js';
import { vizGates } from '../../../viz/gates.js';
import { gatePage } from '../../../viz/gatePage.js';
import { machineGraph } from '../../../viz/machineGraph.js';
import { toMermaid } from '../../../viz/mermaid.js';
import { replayJournal } from '../../../viz/journalReplay.js';
import { readTraceFile } from '../../../viz/traceFile.js';
import { commandUsage } from '../helpText.js';

const USAGE = commandUsage('viz', `usage: agent-memory viz [--gate NAME] [--format html|mermaid|dot|json] [--trace FILE | --journal FILE] [--out FILE]

  --gate NAME    one gate (${vizGates.map((g) => g.name).join(', ') || 'none registered'}); default every gate
  --format F     html (default: the visualiser page), mermaid, dot or json
  --trace FILE   a trace JSONL ({state_dir}/memory/trace/*.jsonl) to replay step by step in the page
  --journal FILE  a gate's journal to replay through its machine: {state_dir}/memory/trace/<gate>.journal.*.jsonl,
                 the retain queue (retain-queue.jsonl) or an import checkpoint (import-checkpoint.json*);
                 the gate comes from the file name or --gate
  --out FILE     where to write; default .pi/memory/visualiser.html for html, standard output otherwise`);

export const vizCommand: Command = {
  usage: USAGE,
  run: async (argv) => {
    const { values } = parseArgs({
      args: [...argv],
      options: {
        gate: { type: 'string' },
        format: { type: 'string', default: 'html' },
        trace: { type: 'string' },
        journal: { type: 'string' },
        out: { type: 'string' },
      },
      strict: true,
    });
    const gateName = values.gate ?? (values.journal === undefined ? undefined : journalGate(values.journal));
    if (values.journal !== undefined && gateName === undefined) {
      console.error(`agent-memory viz: cannot tell which gate ${values.journal} belongs to; pass --gate (${vizGates.map((g) => g.name).join(', ')})`);
      return 2;
    }
    const gates = gateName === undefined ? vizGates : vizGates.filter((g) => g.name === gateName);
    if (gates.length === 0) {
      console.error(`agent-memory viz: no gate named ${JSON.stringify(gateName)}; gates: ${vizGates.map((g) => g.name).join(', ')}`);
      return 2;
    }
    const format = values.format;
    let text: string;
    if (format === 'mermaid') text = gates.map((g) => `%% ${g.name}\n${toMermaid(machineGraph(g.machine))}`).join('\n');
    else if (format === 'dot') text = gates.map((g) => toDot(machineGraph(g.machine))).join('\n');
    else if (format === 'json') text = `${JSON.stringify(gates.map((g) => machineGraph(g.machine)), null, 2)}\n`;
    else if (format === 'html') {
      let trace = values.trace === undefined ? undefined : readTraceFile(values.trace);
      const [only] = gates;
      if (values.journal !== undefined && only !== undefined) {
        const journal = await readJournalFile(values.journal);
        const replay = replayJournal(only, journal.records);
        const problems = [...journal.damage.map((d) => `${values.journal} line ${d.line}: ${d.reason}`), ...replay.problems];
        trace = { records: replay.trace, problems };
        console.log(`replayed ${journal.records.length - replay.problems.length} record(s) of ${values.journal} through the ${only.name} gate`);
      }
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

/** The gate a journal file belongs to, from its name. */
const journalGate = (file: string): string | undefined => {
  const name = path.basename(file);
  if (name.startsWith('retain-queue')) return 'retainDelivery';
  if (name.startsWith('import-checkpoint')) return 'import';
  const match = /^([A-Za-z]+)\.journal\./.exec(name);
  return match?.[1];
};
