/** The gates the visualiser draws: every machine of the project, by gate name. */
import type { AnyStateMachine } from 'xstate';

export interface VizGate {
  readonly name: string;
  readonly machine: AnyStateMachine;
}

export const vizGates: readonly VizGate[] = [];
