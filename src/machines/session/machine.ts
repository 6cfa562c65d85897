/**
 * The session gate: one host session's automatic memory. It decides, the effects act:
 * whether a model call gets recall (and until when), whether a finished run is retained,
 * skipped for next-opt-out, or only marked, and at shutdown whether the queue is flushed
 * (quit: the process ends) or only the hand-offs awaited (reload/new/resume/fork).
 *
 * Recall and retain are parallel regions: pi runs `agent_end` handlers off the agent loop,
 * so the next prompt's recall can start while the previous run is still being retained.
 */
import { assertEvent, setup } from 'xstate';
import { immerAssign } from '../shared/immerAssign.js';
import { initialSessionContext, recallAllowed, replacesSession, retainAllowed, retainHeld, type SessionContext } from './context.js';
import type { SessionEvent } from './events.js';

const assign = immerAssign<SessionContext, SessionEvent>;

const runIdOf = ({ event }: { event: SessionEvent }): string => (event.type === 'session.run.ended' ? event.runId : '');

/** What a finished run leads to; `fromIdle` moves to `retaining` when it is retained. */
const runEnded = (fromIdle: boolean) =>
  [
    {
      guard: 'optOutPending',
      actions: [
        'consumeOptOut',
        { type: 'skipRun', params: (a: { event: SessionEvent }) => ({ runId: runIdOf(a), reason: 'next-opt-out' }) },
        'notifyOptOutSkipped',
      ],
    },
    {
      guard: 'retainAllowed',
      ...(fromIdle ? { target: 'retaining' } : {}),
      actions: ['beginRetain', { type: 'retainRun', params: (a: { event: SessionEvent }) => ({ runId: runIdOf(a) }) }],
    },
    {
      guard: 'retainHeld',
      actions: ['noteRetainHeld', { type: 'holdRun', params: (a: { event: SessionEvent }) => ({ runId: runIdOf(a) }) }],
    },
    {
      actions: [
        'noteRetainSkipped',
        {
          type: 'skipRun',
          params: (a: { event: SessionEvent; context: SessionContext }) => ({ runId: runIdOf(a), reason: a.context.automation.off === true ? 'off' : 'not retained' }),
        },
      ],
    },
  ] as const;

const endRecall = (outcome: 'failed' | 'timedOut' | 'aborted') =>
  assign((draft, { event }) => {
    draft.lastRecall = {
      at: event.at,
      outcome,
      items: 0,
      ...(event.type === 'session.recall.failed' ? { detail: event.reason } : {}),
    };
    draft.recall = null;
  });

export const sessionMachine = setup({
  types: { context: {} as SessionContext, events: {} as SessionEvent },
  actions: {
    /** Effect: project the run's delta, hand it to the retain queue, advance the cursor. */
    retainRun: (_, _params: { runId: string }) => undefined,
    /**
     * Effect: advance the retain cursor past the run without retaining it; a run skipped for
     * next-opt-out or with memory off (`reason` 'off') is also marked not kept in the host's session.
     */
    skipRun: (_, _params: { runId: string; reason: string }) => undefined,
    /** Effect: leave the run behind the retain cursor (setup is not finished) and say so once. */
    holdRun: (_, _params: { runId: string }) => undefined,
    /** Effect: tell the user the run was not retained because of next-opt-out. */
    notifyOptOutSkipped: () => undefined,
    /** Effect: tell the user the next run will not be retained. */
    notifyOptOutArmed: () => undefined,
    /** Effect: bounded best-effort flush of the queue; the jobs are already durable. */
    flushOnShutdown: () => undefined,
    /**
     * Effect: the session is replaced and the process goes on: wait (bounded) for the runs
     * being handed off, but not for the server; the next session's queue delivers them.
     */
    handOffOnShutdown: () => undefined,
    start: assign((draft, { event }) => {
      assertEvent(event, 'session.started');
      draft.starts += 1;
      draft.sessionId = event.sessionId;
      draft.sessionFile = event.sessionFile ?? null;
      draft.sessionName = event.name ?? null;
      draft.automation = event.automation;
      if (event.mode !== undefined) draft.mode = event.mode;
    }),
    restartDuplicate: assign((draft, { event }) => {
      assertEvent(event, 'session.started');
      // pi's RPC mode binds a session twice: same session, so only count it (and refresh).
      draft.starts += 1;
      if (event.sessionFile !== undefined) draft.sessionFile = event.sessionFile;
    }),
    rename: assign((draft, { event }) => {
      assertEvent(event, 'session.renamed');
      draft.sessionName = event.name ?? null;
    }),
    setAutomation: assign((draft, { event }) => {
      assertEvent(event, 'session.automation.changed');
      draft.automation = event.automation;
    }),
    setMode: assign((draft, { event }) => {
      assertEvent(event, 'session.mode.set');
      draft.mode = event.mode;
    }),
    armOptOut: assign((draft) => {
      draft.nextOptOut = true;
    }),
    consumeOptOut: assign((draft, { event }) => {
      draft.nextOptOut = false;
      draft.lastRetain = { at: event.at, outcome: 'optedOut', messages: 0, detail: 'next-opt-out' };
    }),
    noteRetainHeld: assign((draft, { event }) => {
      draft.lastRetain = { at: event.at, outcome: 'held', messages: 0, detail: 'kept until memory is set up in this project' };
    }),
    noteRetainSkipped: assign((draft, { event, context }) => {
      const detail = context.mode !== 'normal' ? `session is ${context.mode}` : 'automatic retain is off';
      draft.lastRetain = { at: event.at, outcome: 'skipped', messages: 0, detail };
    }),
    beginRecall: assign((draft, { event }) => {
      assertEvent(event, 'session.recall.requested');
      draft.recall = { requestId: event.requestId, deadline: event.deadline, startedAt: event.at };
    }),
    noteRecallSkipped: assign((draft, { event, context }) => {
      const detail = context.mode === 'ignored' ? 'session is ignored' : 'automatic recall is off';
      draft.lastRecall = { at: event.at, outcome: 'skipped', items: 0, detail };
    }),
    finishRecall: assign((draft, { event }) => {
      assertEvent(event, 'session.recall.succeeded');
      draft.lastRecall = {
        at: event.at,
        outcome: event.items > 0 ? 'recalled' : 'empty',
        items: event.items,
        ...(event.cached ? { detail: 'cached' } : {}),
        ...(event.failedBanks > 0 ? { detail: `${event.failedBanks} bank(s) failed` } : {}),
      };
      draft.recall = null;
    }),
    lateRecall: endRecall('timedOut'),
    failRecall: endRecall('failed'),
    timeOutRecall: endRecall('timedOut'),
    abortRecall: endRecall('aborted'),
    beginRetain: assign((draft, { event }) => {
      assertEvent(event, 'session.run.ended');
      draft.retainingRun = event.runId;
    }),
    finishRetain: assign((draft, { event }) => {
      draft.retainingRun = null;
      if (event.type === 'session.retain.queued') {
        draft.lastRetain = { at: event.at, outcome: 'queued', messages: event.messages };
      } else if (event.type === 'session.retain.nothing') {
        draft.lastRetain = { at: event.at, outcome: 'nothing', messages: 0 };
      } else if (event.type === 'session.retain.failed') {
        draft.lastRetain = { at: event.at, outcome: 'failed', messages: 0, detail: event.reason };
      }
    }),
    beginShutdown: assign((draft, { event }) => {
      assertEvent(event, 'session.shutdown');
      draft.shutdownReason = event.reason;
      draft.recall = null;
      if (replacesSession(event.reason)) {
        // Nothing of this session's recall or opt-out carries into the one replacing it.
        draft.lastRecall = null;
        draft.nextOptOut = false;
      }
    }),
  },
  guards: {
    sameSession: ({ context, event }) => event.type === 'session.started' && event.sessionId === context.sessionId,
    recallAllowed: ({ context }) => recallAllowed(context),
    retainAllowed: ({ context }) => retainAllowed(context),
    retainHeld: ({ context }) => retainHeld(context),
    optOutPending: ({ context }) => context.nextOptOut && retainAllowed(context),
    currentRecall: ({ context, event }) => 'requestId' in event && context.recall?.requestId === event.requestId,
    /** An answer that arrives after the deadline is too late for this model call. */
    currentButLate: ({ context, event }) =>
      'requestId' in event && context.recall?.requestId === event.requestId && event.at > context.recall.deadline,
    currentRun: ({ context, event }) => 'runId' in event && context.retainingRun === event.runId,
    replacingSession: ({ event }) => event.type === 'session.shutdown' && replacesSession(event.reason),
  },
}).createMachine({
  id: 'session',
  context: initialSessionContext,
  initial: 'starting',
  states: {
    starting: {
      on: {
        'session.started': { target: 'active', actions: 'start' },
        'session.shutdown': { target: 'closed', actions: 'beginShutdown' },
      },
    },
    active: {
      type: 'parallel',
      on: {
        'session.started': [
          { guard: 'sameSession', actions: 'restartDuplicate' },
          { target: 'active', reenter: true, actions: 'start' },
        ],
        'session.automation.changed': { actions: 'setAutomation' },
        'session.mode.set': { actions: 'setMode' },
        'session.optOut.requested': { actions: ['armOptOut', 'notifyOptOutArmed'] },
        'session.renamed': { actions: 'rename' },
        'session.shutdown': [
          { guard: 'replacingSession', target: 'shuttingDown', actions: ['beginShutdown', 'handOffOnShutdown'] },
          { target: 'shuttingDown', actions: ['beginShutdown', 'flushOnShutdown'] },
        ],
      },
      states: {
        recall: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                'session.recall.requested': [
                  { guard: 'recallAllowed', target: 'recalling', actions: 'beginRecall' },
                  { actions: 'noteRecallSkipped' },
                ],
              },
            },
            recalling: {
              on: {
                // A second model call of the run supersedes the first request.
                'session.recall.requested': [
                  { guard: 'recallAllowed', target: 'recalling', reenter: true, actions: 'beginRecall' },
                  { target: 'idle', actions: 'noteRecallSkipped' },
                ],
                'session.recall.succeeded': [
                  { guard: 'currentButLate', target: 'idle', actions: 'lateRecall' },
                  { guard: 'currentRecall', target: 'idle', actions: 'finishRecall' },
                ],
                'session.recall.failed': { guard: 'currentRecall', target: 'idle', actions: 'failRecall' },
                'session.recall.timedOut': { guard: 'currentRecall', target: 'idle', actions: 'timeOutRecall' },
                'session.recall.aborted': { guard: 'currentRecall', target: 'idle', actions: 'abortRecall' },
              },
            },
          },
        },
        retain: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                'session.run.ended': runEnded(true),
              },
            },
            retaining: {
              on: {
                // Runs end one after another; the effects serialise their hand-offs.
                'session.run.ended': runEnded(false),
                'session.retain.queued': { guard: 'currentRun', target: 'idle', actions: 'finishRetain' },
                'session.retain.nothing': { guard: 'currentRun', target: 'idle', actions: 'finishRetain' },
                'session.retain.failed': { guard: 'currentRun', target: 'idle', actions: 'finishRetain' },
              },
            },
          },
        },
      },
    },
    shuttingDown: {
      on: {
        'session.retain.queued': { actions: 'finishRetain' },
        'session.retain.nothing': { actions: 'finishRetain' },
        'session.retain.failed': { actions: 'finishRetain' },
        'session.shutdown.finished': 'closed',
      },
    },
    closed: { type: 'final' },
  },
});

export type SessionMachine = typeof sessionMachine;
