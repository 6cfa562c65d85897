/** A machine graph as Graphviz DOT: compound states as clusters, transitions as labelled edges. */
import type { GraphNode, MachineGraph } from './machineGraph.js';

const quote = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export const toDot = (graph: MachineGraph): string => {
  const children = new Map<string, GraphNode[]>();
  for (const node of graph.nodes) if (node.parent !== null) children.set(node.parent, [...(children.get(node.parent) ?? []), node]);
  const lines = [`digraph ${quote(graph.machine)} {`, '  compound=true;', '  node [shape=box, style=rounded];'];
  const emit = (node: GraphNode, indent: string): void => {
    for (const kid of children.get(node.id) ?? []) {
      const grand = children.get(kid.id) ?? [];
      if (grand.length === 0) {
        const shape = kid.type === 'final' ? ', peripheries=2' : '';
        lines.push(`${indent}${quote(kid.id)} [label=${quote(kid.key)}${shape}];`);
      } else {
        lines.push(`${indent}subgraph ${quote(`cluster_${kid.id}`)} {`, `${indent}  label=${quote(kid.key)};`);
        // A cluster cannot be an edge end in DOT; an invisible anchor node stands in for it.
        lines.push(`${indent}  ${quote(kid.id)} [label=${quote(kid.key)}, shape=point];`);
        emit(kid, `${indent}  `);
        lines.push(`${indent}}`);
      }
    }
  };
  const root = graph.nodes.find((n) => n.id === graph.root);
  if (root !== undefined) emit(root, '  ');
  // Transitions on the machine itself apply in any state: draw them from one pseudo-state.
  const any = `${graph.root}.*`;
  if (graph.edges.some((e) => e.source === graph.root)) lines.push(`  ${quote(any)} [label="any state", style="rounded,dashed"];`);
  for (const edge of graph.edges) {
    const source = edge.source === graph.root ? any : edge.source;
    for (const target of edge.targets.length === 0 ? [edge.source] : edge.targets) {
      const guard = edge.guard === null ? '' : ` [${edge.guard}]`;
      lines.push(`  ${quote(source)} -> ${quote(target === graph.root ? any : target)} [label=${quote(`${edge.event === '' ? 'always' : edge.event}${guard}`)}];`);
    }
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
};
