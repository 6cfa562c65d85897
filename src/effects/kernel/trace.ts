/**
 * Turns XState inspection events of a gate's root actor into trace records: transitions and
 * the effects (named actions) they requested. Child actors report through their own outcomes.
 */
import type { InspectionEvent } from 'xstate';
import { JsonValue, jsonCopy } from '../../codecs/codecs.js';
import type { ClockPort } from '../ports/clock.js';
import type { TracePort, TraceKind } from '../ports/trace.js';

/**
 * `value` as JSON: itself when it already is plain JSON (every decoded event is; events and
 * snapshots are never mutated), else a JSON copy; what cannot be copied is its string form.
 */
export const toJson = (value: unknown): JsonValue => {
  if (JsonValue.is(value)) return value;
  try {
    return jsonCopy(value);
  } catch {
    return String(value);
  }
};

export const traceWriter =
  (gate: string, trace: TracePort | undefined, clock: ClockPort) =>
  (kind: TraceKind, data: JsonValue): void =>
    trace?.write({ gate, kind, at: new Date(clock.now()).toISOString(), data });

export const traceInspector = (write: (kind: TraceKind, data: JsonValue) => void) => (event: InspectionEvent): void => {
  if (event.actorRef.sessionId !== event.rootId) return;
  // Every settled step of the root actor: the event that caused it and where it led.
  if (event.type === '@xstate.snapshot') {
    const { snapshot } = event;
    write('transition', { event: toJson(event.event), value: toJson('value' in snapshot ? snapshot.value : undefined), status: snapshot.status ?? null });
  } else if (event.type === '@xstate.action') {
    // xstate's own built-ins (assign, raise) are plumbing, not effects.
    if (event.action.type.startsWith('xstate.')) return;
    write('effect', { action: event.action.type, params: toJson(event.action.params) });
  }
};
