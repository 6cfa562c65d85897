/**
 * Golden replay: every recorded journal under fixtures/replay/{session,setup}/<case>/ is
 * folded by the real gate runtime (`startGate` over a journal that reads the file), and the
 * resulting state must match expected.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import type { AnyStateMachine } from 'xstate';
import { startGate } from '../../../src/effects/kernel/startGate.js';
import type { JournalPort } from '../../../src/effects/ports/journal.js';
import { SessionEvent } from '../../../src/machines/session/events.js';
import { sessionMachine } from '../../../src/machines/session/machine.js';
import { sessionPhase } from '../../../src/machines/session/selectors.js';
import { SetupEvent } from '../../../src/machines/setup/events.js';
import { setupMachine } from '../../../src/machines/setup/machine.js';
import { setupState } from '../../../src/machines/setup/selectors.js';
import { JournalRecord } from '../../../src/codecs/codecs.js';
import { decodeJson } from '../../../src/codecs/decode.js';

const root = path.resolve(__dirname, '../../../fixtures/replay');

/** A read-only journal over a recorded JSONL file; every line must decode. */
const fileJournal = (file: string): JournalPort => ({
  load: async () => {
    const decode = decodeJson(JournalRecord, file);
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const records = lines.map((line) => {
      const r = decode(line);
      if (E.isLeft(r)) throw new Error(r.left.message);
      return r.right;
    });
    return { records, damage: [] };
  },
  append: async () => {
    throw new Error('replay journals are read-only');
  },
  compact: async () => undefined,
  close: async () => undefined,
});

const gates: Record<string, { machine: AnyStateMachine; events: unknown; state: (s: never) => string }> = {
  session: { machine: sessionMachine, events: SessionEvent, state: sessionPhase as never },
  setup: { machine: setupMachine, events: SetupEvent, state: setupState as never },
};

const cases = Object.keys(gates).flatMap((gate) =>
  readdirSync(path.join(root, gate)).map((name) => ({ gate, name, dir: path.join(root, gate, name) })),
);

describe('replay fixtures', () => {
  it('has cases for both gates', () => {
    expect(cases.filter((c) => c.gate === 'session').length).toBeGreaterThanOrEqual(3);
    expect(cases.filter((c) => c.gate === 'setup').length).toBeGreaterThanOrEqual(2);
  });

  it.each(cases)('$gate/$name folds to expected.json', async ({ gate, dir }) => {
    const spec = gates[gate]!;
    const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { state: string; context: Record<string, unknown> };
    const runtime = await startGate({ name: gate, machine: spec.machine, events: spec.events as never, journal: fileJournal(path.join(dir, 'events.jsonl')) });
    try {
      expect(runtime.damage).toEqual([]);
      expect(runtime.replayed).toBeGreaterThan(0);
      const snapshot = runtime.getSnapshot();
      expect(spec.state(snapshot as never)).toBe(expected.state);
      expect(snapshot.context).toMatchObject(expected.context);
    } finally {
      await runtime.stop();
    }
  });
});
