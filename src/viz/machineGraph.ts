/**
 * A machine's structure as plain data: every state node and every transition with its event,
 * guard and named actions. The Mermaid and DOT exports and the visualiser page read this, so
 * they never reach into XState internals themselves.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

export interface GraphNode {
  /** Full id, e.g. `retainDelivery.backingOff`. */
  readonly id: string;
  readonly key: string;
  readonly parent: string | null;
  readonly type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  readonly initial: string | null;
  readonly entry: readonly string[];
  readonly exit: readonly string[];
  readonly invokes: readonly string[];
  readonly tags: readonly string[];
  readonly description: string | null;
}

export interface GraphEdge {
  readonly source: string;
  /** Empty for a targetless (internal) transition. */
  readonly targets: readonly string[];
  readonly event: string;
  readonly guard: string | null;
  readonly actions: readonly string[];
  readonly reenter: boolean;
}

export interface MachineGraph {
  readonly machine: string;
  readonly root: string;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

/** Actions arrive as strings, `{type}` objects, built-ins (functions with `type`) or inline functions. */
const nameOf = (item: unknown): string => {
  if (typeof item === 'string') return item;
  if (typeof item === 'function') {
    const typed: unknown = 'type' in item ? item.type : undefined;
    if (typeof typed === 'string' && typed !== '') return typed;
    return item.name === '' ? 'inline' : item.name;
  }
  if (typeof item === 'object' && item !== null) {
    const typed = 'type' in item ? item.type : undefined;
    if (typeof typed === 'string') return typed;
  }
  return 'inline';
};

const named = (items: readonly unknown[]): string[] => items.map(nameOf);

const invokeName = (src: unknown, id: string): string => (typeof src === 'string' ? src : id);

export const machineGraph = (machine: AnyStateMachine): MachineGraph => {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const visit = (node: AnyStateNode, parent: string | null): void => {
    const children: AnyStateNode[] = Object.values(node.states);
    const initialTarget = node.initial?.target[0];
    nodes.push({
      id: node.id,
      key: node.key,
      parent,
      type: node.type,
      initial: initialTarget === undefined ? null : initialTarget.id,
      entry: named(node.entry),
      exit: named(node.exit),
      invokes: node.invoke.map((inv) => invokeName(inv.src, inv.id)),
      tags: [...node.tags],
      description: node.description ?? null,
    });
    // Eventless (`always`) transitions are listed under the empty event name.
    const lists = [...node.transitions.values(), ...(node.always === undefined ? [] : [node.always])];
    for (const list of lists) {
      for (const tr of list) {
        edges.push({
          source: node.id,
          targets: (tr.target ?? []).map((t) => t.id),
          event: tr.eventType ?? '',
          guard: tr.guard === undefined ? null : nameOf(tr.guard),
          actions: named(tr.actions),
          reenter: tr.reenter,
        });
      }
    }
    for (const child of children) visit(child, node.id);
  };
  visit(machine.root, null);
  return { machine: machine.id, root: machine.root.id, nodes, edges };
};
