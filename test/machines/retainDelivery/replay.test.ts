/**
 * Golden replays: each folder of fixtures/replay/retainDelivery holds a journal (events.jsonl)
 * and the state it must fold to (expected.json). Folded twice: through the pure transition(),
 * and through the gate runtime from a journal, as a restarted process does.
 */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { startGate } from '../../../src/effects/kernel/startGate.js';
import { RetainDeliveryEvent } from '../../../src/machines/retainDelivery/events.js';
import { retainDeliveryMachine } from '../../../src/machines/retainDelivery/machine.js';
import { decodeJson } from '../../../src/codecs/decode.js';
import { createMemoryJournal } from '../../helpers/memoryJournal.js';

type Snapshot = SnapshotFrom<typeof retainDeliveryMachine>;

const root = join(process.cwd(), 'fixtures', 'replay', 'retainDelivery');
const cases = readdirSync(root).sort();

const eventsOf = (name: string): RetainDeliveryEvent[] =>
  readFileSync(join(root, name, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line, i) => {
      const decoded = decodeJson(RetainDeliveryEvent, `${name} line ${i + 1}`)(line);
      if (E.isLeft(decoded)) throw new Error(decoded.left.message);
      return decoded.right;
    });

const summary = (snapshot: Snapshot) => ({
  state: snapshot.value,
  depth: snapshot.context.depth,
  deadLetters: snapshot.context.deadLetters.length,
  inFlight: snapshot.context.inFlight,
  pausedReason: snapshot.context.pausedReason,
  retryAt: snapshot.context.retryAt,
});

describe('retain-delivery golden replays', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(4);
  });

  for (const name of cases) {
    it(`${name}: folds to the expected state, purely and through the runtime`, async () => {
      const expected = JSON.parse(readFileSync(join(root, name, 'expected.json'), 'utf8')) as Record<string, unknown>;
      const events = eventsOf(name);
      let [snapshot] = initialTransition(retainDeliveryMachine, { mode: expected['mode'] as 'immediate' });
      for (const event of events) [snapshot] = transition(retainDeliveryMachine, snapshot, event);
      const want = { state: expected['state'], depth: expected['depth'], deadLetters: expected['deadLetters'], inFlight: expected['inFlight'], pausedReason: expected['pausedReason'], retryAt: expected['retryAt'] };
      expect(summary(snapshot)).toEqual(want);

      const journal = createMemoryJournal(events.map((event) => ({ type: event.type, at: '2026-11-22T10:00:00.000Z', payload: JSON.parse(JSON.stringify(event)) })));
      const restored: string[] = [];
      const gate = await startGate({
        name: 'retainDelivery',
        machine: retainDeliveryMachine,
        events: RetainDeliveryEvent,
        journal,
        input: { mode: expected['mode'] as 'immediate' },
        onRestore: (s) => restored.push(String(s.value)),
      });
      expect(gate.replayed).toBe(events.length);
      expect(summary(gate.getSnapshot())).toEqual(want);
      expect(restored).toEqual([want.state]);
      // A journal that cannot store the next input refuses it and leaves state as it was.
      journal.failNextAppend(new Error('ENOSPC: no space left on device'));
      await expect(gate.dispatch({ type: 'retain.enqueued', jobs: [], at: 9_000 })).rejects.toThrow(/ENOSPC/);
      expect(summary(gate.getSnapshot())).toEqual(want);
      await gate.stop();
    });
  }
});
