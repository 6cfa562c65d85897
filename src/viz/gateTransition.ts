/**
 * A gate's pure steps for the visualiser's folds (live steps and journal replay): xstate's
 * `initialTransition` and `transition` over the gate's machine, typed in one place. No effect runs.
 */
import { initialTransition, transition, type AnyMachineSnapshot, type EventObject } from 'xstate';
import type { VizGate } from './gates.js';

export interface GateAction {
  readonly type: string;
  readonly params?: unknown;
}

/** The gate's first snapshot, from its input (the retain queue starts from its delivery mode). */
export const gateStart = (gate: VizGate): AnyMachineSnapshot => {
  const [snapshot] = initialTransition(gate.machine, gate.input);
  return snapshot;
};

/** The snapshot an event leads to and the actions the machine asked for on the way. */
export const gateNext = (gate: VizGate, snapshot: AnyMachineSnapshot, event: EventObject): readonly [AnyMachineSnapshot, readonly GateAction[]] => {
  const [next, actions] = transition(gate.machine, snapshot, event);
  return [next, actions];
};
