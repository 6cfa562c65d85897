/**
 * The recall path of the session: ask the gate, run the recaller, report the outcome back as
 * an event (off the prompt path), store the last-recall sidecar and tell the user.
 */
import * as E from 'fp-ts/lib/Either.js';
import { recallOutcomeEvent } from '../../machines/session/decide.js';
import { sessionEvents } from '../../machines/session/events.js';
import type { ClockPort } from '../ports/clock.js';
import type { HostMessage } from './messages.js';
import type { InFlight } from './inFlight.js';
import { sidecarOf, type Recaller, type RecallRunOutcome } from './recall.js';
import type { Notify, RecallForResult, SessionEffectsOptions, SessionGate, SessionSettings } from './types.js';

export interface RecallPathDeps {
  readonly clock: ClockPort;
  readonly recaller: Recaller;
  readonly settings: () => SessionSettings;
  readonly notify: Notify;
  readonly storeLastRecall: SessionEffectsOptions['storeLastRecall'];
  readonly gate: () => SessionGate;
  readonly inFlight: InFlight;
}

export type RecallFor = (messages: readonly HostMessage[], o?: { readonly signal?: AbortSignal | undefined }) => Promise<RecallForResult>;

const notifyOutcome = (notify: Notify, outcome: RecallRunOutcome): void => {
  if (outcome._tag === 'noQuery' || outcome._tag === 'aborted' || (outcome._tag === 'injected' && outcome.cached)) return;
  if (outcome._tag === 'injected') notify('info', `Memory recalled ${outcome.items} item(s)${outcome.failedBanks > 0 ? `; ${outcome.failedBanks} bank(s) failed` : ''}`);
  else if (outcome._tag === 'empty') notify('info', 'Memory recalled no matching memory');
  else notify('warning', `Memory recall failed: ${outcome.reason}`);
};

const resultOf = (outcome: RecallRunOutcome): RecallForResult => {
  switch (outcome._tag) {
    case 'injected':
      return { messages: outcome.messages, outcome: 'injected', items: outcome.items };
    case 'failed':
    case 'timedOut':
      return { outcome: outcome._tag, items: 0, reason: outcome.reason };
    default:
      return { outcome: outcome._tag, items: 0 };
  }
};

export const createRecallPath = (deps: RecallPathDeps): RecallFor => {
  const { clock, recaller, settings, notify, inFlight } = deps;
  let recallCounter = 0;

  return async (messages, o = {}) => {
    const { config, scope } = settings();
    const gate = deps.gate();
    const requestId = `recall-${++recallCounter}`;
    const now = clock.now();
    const deadline = now + config.recallTimeoutMs;
    const requested = await gate.dispatch(sessionEvents.recallRequested({ at: now, requestId, deadline }));
    if (E.isLeft(requested) || requested.right.context.recall?.requestId !== requestId) return { outcome: 'skipped', items: 0 };
    const outcome = await recaller.recall({ messages, scope, config, signal: o.signal, deadline });
    // Each result's score, stage and floor verdict ride on the event, so the trace shows them.
    const report = 'report' in outcome ? outcome.report : undefined;
    const telemetry =
      report?.floor === undefined || report.results === undefined
        ? undefined
        : { floor: report.floor, results: report.results.map(({ bankId, id, score, stage, passedFloor }) => ({ bankId, id, score, stage, passedFloor })) };
    const outcomeEvent = recallOutcomeEvent(outcome, clock.now(), requestId, telemetry);
    // Recorded after the model call has its messages (next macrotask, so it is not on the prompt
    // path), still in order behind the request; `idle()` waits for it.
    void inFlight.track(new Promise<void>((resolve) => setImmediate(resolve)).then(() => gate.dispatch(outcomeEvent)));
    if ('report' in outcome && config.recallStoreLast && !outcome.report.cached) {
      const success = outcome._tag === 'injected' || outcome._tag === 'empty';
      if (success || config.recallStoreFailures) deps.storeLastRecall?.({ ...sidecarOf(outcome.report), outcome: outcome._tag });
    }
    if (config.notifyRecall) notifyOutcome(notify, outcome);
    return resultOf(outcome);
  };
};
