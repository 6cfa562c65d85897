/**
 * The session gate's effects for any host: recall before a model call, retain after a run,
 * next-opt-out, modes and the shutdown flush. The gate decides; the paths act and report
 * outcomes back as events: recall in `recallFor.ts`, retain in `retainTurn.ts`, shutdown in
 * `shutdown.ts`. This file only wires them to the gate.
 */
import { SessionEvent } from '../../machines/session/events.js';
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
      notifyOptOutSkipped: () => options.notify('info', 'Memory did not save this run, as asked with /memory:next-opt-out.'),
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

  /** A blank name is no name (the gate's codec refuses an empty one). */
  const named = (name: string | undefined): string | undefined => (name === undefined || name.trim() === '' ? undefined : name);

  return {
    gate: live,
    send: async (input) => {
      const at = clock.now();
      const { context } = live.getSnapshot();
      switch (input.type) {
        case 'session.started': {
          const { name, ...started } = input;
          const given = named(name);
          await live.dispatch({ ...started, at, ...(given === undefined ? {} : { name: given }) });
          return;
        }
        case 'session.renamed': {
          const next = named(input.name);
          if ((context.sessionName ?? undefined) === next) return;
          await live.dispatch({ type: input.type, at, ...(next === undefined ? {} : { name: next }) });
          return;
        }
        case 'session.automation.changed': {
          const now = context.automation;
          const { automation } = input;
          if (now.recall === automation.recall && now.retain === automation.retain && now.awaitingSetup === automation.awaitingSetup && now.off === automation.off) return;
          break;
        }
        default:
          break;
      }
      await live.dispatch({ ...input, at });
      if (input.type === 'session.shutdown') await shutdownWork;
    },
    recallFor,
    retainTurn: retain.retainTurn,
    view: () => sessionView(live.getSnapshot()),
    idle: () => inFlight.idle(),
    stop: () => live.stop(),
  };
};
