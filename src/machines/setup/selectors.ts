/** Read-only views of the setup gate. */
import type { SnapshotFrom } from 'xstate';
import type { SetupMachine } from './machine.js';

export type SetupState = 'disabled' | 'untrusted' | 'unconfigured' | 'probing' | 'bankMissing' | 'ready' | 'degraded' | 'unsupported';

export const setupState = (snapshot: SnapshotFrom<SetupMachine>): SetupState => snapshot.value as SetupState;


