/**
 * The setup gate: is automatic memory usable in this project right now?
 * disabled (enabled: false) | unconfigured | probing | bankMissing | ready | degraded | unsupported.
 * A new config always wins: `setup.configured` re-decides from any state.
 */
import { assertEvent, setup } from 'xstate';
import { immerAssign } from '../shared/immerAssign.js';
import { belowFloor, FLOOR_REMEDIATION, initialSetupContext, type SetupContext } from './context.js';
import type { SetupEvent } from './events.js';

const assign = immerAssign<SetupContext, SetupEvent>;

export const setupMachine = setup({
  types: { context: {} as SetupContext, events: {} as SetupEvent },
  actions: {
    /** Effect: read capabilities and look the banks up (never creates anything). */
    probe: () => undefined,
    /** Effect: create the missing banks (only those known to be missing). */
    ensureBanks: (_, _params: { banks: readonly string[] }) => undefined,
    /** Effect: arm a timer for `retryAt` that sends `probe.retry`. */
    scheduleRetry: (_, _params: { at: number }) => undefined,
    configure: assign((draft, { event }) => {
      assertEvent(event, 'setup.configured');
      draft.enabled = event.enabled;
      draft.configured = event.configured;
      draft.banks = event.banks;
      draft.detail = event.reason ?? null;
      draft.retryAt = null;
    }),
    countProbe: assign((draft) => {
      draft.probes += 1;
    }),
    noteVersion: assign((draft, { event }) => {
      assertEvent(event, 'probe.succeeded');
      draft.apiVersion = event.apiVersion;
      draft.missingBanks = event.missingBanks;
      draft.retryAt = null;
      draft.detail = null;
    }),
    noteUnsupported: assign((draft, { event }) => {
      assertEvent(event, 'probe.succeeded');
      draft.detail = event.append
        ? `memory server ${event.apiVersion} is below the supported floor; ${FLOOR_REMEDIATION}`
        : `memory server ${event.apiVersion} lacks append retain, so automatic retain is unsupported; ${FLOOR_REMEDIATION}`;
    }),
    noteMissing: assign((draft, { event }) => {
      assertEvent(event, 'probe.succeeded');
      draft.detail = `creating missing bank(s): ${event.missingBanks.join(', ')}`;
    }),
    noteEnsured: assign((draft) => {
      draft.missingBanks = [];
      draft.detail = null;
    }),
    noteDown: assign((draft, { event }) => {
      assertEvent(event, ['probe.failed', 'banks.ensureFailed', 'server.lost']);
      draft.detail = event.reason;
      draft.retryAt = event.retryAt;
    }),
  },
  guards: {
    disabled: ({ event }) => event.type === 'setup.configured' && !event.enabled,
    unconfigured: ({ event }) => event.type === 'setup.configured' && !event.configured,
    unsupported: ({ event }) => event.type === 'probe.succeeded' && (!event.append || belowFloor(event.apiVersion)),
    banksMissing: ({ event }) => event.type === 'probe.succeeded' && event.missingBanks.length > 0,
  },
}).createMachine({
  id: 'setup',
  context: initialSetupContext,
  initial: 'unconfigured',
  on: {
    'setup.configured': [
      { guard: 'disabled', target: '.disabled', actions: 'configure' },
      { guard: 'unconfigured', target: '.unconfigured', actions: 'configure' },
      { target: '.probing', actions: ['configure', 'countProbe', 'probe'] },
    ],
  },
  states: {
    disabled: {},
    unconfigured: {},
    probing: {
      on: {
        'probe.succeeded': [
          { guard: 'unsupported', target: 'unsupported', actions: ['noteVersion', 'noteUnsupported'] },
          {
            guard: 'banksMissing',
            target: 'bankMissing',
            actions: ['noteVersion', 'noteMissing', { type: 'ensureBanks', params: ({ event }) => ({ banks: event.missingBanks }) }],
          },
          { target: 'ready', actions: 'noteVersion' },
        ],
        'probe.failed': {
          target: 'degraded',
          actions: ['noteDown', { type: 'scheduleRetry', params: ({ event }) => ({ at: event.retryAt }) }],
        },
      },
    },
    bankMissing: {
      on: {
        'banks.ensured': { target: 'ready', actions: 'noteEnsured' },
        'banks.ensureFailed': {
          target: 'degraded',
          actions: ['noteDown', { type: 'scheduleRetry', params: ({ event }) => ({ at: event.retryAt }) }],
        },
      },
    },
    ready: {
      on: {
        'server.lost': {
          target: 'degraded',
          actions: ['noteDown', { type: 'scheduleRetry', params: ({ event }) => ({ at: event.retryAt }) }],
        },
      },
    },
    degraded: {
      on: {
        'probe.retry': { target: 'probing', actions: ['countProbe', 'probe'] },
      },
    },
    unsupported: {},
  },
});

export type SetupMachine = typeof setupMachine;
