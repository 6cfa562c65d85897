/** The visualiser page for registered gates: each machine laid out, drawn, and put on the page. */
import type { TraceRecord } from '../effects/ports/trace.js';
import type { VizGate } from './gates.js';
import { layoutGraph } from './layout.js';
import { machineGraph } from './machineGraph.js';
import { visualiserPage } from './page.js';
import { renderSvg } from './svg.js';

export const gatePage = async (title: string, gates: readonly VizGate[], trace?: readonly TraceRecord[]): Promise<string> => {
  const drawn = await Promise.all(
    gates.map(async (g) => ({ name: g.name, machineId: g.machine.id, svg: renderSvg(await layoutGraph(machineGraph(g.machine)), { id: g.name }) })),
  );
  return visualiserPage({ title, gates: drawn, ...(trace === undefined ? {} : { trace }) });
};
