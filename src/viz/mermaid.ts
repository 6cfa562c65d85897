/** A machine graph as a Mermaid `stateDiagram-v2`, for READMEs and the visualiser page. */
import type { GraphEdge, GraphNode, MachineGraph } from './machineGraph.js';

/** Mermaid state ids allow letters, digits and `_` only. */
const mid = (id: string): string => id.replace(/[^A-Za-z0-9_]/g, '_');

const label = (edge: GraphEdge): string => {
  const event = edge.event === '' ? 'always' : edge.event;
  const guard = edge.guard === null ? '' : ` [${edge.guard}]`;
  const actions = edge.actions.filter((a) => !a.startsWith('xstate.'));
  return `${event}${guard}${actions.length === 0 ? '' : ` / ${actions.join(', ')}`}`.replace(/[:;]/g, ' ');
};

export const toMermaid = (graph: MachineGraph): string => {
  const children = new Map<string, GraphNode[]>();
  for (const node of graph.nodes) {
    if (node.parent === null) continue;
    children.set(node.parent, [...(children.get(node.parent) ?? []), node]);
  }
  const lines = ['stateDiagram-v2'];
  const emit = (node: GraphNode, indent: string): void => {
    const kids = children.get(node.id) ?? [];
    if (node.initial !== null) lines.push(`${indent}[*] --> ${mid(node.initial)}`);
    for (const kid of kids) {
      lines.push(`${indent}state "${kid.key}" as ${mid(kid.id)}`);
      if ((children.get(kid.id) ?? []).length > 0) {
        lines.push(`${indent}state ${mid(kid.id)} {`);
        emit(kid, `${indent}  `);
        lines.push(`${indent}}`);
      }
      if (kid.type === 'final') lines.push(`${indent}${mid(kid.id)} --> [*]`);
    }
  };
  const root = graph.nodes.find((n) => n.id === graph.root);
  if (root !== undefined) emit(root, '  ');
  // Transitions on the machine itself apply in any state: draw them from one pseudo-state.
  const any = `${mid(graph.root)}__any`;
  if (graph.edges.some((e) => e.source === graph.root)) lines.push(`  state "(any state)" as ${any}`);
  for (const edge of graph.edges) {
    const source = edge.source === graph.root ? any : mid(edge.source);
    for (const target of edge.targets.length === 0 ? [edge.source] : edge.targets) {
      lines.push(`  ${source} --> ${target === graph.root ? any : mid(target)}: ${label(edge)}`);
    }
  }
  return `${lines.join('\n')}\n`;
};
