import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { assign, fromTransition, sendTo, setup } from 'xstate';
import { startGate } from '../../../src/effects/kernel/startGate.js';
import type { JournalEntry, JournalPort } from '../../../src/effects/ports/journal.js';
import type { JournalRecord } from '../../../src/codecs/codecs.js';
import { immerAssign } from '../../../src/machines/shared/immerAssign.js';
import { memoryTrace } from '../../../src/adapters/trace/jsonlTrace.js';

// A small gate: counts `add` events, and `done` moves it to a final-ish state.
const CounterEvent = t.union([
  t.type({ type: t.literal('counter.added'), by: t.number }),
  t.type({ type: t.literal('counter.closed') }),
]);
type CounterEvent = t.TypeOf<typeof CounterEvent>;

const counterMachine = setup({
  types: { context: {} as { total: number; opened: number }, events: {} as CounterEvent },
  actions: {
    announceOpen: () => undefined,
    add: immerAssign<{ total: number; opened: number }, CounterEvent>((draft, { event }) => {
      if (event.type === 'counter.added') draft.total += event.by;
    }),
    countOpen: immerAssign<{ total: number; opened: number }, CounterEvent>((draft) => {
      draft.opened += 1;
    }),
  },
}).createMachine({
  id: 'counter',
  context: { total: 0, opened: 0 },
  initial: 'open',
  states: {
    open: {
      entry: ['countOpen', 'announceOpen'],
      on: { 'counter.added': { actions: 'add' }, 'counter.closed': 'closed' },
    },
    closed: {},
  },
});

/** A journal fake that keeps records in memory and can be told to fail like a full disk. */
const fakeJournal = (): JournalPort & { records: JournalRecord[]; failNext: boolean } => {
  const journal = {
    records: [] as JournalRecord[],
    failNext: false,
    append: async (entries: readonly JournalEntry[]) => {
      if (journal.failNext) {
        journal.failNext = false;
        throw new Error('ENOSPC: no space left on device');
      }
      const added = entries.map(
        (entry, i) => ({ v: 1, seq: journal.records.length + i, checksum: 'x', ...entry }) as unknown as JournalRecord,
      );
      journal.records.push(...added);
      return added;
    },
    load: async () => ({ records: [...journal.records], damage: [] }),
    compact: async () => undefined,
    close: async () => undefined,
  };
  return journal;
};

const fixedClock = { now: () => Date.parse('2026-11-22T10:00:00.000Z'), setTimer: () => () => undefined };

describe('startGate', () => {
  it('journals each decoded event before the actor sees it, in order', async () => {
    const journal = fakeJournal();
    const gate = await startGate({ name: 'counter', machine: counterMachine, events: CounterEvent, journal, clock: fixedClock });
    await Promise.all([gate.dispatch({ type: 'counter.added', by: 2 }), gate.dispatch({ type: 'counter.added', by: 3 })]);
    expect(gate.getSnapshot().context.total).toBe(5);
    expect(journal.records.map((r) => r.payload)).toEqual([
      { type: 'counter.added', by: 2 },
      { type: 'counter.added', by: 3 },
    ]);
    expect(journal.records[0]?.at).toBe('2026-11-22T10:00:00.000Z');
    await gate.stop();
  });

  it('answers bad input with an error naming the field and leaves state and journal as they were', async () => {
    const journal = fakeJournal();
    const gate = await startGate({ name: 'counter', machine: counterMachine, events: CounterEvent, journal });
    await gate.dispatch({ type: 'counter.added', by: 1 });
    const result = await gate.dispatch({ type: 'counter.added', by: 'two' });
    expect(E.isLeft(result)).toBe(true);
    if (E.isLeft(result)) expect(result.left.message).toContain('field by');
    expect(gate.getSnapshot().context.total).toBe(1);
    expect(journal.records).toHaveLength(1);
    await gate.stop();
  });

  it('does not send an event the journal could not store', async () => {
    const journal = fakeJournal();
    const gate = await startGate({ name: 'counter', machine: counterMachine, events: CounterEvent, journal });
    journal.failNext = true;
    await expect(gate.dispatch({ type: 'counter.added', by: 7 })).rejects.toThrow(/ENOSPC/);
    expect(gate.getSnapshot().context.total).toBe(0);
    // The gate keeps working once the fault clears.
    await gate.dispatch({ type: 'counter.added', by: 4 });
    expect(gate.getSnapshot().context.total).toBe(4);
    await gate.stop();
  });

  it('restores by folding the journal, without re-running entry actions, then calls onRestore', async () => {
    const journal = fakeJournal();
    const first = await startGate({ name: 'counter', machine: counterMachine, events: CounterEvent, journal });
    await first.dispatch({ type: 'counter.added', by: 2 });
    await first.dispatch({ type: 'counter.added', by: 5 });
    await first.stop();

    const announced: string[] = [];
    const machine = counterMachine.provide({ actions: { announceOpen: () => void announced.push('open') } });
    let restoredTotal = -1;
    const second = await startGate({
      name: 'counter',
      machine,
      events: CounterEvent,
      journal,
      onRestore: (snapshot) => {
        restoredTotal = snapshot.context.total;
      },
    });
    expect(second.replayed).toBe(2);
    expect(restoredTotal).toBe(7);
    expect(second.getSnapshot().context).toEqual({ total: 7, opened: 1 });
    expect(announced).toEqual([]);
    await second.dispatch({ type: 'counter.closed' });
    expect(second.getSnapshot().value).toBe('closed');
    await second.stop();
  });

  it('reports journal records that no longer decode instead of failing', async () => {
    const journal = fakeJournal();
    await journal.append([{ type: 'counter.added', at: '2026-11-22T10:00:00.000Z', payload: { type: 'counter.added', by: 1 } }]);
    await journal.append([{ type: 'counter.renamed', at: '2026-11-22T10:00:01.000Z', payload: { type: 'counter.renamed' } }]);
    const gate = await startGate({ name: 'counter', machine: counterMachine, events: CounterEvent, journal });
    expect(gate.replayed).toBe(1);
    expect(gate.damage).toHaveLength(1);
    expect(gate.damage[0]?.reason).toContain('counter event');
    expect(gate.getSnapshot().context.total).toBe(1);
    await gate.stop();
  });

  it('runs entry actions on a fresh start', async () => {
    const announced: string[] = [];
    const machine = counterMachine.provide({ actions: { announceOpen: () => void announced.push('open') } });
    const gate = await startGate({ name: 'counter', machine, events: CounterEvent });
    expect(announced).toEqual(['open']);
    await gate.stop();
  });

  it('traces events, transitions, effects and rejections of the root actor', async () => {
    const trace = memoryTrace();
    const gate = await startGate({ name: 'counter', machine: counterMachine, events: CounterEvent, trace, clock: fixedClock });
    await gate.dispatch({ type: 'counter.added', by: 1 });
    await gate.dispatch({ type: 'nope' });
    const kinds = trace.records.map((r) => r.kind);
    expect(kinds).toContain('effect');
    expect(kinds).toContain('event');
    expect(kinds).toContain('transition');
    expect(kinds[kinds.length - 1]).toBe('rejected');
    const effects = trace.records.filter((r) => r.kind === 'effect').map((r) => (r.data as { action: string }).action);
    expect(effects).toContain('announceOpen');
    expect(trace.records.every((r) => r.gate === 'counter')).toBe(true);
    await gate.stop();
  });

  it('a restored gate runs on from the fold with the provided implementations, and traces as a fresh one does', async () => {
    const journal = fakeJournal();
    const first = await startGate({ name: 'counter', machine: counterMachine, events: CounterEvent, journal });
    await first.dispatch({ type: 'counter.added', by: 3 });
    await first.stop();
    const added: number[] = [];
    const trace = memoryTrace();
    const machine = counterMachine.provide({
      actions: {
        add: immerAssign<{ total: number; opened: number }, CounterEvent>((draft, { event }) => {
          if (event.type === 'counter.added') {
            added.push(event.by);
            draft.total += event.by * 10;
          }
        }),
      },
    });
    const second = await startGate({ name: 'counter', machine, events: CounterEvent, journal, trace, clock: fixedClock });
    // The fold ran the provided implementation too: 3 x 10.
    expect(second.getSnapshot().context.total).toBe(30);
    await second.dispatch({ type: 'counter.added', by: 1 });
    expect(second.getSnapshot().context.total).toBe(40);
    expect(added).toEqual([3, 1]);
    expect(second.getSnapshot().status).toBe('active');
    expect(trace.records.some((r) => r.kind === 'transition')).toBe(true);
    await second.stop();
  });

  it('restores a gate whose fold holds child actors (xstate restores those): the children are live in the restored gate', async () => {
    const SpawnEvent = t.union([t.type({ type: t.literal('tally.spawn') }), t.type({ type: t.literal('tally.bump') })]);
    type SpawnEvent = t.TypeOf<typeof SpawnEvent>;
    const tally = fromTransition((count: number, event: { type: string }) => (event.type === 'tally.bump' ? count + 1 : count), 0);
    const spawning = setup({ types: { context: {} as { spawned: boolean }, events: {} as SpawnEvent }, actors: { tally } }).createMachine({
      id: 'spawning',
      context: { spawned: false },
      on: {
        'tally.spawn': { actions: assign(({ spawn }) => ({ spawned: spawn('tally', { id: 'tally' }) !== undefined })) },
        'tally.bump': { actions: sendTo('tally', { type: 'tally.bump' }) },
      },
    });
    const journal = fakeJournal();
    const first = await startGate({ name: 'spawning', machine: spawning, events: SpawnEvent, journal });
    await first.dispatch({ type: 'tally.spawn' });
    await first.stop();
    const second = await startGate({ name: 'spawning', machine: spawning, events: SpawnEvent, journal });
    const child = second.getSnapshot().children['tally'];
    expect(child).toBeDefined();
    await second.dispatch({ type: 'tally.bump' });
    expect((child?.getSnapshot() as { context: number } | undefined)?.context).toBe(1);
    await second.stop();
  });

  it('refuses input after stop', async () => {
    const gate = await startGate({ name: 'counter', machine: counterMachine, events: CounterEvent });
    await gate.stop();
    const result = await gate.dispatch({ type: 'counter.added', by: 1 });
    expect(E.isLeft(result)).toBe(true);
  });
});
