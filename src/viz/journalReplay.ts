/**
 * Replays a gate from its journal: each record's event is decoded and folded through the
 * machine's pure `transition()` (no effect runs), giving the trace the visualiser steps
 * through: the event, the state it led to, and the effects the gate asked for.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { TraceRecord } from '../effects/ports/trace.js';
import { jsonCopy, type JournalRecord } from '../codecs/codecs.js';
import { decodeWith } from '../codecs/decode.js';
import type { VizGate } from './gates.js';
import { gateNext, gateStart } from './gateTransition.js';

export interface JournalReplay {
  readonly trace: readonly TraceRecord[];
  /** Records that did not decode as the gate's events, by sequence number. */
  readonly problems: readonly string[];
}

const json = jsonCopy;

export const replayJournal = (gate: VizGate, records: readonly JournalRecord[]): JournalReplay => {
  const decode = decodeWith(gate.events, `${gate.name} journal record`);
  const trace: TraceRecord[] = [];
  const problems: string[] = [];
  let snapshot = gateStart(gate);
  for (const record of records) {
    const event = decode(record.payload);
    if (E.isLeft(event)) {
      problems.push(`record ${record.seq}: ${event.left.message}`);
      continue;
    }
    const [next, actions] = gateNext(gate, snapshot, event.right);
    snapshot = next;
    trace.push({ gate: gate.name, kind: 'event', at: record.at, data: record.payload });
    trace.push({ gate: gate.name, kind: 'transition', at: record.at, data: { event: record.payload, value: json(next.value), status: next.status } });
    for (const action of actions) {
      if (action.type.startsWith('xstate.')) continue;
      trace.push({ gate: gate.name, kind: 'effect', at: record.at, data: { action: action.type, params: json(action.params) } });
    }
  }
  return { trace, problems };
};
