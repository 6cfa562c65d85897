/** The gates the visualiser draws: every machine of the project, by the gate name traces use. */
import type * as t from 'io-ts';
import type { AnyStateMachine } from 'xstate';
import { ImportEvent } from '../machines/import/events.js';
import { importMachine } from '../machines/import/machine.js';
import { RetainDeliveryEvent } from '../machines/retainDelivery/events.js';
import { retainDeliveryMachine } from '../machines/retainDelivery/machine.js';
import { SessionEvent } from '../machines/session/events.js';
import { sessionMachine } from '../machines/session/machine.js';
import { SetupEvent } from '../machines/setup/events.js';
import { setupMachine } from '../machines/setup/machine.js';

export interface VizGate {
  readonly name: string;
  readonly machine: AnyStateMachine;
  /** The gate's event codec: a journal's payloads are decoded with it before they are replayed. */
  readonly events: t.Mixed;
  /** What the gate's machine starts from (the retain queue needs its delivery mode; without it the machine starts in error and every event threw). */
  readonly input?: unknown;
}

export const vizGates: readonly VizGate[] = [
  { name: 'setup', machine: setupMachine, events: SetupEvent },
  { name: 'session', machine: sessionMachine, events: SessionEvent },
  // The shared fold starts as a queue with the default delivery (retain.delivery: immediate).
  { name: 'retainDelivery', machine: retainDeliveryMachine, events: RetainDeliveryEvent, input: { mode: 'immediate' } },
  { name: 'import', machine: importMachine, events: ImportEvent },
];
