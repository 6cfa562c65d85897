/**
 * Lays a machine graph out with ELK's layered algorithm: compound states become boxes that
 * contain their children, transitions become routed polylines. Coordinates come back absolute
 * so the SVG renderer needs no knowledge of ELK's nesting rules.
 */
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { GraphEdge, GraphNode, MachineGraph } from './machineGraph.js';

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface PlacedNode extends Box {
  readonly node: GraphNode;
  readonly compound: boolean;
}

export interface PlacedEdge {
  readonly edge: GraphEdge;
  readonly target: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
  readonly label: Box & { readonly text: string };
}

export interface Layout {
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly PlacedEdge[];
}

interface ElkLayouter {
  layout(graph: ElkNode): Promise<ElkNode>;
}
// Loaded on first layout: elkjs adds about 38 MB of RSS, which every other command would pay.
// It is CommonJS: Node hands over `module.exports` (the class) as the default import, while
// TypeScript's NodeNext view puts the class one `.default` deeper. Accept either.
const loadElk = async (): Promise<new () => ElkLayouter> => {
  const elkExports = (await import('elkjs/lib/elk.bundled.js')).default as unknown as { default?: new () => ElkLayouter } & (new () => ElkLayouter);
  return elkExports.default ?? elkExports;
};

const CHAR_WIDTH = 7;
const LINE_HEIGHT = 16;

/** The pseudo-state that transitions declared on the machine itself start from. */
const anyStateId = (graph: MachineGraph): string => `${graph.root}.*`;

const anyNode = (graph: MachineGraph): GraphNode => ({
  id: anyStateId(graph),
  key: 'any state',
  parent: graph.root,
  type: 'atomic',
  initial: null,
  entry: [],
  exit: [],
  invokes: [],
  tags: [],
  description: 'Transitions the machine takes whatever state it is in',
});

export const edgeText = (edge: GraphEdge): string => `${edge.event === '' ? 'always' : edge.event}${edge.guard === null ? '' : ` [${edge.guard}]`}`;

export const layoutGraph = async (graph: MachineGraph): Promise<Layout> => {
  const byParent = new Map<string, GraphNode[]>();
  for (const n of graph.nodes) if (n.parent !== null) byParent.set(n.parent, [...(byParent.get(n.parent) ?? []), n]);

  const toElk = (node: GraphNode): ElkNode => {
    const kids = byParent.get(node.id) ?? [];
    const width = Math.max(90, node.key.length * CHAR_WIDTH + 28);
    return kids.length === 0
      ? { id: node.id, width, height: 36 }
      : { id: node.id, layoutOptions: { 'elk.padding': '[top=30,left=12,bottom=12,right=12]' }, children: kids.map(toElk) };
  };
  // Transitions on the machine itself apply in any state: they start from one "any state" node.
  const anyId = anyStateId(graph);
  const hasAny = graph.edges.some((e) => e.source === graph.root);
  const edges: (ElkExtendedEdge & { data: { edge: GraphEdge; target: string } })[] = [];
  graph.edges.forEach((edge, i) => {
    const targets = edge.targets.length === 0 ? [edge.source] : edge.targets;
    targets.forEach((target, j) => {
      const text = edgeText(edge);
      edges.push({
        id: `e${i}_${j}`,
        sources: [edge.source === graph.root ? anyId : edge.source],
        targets: [target === graph.root ? anyId : target],
        labels: [{ id: `l${i}_${j}`, text, width: text.length * CHAR_WIDTH, height: LINE_HEIGHT }],
        data: { edge, target },
      });
    });
  });
  const elkRoot: ElkNode = {
    id: '__root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.edgeRouting': 'POLYLINE',
      'elk.layered.spacing.nodeNodeBetweenLayers': '60',
      'elk.spacing.nodeNode': '30',
      'elk.edgeLabels.inline': 'false',
    },
    children: [...(hasAny ? [{ id: anyId, width: 90, height: 36 }] : []), ...(byParent.get(graph.root) ?? []).map(toElk)],
    edges,
  };
  const elk = new (await loadElk())();
  const laid = await elk.layout(elkRoot);

  // ELK gives child coordinates relative to the parent and edge coordinates relative to the
  // edge's container; resolve both to absolute positions.
  const origin = new Map<string, { x: number; y: number }>([['__root', { x: 0, y: 0 }]]);
  const nodes: PlacedNode[] = [];
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const walk = (parent: ElkNode, at: { x: number; y: number }): void => {
    for (const child of parent.children ?? []) {
      const x = at.x + (child.x ?? 0);
      const y = at.y + (child.y ?? 0);
      origin.set(child.id, { x, y });
      const node = child.id === anyId ? anyNode(graph) : byId.get(child.id);
      if (node !== undefined) nodes.push({ node, x, y, width: child.width ?? 0, height: child.height ?? 0, compound: (child.children ?? []).length > 0 });
      walk(child, { x, y });
    }
  };
  walk(laid, { x: 0, y: 0 });

  const placedEdges: PlacedEdge[] = [];
  const collect = (container: ElkNode): void => {
    for (const e of (container.edges ?? []) as (ElkExtendedEdge & { container?: string; data?: { edge: GraphEdge; target: string } })[]) {
      if (e.data === undefined) continue;
      const base = origin.get(e.container ?? container.id) ?? { x: 0, y: 0 };
      const points = (e.sections ?? []).flatMap((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint]).map((p) => ({ x: base.x + p.x, y: base.y + p.y }));
      const l = e.labels?.[0];
      placedEdges.push({
        edge: e.data.edge,
        target: e.data.target,
        points,
        label: { text: l?.text ?? '', x: base.x + (l?.x ?? 0), y: base.y + (l?.y ?? 0), width: l?.width ?? 0, height: l?.height ?? 0 },
      });
    }
    for (const child of container.children ?? []) collect(child);
  };
  collect(laid);
  return { width: laid.width ?? 0, height: laid.height ?? 0, nodes, edges: placedEdges };
};
