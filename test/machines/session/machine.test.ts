import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import * as fc from 'fast-check';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { SessionEvent, sessionEventTypes } from '../../../src/machines/session/events.js';
import { sessionMachine, type SessionMachine } from '../../../src/machines/session/machine.js';
import { sessionPhase, sessionView } from '../../../src/machines/session/selectors.js';
import { decodeWith } from '../../../src/codecs/decode.js';

type Snapshot = SnapshotFrom<SessionMachine>;
const decode = decodeWith(SessionEvent, 'session event');

/** Decodes like the runtime does, then steps the pure machine; returns the action types. */
const step = (snapshot: Snapshot, input: unknown): [Snapshot, string[]] => {
  const event = decode(input);
  if (E.isLeft(event)) throw new Error(event.left.message);
  const [next, actions] = transition(sessionMachine, snapshot, event.right);
  return [next, actions.map((a) => a.type)];
};

const started = (overrides: Record<string, unknown> = {}) => ({
  type: 'session.started',
  at: 1_000,
  sessionId: 's1',
  sessionFile: '/tmp/s1.jsonl',
  reason: 'startup',
  automation: { recall: true, retain: true },
  ...overrides,
});

const active = (overrides: Record<string, unknown> = {}): Snapshot => step(initialTransition(sessionMachine)[0], started(overrides))[0];

describe('session machine', () => {
  it('starts in starting and becomes idle on session.started', () => {
    const [initial] = initialTransition(sessionMachine);
    expect(sessionPhase(initial)).toBe('starting');
    const snapshot = active();
    expect(sessionPhase(snapshot)).toBe('idle');
    expect(snapshot.context).toMatchObject({ sessionId: 's1', starts: 1, mode: 'normal' });
  });

  it('treats a second session.started for the same session as the same session (pi RPC double start)', () => {
    let snapshot = active();
    [snapshot] = step(snapshot, { type: 'session.optOut.requested', at: 1_100 });
    const [again, actions] = step(snapshot, started({ at: 1_200 }));
    expect(again.context.starts).toBe(2);
    // Nothing reset: the armed opt-out survives, no action runs twice.
    expect(again.context.nextOptOut).toBe(true);
    expect(actions).not.toContain('flushOnShutdown');
    expect(sessionPhase(again)).toBe('idle');
  });

  it('recalls with the deadline in context, and a late answer counts as timed out', () => {
    let snapshot = active();
    [snapshot] = step(snapshot, { type: 'session.recall.requested', at: 2_000, requestId: 'r1', deadline: 3_500 });
    expect(sessionPhase(snapshot)).toBe('recalling');
    expect(snapshot.context.recall).toEqual({ requestId: 'r1', deadline: 3_500, startedAt: 2_000 });
    const [onTime] = step(snapshot, { type: 'session.recall.succeeded', at: 2_300, requestId: 'r1', items: 3, cached: false, failedBanks: 0 });
    expect(onTime.context.lastRecall).toMatchObject({ outcome: 'recalled', items: 3 });
    expect(sessionPhase(onTime)).toBe('idle');
    const [late] = step(snapshot, { type: 'session.recall.succeeded', at: 3_600, requestId: 'r1', items: 3, cached: false, failedBanks: 0 });
    expect(late.context.lastRecall).toMatchObject({ outcome: 'timedOut' });
  });

  it('ignores outcomes of a superseded recall request', () => {
    let snapshot = active();
    [snapshot] = step(snapshot, { type: 'session.recall.requested', at: 2_000, requestId: 'r1', deadline: 3_500 });
    [snapshot] = step(snapshot, { type: 'session.recall.requested', at: 2_100, requestId: 'r2', deadline: 3_600 });
    const [after] = step(snapshot, { type: 'session.recall.failed', at: 2_200, requestId: 'r1', reason: 'x' });
    expect(after.context.recall?.requestId).toBe('r2');
    expect(sessionPhase(after)).toBe('recalling');
  });

  it('skips recall in an ignored session and when recall is off', () => {
    const ignored = active({ mode: 'ignored' });
    const [a] = step(ignored, { type: 'session.recall.requested', at: 2_000, requestId: 'r1', deadline: 3_000 });
    expect(sessionPhase(a)).toBe('idle');
    expect(a.context.lastRecall).toMatchObject({ outcome: 'skipped', detail: 'session is ignored' });
    const off = active({ automation: { recall: false, retain: true } });
    const [b] = step(off, { type: 'session.recall.requested', at: 2_000, requestId: 'r1', deadline: 3_000 });
    expect(b.context.lastRecall).toMatchObject({ outcome: 'skipped', detail: 'automatic recall is off' });
  });

  it('retains a finished run in normal mode', () => {
    const [snapshot, actions] = step(active(), { type: 'session.run.ended', at: 5_000, runId: 'run-1' });
    expect(actions).toContain('retainRun');
    expect(sessionPhase(snapshot)).toBe('retaining');
    const [done] = step(snapshot, { type: 'session.retain.queued', at: 5_010, runId: 'run-1', messages: 2, depth: 1 });
    expect(done.context.lastRetain).toMatchObject({ outcome: 'queued', messages: 2 });
    expect(sessionPhase(done)).toBe('idle');
  });

  it('next-opt-out skips exactly the next completed run, then retains again', () => {
    let snapshot = active();
    let actions: string[];
    [snapshot, actions] = step(snapshot, { type: 'session.optOut.requested', at: 4_000 });
    expect(actions).toContain('notifyOptOutArmed');
    expect(sessionView(snapshot).nextOptOut).toBe(true);
    [snapshot, actions] = step(snapshot, { type: 'session.run.ended', at: 5_000, runId: 'run-1' });
    // consumeOptOut is an assign: applied to context, not returned as an effect.
    expect(actions).toEqual(['skipRun', 'notifyOptOutSkipped']);
    expect(actions).not.toContain('retainRun');
    expect(snapshot.context.nextOptOut).toBe(false);
    expect(snapshot.context.lastRetain).toMatchObject({ outcome: 'optedOut' });
    const [retaining, nextActions] = step(snapshot, { type: 'session.run.ended', at: 6_000, runId: 'run-2' });
    expect(nextActions).toContain('retainRun');
    expect(sessionPhase(retaining)).toBe('retaining');
  });

  it('never retains in read-only or ignored sessions but marks the run', () => {
    for (const mode of ['read-only', 'ignored'] as const) {
      const [snapshot, actions] = step(active({ mode }), { type: 'session.run.ended', at: 5_000, runId: 'run-1' });
      expect(actions).toContain('skipRun');
      expect(actions).not.toContain('retainRun');
      expect(snapshot.context.lastRetain).toMatchObject({ outcome: 'skipped', detail: `session is ${mode}` });
    }
    // Read-only still recalls.
    const [r] = step(active({ mode: 'read-only' }), { type: 'session.recall.requested', at: 2_000, requestId: 'r1', deadline: 3_000 });
    expect(sessionPhase(r)).toBe('recalling');
  });

  it('keeps next-opt-out pending under a stronger mode', () => {
    let snapshot = active({ mode: 'read-only' });
    [snapshot] = step(snapshot, { type: 'session.optOut.requested', at: 4_000 });
    [snapshot] = step(snapshot, { type: 'session.run.ended', at: 5_000, runId: 'run-1' });
    expect(snapshot.context.nextOptOut).toBe(true);
  });

  it('shuts down with a bounded flush and closes', () => {
    const [shutting, actions] = step(active(), { type: 'session.shutdown', at: 9_000, reason: 'quit' });
    let snapshot = shutting;
    expect(actions).toContain('flushOnShutdown');
    expect(sessionPhase(snapshot)).toBe('shuttingDown');
    [snapshot] = step(snapshot, { type: 'session.shutdown.finished', at: 9_100 });
    expect(snapshot.status).toBe('done');
    expect(sessionPhase(snapshot)).toBe('closed');
  });

  it.each(['reload', 'new', 'resume', 'fork'] as const)('a session replaced by %s hands off without waiting for the server, and keeps nothing of its recall', (reason) => {
    let snapshot = active();
    [snapshot] = step(snapshot, { type: 'session.optOut.requested', at: 2_000 });
    [snapshot] = step(snapshot, { type: 'session.recall.requested', at: 2_100, requestId: 'r1', deadline: 3_000 });
    [snapshot] = step(snapshot, { type: 'session.recall.succeeded', at: 2_200, requestId: 'r1', items: 2, cached: false, failedBanks: 0 });
    [snapshot] = step(snapshot, { type: 'session.recall.requested', at: 2_300, requestId: 'r2', deadline: 3_300 });
    const [shutting, actions] = step(snapshot, { type: 'session.shutdown', at: 9_000, reason, targetSessionFile: '/tmp/next.jsonl' });
    expect(actions).toContain('handOffOnShutdown');
    expect(actions).not.toContain('flushOnShutdown');
    expect(shutting.context).toMatchObject({ shutdownReason: reason, recall: null, lastRecall: null, nextOptOut: false });
    expect(sessionPhase(shutting)).toBe('shuttingDown');
    // A run pi delivered before the switch still settles.
    const [late] = step(shutting, { type: 'session.retain.queued', at: 9_010, runId: 'run-1', messages: 2, depth: 1 });
    expect(late.context.lastRetain).toMatchObject({ outcome: 'queued', messages: 2 });
    expect(step(late, { type: 'session.shutdown.finished', at: 9_100 })[0].status).toBe('done');
  });

  it('quit (pi also sends it on SIGTERM and SIGHUP) flushes; an unknown shutdown reason is refused', () => {
    const [shutting, actions] = step(active(), { type: 'session.shutdown', at: 9_000, reason: 'quit' });
    expect(actions).toEqual(['flushOnShutdown']);
    expect(shutting.context.shutdownReason).toBe('quit');
    expect(E.isLeft(decode({ type: 'session.shutdown', at: 9_000, reason: 'SIGTERM' }))).toBe(true);
  });

  it('keeps the session name from the start and from renames; a cleared name is null', () => {
    let snapshot = active({ name: 'deploy work' });
    expect(snapshot.context.sessionName).toBe('deploy work');
    [snapshot] = step(snapshot, { type: 'session.renamed', at: 2_000, name: 'release 1.2' });
    expect(snapshot.context.sessionName).toBe('release 1.2');
    // Renaming does not disturb a run being retained.
    [snapshot] = step(snapshot, { type: 'session.run.ended', at: 3_000, runId: 'run-1' });
    [snapshot] = step(snapshot, { type: 'session.renamed', at: 3_100 });
    expect(snapshot.context.sessionName).toBeNull();
    expect(sessionPhase(snapshot)).toBe('retaining');
    expect(E.isLeft(decode({ type: 'session.renamed', at: 1, name: '  ' }))).toBe(true);
  });

  it('rejects malformed events with the field named, before the machine sees them', () => {
    const bad = decode({ type: 'session.recall.requested', at: -1, requestId: '', deadline: 'soon' });
    expect(E.isLeft(bad)).toBe(true);
    if (E.isLeft(bad)) {
      expect(bad.left.message).toContain('field at');
      expect(bad.left.message).toContain('field deadline');
    }
  });

  it('decodes every well-formed event and refuses any event without a known type (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.nat(), (type, at) => {
        const result = decode({ type, at });
        // A journal from before the gate prefix names an event without it: that name is known too.
        const known = sessionEventTypes.some((name) => name === type || name === `session.${type}`);
        if (!known) expect(E.isLeft(result)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.string({ minLength: 1 }).filter((s) => s.trim().length > 0), (at, deadline, requestId) => {
        expect(E.isRight(decode({ type: 'session.recall.requested', at, deadline, requestId }))).toBe(true);
      }),
    );
  });
});

describe('session machine paths (xstate/graph)', () => {
  it('reaches every phase from the initial state with the host events', () => {
    const events = [
      started(),
      { type: 'session.recall.requested', at: 2_000, requestId: 'r1', deadline: 3_000 },
      { type: 'session.recall.succeeded', at: 2_100, requestId: 'r1', items: 1, cached: false, failedBanks: 0 },
      { type: 'session.run.ended', at: 5_000, runId: 'run-1' },
      { type: 'session.retain.queued', at: 5_010, runId: 'run-1', messages: 1, depth: 0 },
      { type: 'session.renamed', at: 6_000, name: 'n' },
      { type: 'session.shutdown', at: 9_000, reason: 'quit' },
      { type: 'session.shutdown', at: 9_000, reason: 'new' },
      { type: 'session.shutdown.finished', at: 9_100 },
    ] as SessionEvent[];
    // States are compared by value and the flags that steer guards: counters and timestamps
    // in context would make the graph infinite.
    const paths = getShortestPaths(sessionMachine, {
      events,
      serializeState: (state) => {
        const c = (state as Snapshot).context;
        return JSON.stringify([(state as Snapshot).value, c.sessionId, c.mode, c.nextOptOut, c.recall?.requestId ?? null, c.retainingRun]);
      },
    });
    const phases = new Set(paths.map((p) => sessionPhase(p.state as Snapshot)));
    expect([...phases].sort()).toEqual(['closed', 'idle', 'recalling', 'retaining', 'shuttingDown', 'starting'].sort());
    const route = (phase: string) => paths.find((p) => sessionPhase(p.state as Snapshot) === phase)?.steps.map((s) => s.event.type);
    // A host that quits before the session started closes at once; a started one flushes first.
    expect(route('closed')).toEqual(['xstate.init', 'session.shutdown']);
    expect(route('shuttingDown')).toEqual(['xstate.init', 'session.started', 'session.shutdown']);
    expect(route('retaining')).toEqual(['xstate.init', 'session.started', 'session.run.ended']);
  });
});
