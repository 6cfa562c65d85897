/** Read-only views of the setup gate. */
import type { SnapshotFrom } from 'xstate';
import type { SetupMachine } from './machine.js';

export type SetupState = 'disabled' | 'untrusted' | 'unconfigured' | 'probing' | 'bankMissing' | 'ready' | 'degraded' | 'unsupported';

export const setupState = (snapshot: SnapshotFrom<SetupMachine>): SetupState => snapshot.value as SetupState;

/** Automatic recall and retain may talk to the server only when the gate is ready. */
export const automationOpen = (snapshot: SnapshotFrom<SetupMachine>): boolean => snapshot.matches('ready');
