import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { recallOutcomeEvent } from '../../../src/machines/session/decide.js';
import { SessionEvent, sessionEventTypes, sessionEvents } from '../../../src/machines/session/events.js';

describe('session decisions', () => {
  it('maps each recall outcome to the event the gate expects', () => {
    expect(recallOutcomeEvent({ _tag: 'injected', items: 3, cached: true, failedBanks: 1 }, 9, 'r1')).toEqual({
      type: 'session.recall.succeeded',
      at: 9,
      requestId: 'r1',
      items: 3,
      cached: true,
      failedBanks: 1,
    });
    expect(recallOutcomeEvent({ _tag: 'empty', failedBanks: 2 }, 9, 'r1')).toMatchObject({ type: 'session.recall.succeeded', items: 0, cached: false, failedBanks: 2 });
    expect(recallOutcomeEvent({ _tag: 'noQuery' }, 9, 'r1')).toMatchObject({ type: 'session.recall.succeeded', items: 0, failedBanks: 0 });
    expect(recallOutcomeEvent({ _tag: 'failed', reason: 'boom' }, 9, 'r1')).toEqual({ type: 'session.recall.failed', at: 9, requestId: 'r1', reason: 'boom' });
    expect(recallOutcomeEvent({ _tag: 'timedOut' }, 9, 'r1')).toEqual({ type: 'session.recall.timedOut', at: 9, requestId: 'r1' });
    expect(recallOutcomeEvent({ _tag: 'aborted' }, 9, 'r1')).toEqual({ type: 'session.recall.aborted', at: 9, requestId: 'r1' });
  });

  it('every constructor builds an event its codec accepts', () => {
    const automation = { recall: true, retain: false };
    const built = [
      sessionEvents.started({ at: 1, sessionId: 's', reason: 'startup', automation, sessionFile: '/f', mode: 'normal', name: 'deploys' }),
      sessionEvents.renamed({ at: 1, name: 'n' }),
      sessionEvents.renamed({ at: 1 }),
      sessionEvents.automationChanged({ at: 1, automation, reason: 'r' }),
      sessionEvents.modeSet({ at: 1, mode: 'ignored' }),
      sessionEvents.optOutRequested({ at: 1 }),
      sessionEvents.recallRequested({ at: 1, requestId: 'q', deadline: 5 }),
      sessionEvents.recallSucceeded({ at: 1, requestId: 'q', items: 1, cached: false, failedBanks: 0 }),
      sessionEvents.recallFailed({ at: 1, requestId: 'q', reason: 'r' }),
      sessionEvents.recallTimedOut({ at: 1, requestId: 'q' }),
      sessionEvents.recallAborted({ at: 1, requestId: 'q' }),
      sessionEvents.runEnded({ at: 1, runId: 'x' }),
      sessionEvents.retainQueued({ at: 1, runId: 'x', messages: 2, depth: 1 }),
      sessionEvents.retainNothing({ at: 1, runId: 'x' }),
      sessionEvents.retainFailed({ at: 1, runId: 'x', reason: 'r' }),
      sessionEvents.shutdown({ at: 1, reason: 'quit' }),
      sessionEvents.shutdown({ at: 1, reason: 'fork', targetSessionFile: '/next.jsonl' }),
      sessionEvents.shutdownFinished({ at: 1 }),
    ];
    for (const event of built) expect(E.isRight(SessionEvent.decode(event)), event.type).toBe(true);
    expect(new Set(built.map((e) => e.type)).size).toBe(sessionEventTypes.length);
  });
});
