/**
 * The session gate's effects for any host: recall before a model call, retain after a run,
 * next-opt-out, modes and the shutdown flush. The gate decides; the paths act and report
 * outcomes back as events: recall in `recallFor.ts`, retain in `retainTurn.ts`, shutdown in
 * `shutdown.ts`. This file only wires them to the gate.
 */
import { SessionEvent, sessionEvents } from '../../machines/session/events.js';
import { sessionMachine } from '../../machines/session/machine.js';
import { sessionView } from '../../machines/session/selectors.js';
import { startGate } from '../kernel/startGate.js';
import { createInFlight } from './inFlight.js';
import { createRecallPath } from './recallFor.js';
import { createRetainPath } from './retainTurn.js';
import { flushOnShutdown } from './shutdown.js';
import type { SessionEffects, SessionEffectsOptions, SessionGate } from './types.js';

export type { SessionQueue } from '../ports/sessionQueue.js';
export type * from './types.js';

export const startSessionEffects = async (options: SessionEffectsOptions): Promise<SessionEffects> => {
  const { clock, queue } = options;
  const inFlight = createInFlight();
  // The paths are built before the gate (its actions call them); they reach it only later.
  const holder: { gate?: SessionGate } = {};
  const gate = (): SessionGate => {
    if (holder.gate === undefined) throw new Error('session gate used before it started');
    return holder.gate;
  };
  const retain = createRetainPath({ ...options, gate, inFlight });
  const recallFor = createRecallPath({ ...options, storeLastRecall: options.storeLastRecall, gate, inFlight });
  let shutdownWork: Promise<void> | undefined;

  const machine = sessionMachine.provide({
    actions: {
      retainRun: (_, params) => retain.retainRun(params.runId),
      skipRun: (_, params) => retain.skipRun(params.runId, params.reason),
      holdRun: (_, params) => retain.holdRun(params.runId),
      notifyOptOutSkipped: () => options.notify('info', 'Memory skipped retain for this run due to next-opt-out.'),
      // The command that armed it already told the user; the footer shows `skip next`.
      notifyOptOutArmed: () => undefined,
      flushOnShutdown: () => {
        shutdownWork = inFlight.track(flushOnShutdown({ clock, queue, gate, inFlight, flushMs: options.shutdownFlushMs ?? 2_000, flushQueue: true }));
      },
      handOffOnShutdown: () => {
        shutdownWork = inFlight.track(flushOnShutdown({ clock, queue, gate, inFlight, flushMs: options.shutdownFlushMs ?? 2_000, flushQueue: false }));
      },
    },
  });

  const live = await startGate({
    name: 'session',
    machine,
    events: SessionEvent,
    clock,
    ...(options.journal === undefined ? {} : { journal: options.journal }),
    ...(options.trace === undefined ? {} : { trace: options.trace }),
  });
  holder.gate = live;

  return {
    gate: live,
    start: async (info) => {
      await live.dispatch(
        sessionEvents.started({
          at: clock.now(),
          sessionId: info.sessionId,
          reason: info.reason,
          automation: info.automation,
          ...(info.sessionFile === undefined ? {} : { sessionFile: info.sessionFile }),
          ...(info.mode === undefined ? {} : { mode: info.mode }),
          ...(info.name === undefined || info.name.trim() === '' ? {} : { name: info.name }),
        }),
      );
    },
    rename: async (name) => {
      const next = name === undefined || name.trim() === '' ? undefined : name;
      if ((live.getSnapshot().context.sessionName ?? undefined) === next) return;
      await live.dispatch(sessionEvents.renamed({ at: clock.now(), ...(next === undefined ? {} : { name: next }) }));
    },
    recallFor,
    retainTurn: retain.retainTurn,
    optOutNext: async () => {
      await live.dispatch(sessionEvents.optOutRequested({ at: clock.now() }));
    },
    setMode: async (mode) => {
      await live.dispatch(sessionEvents.modeSet({ at: clock.now(), mode }));
    },
    setAutomation: async (automation, reason) => {
      const current = live.getSnapshot().context.automation;
      if (current.recall === automation.recall && current.retain === automation.retain && current.awaitingSetup === automation.awaitingSetup) return;
      await live.dispatch(sessionEvents.automationChanged({ at: clock.now(), automation, ...(reason === undefined ? {} : { reason }) }));
    },
    view: () => sessionView(live.getSnapshot()),
    shutdown: async (reason, o = {}) => {
      await live.dispatch(sessionEvents.shutdownRequested({ at: clock.now(), reason, ...(o.targetSessionFile === undefined ? {} : { targetSessionFile: o.targetSessionFile }) }));
      await shutdownWork;
    },
    idle: () => inFlight.idle(),
    stop: () => live.stop(),
  };
};
