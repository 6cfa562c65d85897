/**
 * Steps of a gate, the unit the live inspector and the replay share: the event a gate took (its
 * payload redacted by the caller), the state before and after, whether it was rejected, and the
 * effects it asked for, or that the fold passed over it. Built from a journal record by folding it through the gate's pure
 * machine (`gateFold`, one record at a time as a live file grows), or from a recorded trace.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { TraceRecord } from '../effects/ports/trace.js';
import { jsonCopy, type JournalRecord, type JsonValue } from '../codecs/codecs.js';
import { decodeWith } from '../codecs/decode.js';
import type { VizGate } from './gates.js';
import { gateNext, gateStart } from './gateTransition.js';

export interface GateStep {
  readonly gate: string;
  readonly at: string;
  /** The event as recorded (the caller redacts it before it leaves the process). */
  readonly event: JsonValue;
  /**
   * `local`: a record the gate's fold passes over on purpose (one process's own retain-queue
   * event, which the shared fold leaves out); `rejected`: one it could not fold (damaged, or of
   * the wrong shape).
   */
  readonly kind: 'transition' | 'rejected' | 'local';
  readonly from: JsonValue;
  readonly to: JsonValue;
  readonly effects: readonly string[];
  /** Why a record could not be folded (it is shown, never dropped). */
  readonly problem?: string;
}

const json = jsonCopy;

export interface GateFold {
  /** Folds one journal record; the step says what it did. */
  step(record: JournalRecord): GateStep;
  /** The gate's state value now. */
  value(): JsonValue;
}

/**
 * A running fold of one gate's journal. `fold` decides which records the gate folds (the
 * retain queue folds only the events every process shares); the others are shown as skipped.
 */
export const gateFold = (gate: VizGate, fold: (record: JournalRecord) => boolean = () => true): GateFold => {
  const decode = decodeWith(gate.events, `${gate.name} journal record`);
  let snapshot = gateStart(gate);
  return {
    value: () => json(snapshot.value),
    step: (record) => {
      const from = json(snapshot.value);
      const base = { gate: gate.name, at: record.at, event: record.payload, from };
      if (!fold(record)) return { ...base, kind: 'local', to: from, effects: [], problem: `${record.type}: one process's own event, not part of the shared fold` };
      const event = decode(record.payload);
      if (E.isLeft(event)) return { ...base, kind: 'rejected', to: from, effects: [], problem: event.left.message };
      const [next, actions] = gateNext(gate, snapshot, event.right);
      snapshot = next;
      return { ...base, kind: 'transition', to: json(next.value), effects: actions.map((a) => a.type).filter((type) => !type.startsWith('xstate.')) };
    },
  };
};

/** Steps of a recorded trace (`{state_dir}/memory/trace/<gate>.jsonl`), for replay. */
export const stepsOfTrace = (records: readonly TraceRecord[]): GateStep[] => {
  const steps: GateStep[] = [];
  const last = new Map<string, JsonValue>();
  for (const record of records) {
    const data = typeof record.data === 'object' && record.data !== null && !Array.isArray(record.data) ? record.data : {};
    if (record.kind === 'transition') {
      const from = last.get(record.gate) ?? null;
      const to = data['value'] ?? null;
      last.set(record.gate, to);
      steps.push({ gate: record.gate, at: record.at, event: data['event'] ?? null, kind: 'transition', from, to, effects: [] });
    } else if (record.kind === 'rejected') {
      const at = last.get(record.gate) ?? null;
      steps.push({ gate: record.gate, at: record.at, event: data['event'] ?? record.data, kind: 'rejected', from: at, to: at, effects: [], problem: JSON.stringify(record.data).slice(0, 300) });
    } else if (record.kind === 'effect') {
      // An effect belongs to the step of its gate that asked for it: the latest one.
      const index = steps.map((s) => s.gate).lastIndexOf(record.gate);
      const owner = steps[index];
      const name = typeof data['action'] === 'string' ? data['action'] : typeof data['effect'] === 'string' ? data['effect'] : undefined;
      if (owner !== undefined && name !== undefined && !owner.effects.includes(name)) steps[index] = { ...owner, effects: [...owner.effects, name] };
    }
  }
  return steps;
};


