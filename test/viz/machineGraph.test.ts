import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { toDot } from '../../src/viz/dot.js';
import { machineGraph } from '../../src/viz/machineGraph.js';
import { toMermaid } from '../../src/viz/mermaid.js';

const door = setup({
  types: { events: {} as { type: 'open' } | { type: 'close' } | { type: 'lock'; code: string } | { type: 'unlock'; code: string }, context: {} as { code: string | null } },
  actions: { chime: () => undefined, remember: assign({ code: ({ event }) => ('code' in event ? event.code : null) }) },
  guards: { rightCode: ({ context, event }) => 'code' in event && event.code === context.code },
  actors: {},
}).createMachine({
  id: 'door',
  context: { code: null },
  initial: 'closed',
  states: {
    opened: { entry: 'chime', on: { close: 'closed' } },
    closed: {
      initial: 'unlocked',
      states: {
        unlocked: { on: { open: '#door.opened', lock: { target: 'locked', actions: 'remember' } } },
        locked: { on: { unlock: { target: 'unlocked', guard: 'rightCode' } } },
      },
    },
    broken: { type: 'final' },
  },
});

describe('machineGraph', () => {
  const graph = machineGraph(door);

  it('lists every state node with its parent, type and initial child', () => {
    expect(graph.nodes.map((n) => [n.id, n.parent, n.type, n.initial])).toEqual([
      ['door', null, 'compound', 'door.closed'],
      ['door.opened', 'door', 'atomic', null],
      ['door.closed', 'door', 'compound', 'door.closed.unlocked'],
      ['door.closed.unlocked', 'door.closed', 'atomic', null],
      ['door.closed.locked', 'door.closed', 'atomic', null],
      ['door.broken', 'door', 'final', null],
    ]);
    expect(graph.nodes.find((n) => n.id === 'door.opened')?.entry).toEqual(['chime']);
  });

  it('lists every transition with its event, targets, guard and named actions', () => {
    expect(graph.edges).toEqual([
      { source: 'door.opened', targets: ['door.closed'], event: 'close', guard: null, actions: [], reenter: false },
      { source: 'door.closed.unlocked', targets: ['door.opened'], event: 'open', guard: null, actions: [], reenter: false },
      { source: 'door.closed.unlocked', targets: ['door.closed.locked'], event: 'lock', guard: null, actions: ['remember'], reenter: false },
      { source: 'door.closed.locked', targets: ['door.closed.unlocked'], event: 'unlock', guard: 'rightCode', actions: [], reenter: false },
    ]);
  });

  it('renders Mermaid with nested states, the initial arrows and labelled transitions', () => {
    const text = toMermaid(graph);
    expect(text.split('\n')[0]).toBe('stateDiagram-v2');
    expect(text).toContain('[*] --> door_closed\n');
    expect(text).toContain('state door_closed {');
    expect(text).toContain('    [*] --> door_closed_unlocked');
    expect(text).toContain('door_closed_locked --> door_closed_unlocked: unlock [rightCode]');
    expect(text).toContain('door_closed_unlocked --> door_closed_locked: lock / remember');
    expect(text).toContain('door_broken --> [*]');
  });

  it('renders DOT with compound states as clusters', () => {
    const text = toDot(graph);
    expect(text).toMatch(/^digraph "door" \{/);
    expect(text).toContain('subgraph "cluster_door.closed" {');
    expect(text).toContain('"door.closed.locked" -> "door.closed.unlocked" [label="unlock [rightCode]"];');
    expect(text).toContain('"door.broken" [label="broken", peripheries=2];');
  });
});
