/** Read-only views over a session snapshot, for the footer, status and tools. */
import type { SnapshotFrom } from 'xstate';
import type { SessionContext } from './context.js';
import { recallAllowed, retainAllowed } from './context.js';
import type { SessionMachine } from './machine.js';

export type SessionPhase = 'starting' | 'idle' | 'recalling' | 'retaining' | 'shuttingDown' | 'closed';

export interface SessionView {
  readonly phase: SessionPhase;
  readonly mode: SessionContext['mode'];
  readonly recallAllowed: boolean;
  readonly retainAllowed: boolean;
  readonly nextOptOut: boolean;
  /** One short word of what happened last (`recalled:3`, `queued`, `recall timed out`). */
  readonly activity: string | undefined;
  readonly context: SessionContext;
}

export const sessionPhase = (snapshot: SnapshotFrom<SessionMachine>): SessionPhase => {
  if (snapshot.matches('starting')) return 'starting';
  if (snapshot.matches('shuttingDown')) return 'shuttingDown';
  if (snapshot.matches('closed')) return 'closed';
  if (snapshot.matches({ active: { recall: 'recalling' } })) return 'recalling';
  if (snapshot.matches({ active: { retain: 'retaining' } })) return 'retaining';
  return 'idle';
};

const lastActivity = (c: SessionContext): string | undefined => {
  const recall = c.lastRecall;
  const retain = c.lastRetain;
  if (recall === null && retain === null) return undefined;
  if (retain !== null && (recall === null || retain.at >= recall.at)) {
    switch (retain.outcome) {
      case 'queued':
        return `retained ${retain.messages}`;
      case 'nothing':
        return 'nothing new';
      case 'failed':
        return 'retain failed';
      case 'optedOut':
        return 'retain skipped';
      case 'skipped':
        return undefined;
      case 'held':
        return 'held until setup';
    }
  }
  if (recall === null) return undefined;
  switch (recall.outcome) {
    case 'recalled':
      return `recalled ${recall.items}`;
    case 'empty':
      return 'no memories';
    case 'failed':
      return 'recall failed';
    case 'timedOut':
      return 'recall timed out';
    case 'aborted':
      return 'recall cancelled';
    case 'skipped':
      return undefined;
  }
};

export const sessionView = (snapshot: SnapshotFrom<SessionMachine>): SessionView => {
  const c = snapshot.context;
  return {
    phase: sessionPhase(snapshot),
    mode: c.mode,
    recallAllowed: recallAllowed(c),
    retainAllowed: retainAllowed(c),
    nextOptOut: c.nextOptOut,
    activity: lastActivity(c),
    context: c,
  };
};
