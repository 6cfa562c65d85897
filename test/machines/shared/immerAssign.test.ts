import { describe, expect, it } from 'vitest';
import { createActor, setup } from 'xstate';
import { immerAssign } from '../../../src/machines/shared/immerAssign.js';

interface Ctx {
  readonly items: string[];
  readonly count: number;
}
type Ev = { type: 'add'; item: string } | { type: 'reset' };

const machine = setup({
  types: { context: {} as Ctx, events: {} as Ev },
  actions: {
    add: immerAssign<Ctx, Ev>((draft, { event }) => {
      if (event.type !== 'add') return;
      draft.items.push(event.item);
      draft.count += 1;
    }),
  },
}).createMachine({
  context: { items: [], count: 0 },
  on: { add: { actions: 'add' } },
});

describe('immerAssign', () => {
  it('updates context through a draft, leaving the previous context untouched and the new one frozen', () => {
    const actor = createActor(machine).start();
    const before = actor.getSnapshot().context;
    actor.send({ type: 'add', item: 'a' });
    actor.send({ type: 'add', item: 'b' });
    const after = actor.getSnapshot().context;
    expect(after).toEqual({ items: ['a', 'b'], count: 2 });
    expect(before).toEqual({ items: [], count: 0 });
    expect(Object.isFrozen(after.items)).toBe(true);
  });
});
