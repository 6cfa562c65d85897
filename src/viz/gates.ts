/** The gates the visualiser draws: every machine of the project, by the gate name traces use. */
import type { AnyStateMachine } from 'xstate';
import { retainDeliveryMachine } from '../machines/retainDelivery/machine.js';
import { sessionMachine } from '../machines/session/machine.js';
import { setupMachine } from '../machines/setup/machine.js';

export interface VizGate {
  readonly name: string;
  readonly machine: AnyStateMachine;
}

export const vizGates: readonly VizGate[] = [
  { name: 'setup', machine: setupMachine },
  { name: 'session', machine: sessionMachine },
  { name: 'retainDelivery', machine: retainDeliveryMachine },
];
