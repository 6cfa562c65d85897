/**
 * The setup gate: is automatic memory usable in this project right now?
 * disabled (enabled: false) | untrusted (the project file moved memory somewhere untrusted) |
 * unconfigured | probing | bankMissing | ready | degraded | unsupported.
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
    /** Effect: arm a timer for `retryAt` that sends `setup.probe.retry`. */
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
      assertEvent(event, 'setup.probe.succeeded');
      draft.apiVersion = event.apiVersion;
      draft.missingBanks = event.missingBanks;
      draft.retryAt = null;
      draft.detail = null;
    }),
    noteUnsupported: assign((draft, { event }) => {
      assertEvent(event, 'setup.probe.succeeded');
      draft.detail = event.append
        ? `memory server ${event.apiVersion} is below the supported floor; ${FLOOR_REMEDIATION}`
        : `memory server ${event.apiVersion} lacks append retain, so automatic retain is unsupported; ${FLOOR_REMEDIATION}`;
    }),
    noteMissing: assign((draft, { event }) => {
      assertEvent(event, 'setup.probe.succeeded');
      draft.detail = `creating missing bank(s): ${event.missingBanks.join(', ')}`;
    }),
    noteEnsured: assign((draft) => {
      draft.missingBanks = [];
      draft.detail = null;
    }),
    firstRun: assign((draft, { event }) => {
      assertEvent(event, ['setup.firstRun.answered', 'setup.firstRun.told']);
      draft.person.firstRun = event.type === 'setup.firstRun.told' ? 'told' : event.choice;
    }),
    openGuide: assign((draft, { event }) => {
      assertEvent(event, 'setup.guide.started');
      draft.person.guide = { via: event.via, answers: {}, skipped: [] };
    }),
    noteAnswer: assign((draft, { event }) => {
      assertEvent(event, ['setup.guide.answered', 'setup.guide.skipped']);
      const guide = draft.person.guide;
      if (guide === null) return;
      if (event.type === 'setup.guide.answered') guide.answers[event.step] = event.answer;
      else guide.skipped.push(event.step);
    }),
    closeGuide: assign((draft, { event }) => {
      assertEvent(event, ['setup.guide.cancelled', 'setup.config.written', 'setup.config.writeFailed']);
      if (event.type === 'setup.config.written') draft.person.writes += 1;
      if (draft.person.guide === null && event.type !== 'setup.guide.cancelled') return;
      draft.person.guide = null;
      draft.person.lastGuide = event.type === 'setup.guide.cancelled' ? 'cancelled' : event.type === 'setup.config.written' ? 'written' : 'failed';
    }),
    noteDown: assign((draft, { event }) => {
      assertEvent(event, ['setup.probe.failed', 'setup.banks.ensureFailed', 'setup.server.lost']);
      draft.detail = event.reason;
      draft.retryAt = event.retryAt;
    }),
  },
  guards: {
    untrusted: ({ event }) => event.type === 'setup.configured' && event.untrusted === true,
    disabled: ({ event }) => event.type === 'setup.configured' && !event.enabled,
    unconfigured: ({ event }) => event.type === 'setup.configured' && !event.configured,
    unsupported: ({ event }) => event.type === 'setup.probe.succeeded' && (!event.append || belowFloor(event.apiVersion)),
    banksMissing: ({ event }) => event.type === 'setup.probe.succeeded' && event.missingBanks.length > 0,
  },
}).createMachine({
  id: 'setup',
  context: initialSetupContext,
  initial: 'unconfigured',
  on: {
    'setup.configured': [
      { guard: 'untrusted', target: '.untrusted', actions: 'configure' },
      { guard: 'disabled', target: '.disabled', actions: 'configure' },
      { guard: 'unconfigured', target: '.unconfigured', actions: 'configure' },
      { target: '.probing', actions: ['configure', 'countProbe', 'probe'] },
    ],
    // A person's answers are recorded in any state; the config they write comes back as
    // `setup.configured` (the runtime reloads), which re-decides the gate as above.
    'setup.firstRun.answered': { actions: 'firstRun' },
    'setup.firstRun.told': { actions: 'firstRun' },
    'setup.guide.started': { actions: 'openGuide' },
    'setup.guide.answered': { actions: 'noteAnswer' },
    'setup.guide.skipped': { actions: 'noteAnswer' },
    'setup.guide.cancelled': { actions: 'closeGuide' },
    'setup.config.written': { actions: 'closeGuide' },
    'setup.config.writeFailed': { actions: 'closeGuide' },
  },
  states: {
    disabled: {},
    // No probe, no bank, nothing sent: only a new config (the user trusting it) leaves.
    untrusted: {},
    unconfigured: {},
    probing: {
      on: {
        'setup.probe.succeeded': [
          { guard: 'unsupported', target: 'unsupported', actions: ['noteVersion', 'noteUnsupported'] },
          {
            guard: 'banksMissing',
            target: 'bankMissing',
            actions: ['noteVersion', 'noteMissing', { type: 'ensureBanks', params: ({ event }) => ({ banks: event.missingBanks }) }],
          },
          { target: 'ready', actions: 'noteVersion' },
        ],
        'setup.probe.failed': {
          target: 'degraded',
          actions: ['noteDown', { type: 'scheduleRetry', params: ({ event }) => ({ at: event.retryAt }) }],
        },
      },
    },
    bankMissing: {
      on: {
        'setup.banks.ensured': { target: 'ready', actions: 'noteEnsured' },
        'setup.banks.ensureFailed': {
          target: 'degraded',
          actions: ['noteDown', { type: 'scheduleRetry', params: ({ event }) => ({ at: event.retryAt }) }],
        },
      },
    },
    ready: {
      on: {
        'setup.server.lost': {
          target: 'degraded',
          actions: ['noteDown', { type: 'scheduleRetry', params: ({ event }) => ({ at: event.retryAt }) }],
        },
      },
    },
    degraded: {
      on: {
        'setup.probe.retry': { target: 'probing', actions: ['countProbe', 'probe'] },
      },
    },
    unsupported: {},
  },
});

export type SetupMachine = typeof setupMachine;
