/**
 * What a runtime reports: its status (the footer line, the gates' states, the problems) from
 * the gates' snapshots, and the view of it that tools and doctor read.
 */
import type { LoadedConfig } from '../../config/load.js';
import type { Scope } from '../../config/scope.js';
import { switchedOff } from '../../config/switches.js';
import type { QueueStatus } from '../../effects/retainDelivery/queue.js';
import { footerText } from '../../effects/session/footer.js';
import type { SessionView } from '../../machines/session/selectors.js';
import type { SetupState } from '../../machines/setup/selectors.js';
import type { RuntimeStatusView } from '../../tools/context.js';

export interface RuntimeStatus {
  readonly enabled: boolean;
  readonly setup: { readonly state: SetupState; readonly detail: string | null };
  readonly session: SessionView;
  readonly queue: QueueStatus | undefined;
  /** The footer line for the current style, or undefined when the footer is off. */
  readonly footer: string | undefined;
  readonly projectBank: string;
  readonly projectTag: string;
  /** Problems that keep memory from working fully (queue could not open, ...), redacted. */
  readonly problems: readonly string[];
  /** Why the last turn could not be made durable or queued (disk full, read-only); cleared when one is. */
  readonly retainFailing?: string;
}

export interface StatusInput {
  readonly loaded: LoadedConfig;
  readonly scope: Scope;
  readonly setup: { readonly state: SetupState; readonly detail: string | null };
  readonly session: SessionView;
  /** Undefined when no queue is open (memory off, or it could not open). */
  readonly queue: QueueStatus | undefined;
  readonly problems: readonly string[];
  readonly retainFailing: string | undefined;
}

export const runtimeStatus = (input: StatusInput): RuntimeStatus => {
  const { config } = input.loaded;
  const { setup, session, queue, retainFailing, scope } = input;
  const off = switchedOff(config, input.loaded.sources, input.loaded.trust.userFile);
  return {
    enabled: config.enabled,
    setup,
    session,
    queue,
    footer: footerText(config, {
      setup: setup.state,
      session,
      queue,
      ...(retainFailing === undefined ? {} : { retainFailing }),
      ...(off.word === undefined ? {} : { switchedOff: off.word }),
      ...(input.loaded.errors.length === 0 ? {} : { configUnreadable: true }),
      projectId: scope.identity.id,
      bankId: scope.projectBank.bankId,
    }),
    projectBank: scope.projectBank.bankId,
    projectTag: scope.identity.tag,
    problems: [...input.problems],
    ...(retainFailing === undefined ? {} : { retainFailing }),
  };
};

/**
 * A queued retain's outcome as it stands now: the session gate records "queued" when the run
 * entered the queue and never hears of its delivery, so the queue says whether it left since.
 * An empty queue that delivered after the run (or holds no dead letter) sent it.
 */
const retainOutcomeNow = (retain: { readonly at: number; readonly outcome: string }, queue: QueueStatus | undefined): string => {
  if (retain.outcome !== 'queued' || queue === undefined || queue.depth > 0) return retain.outcome;
  const deliveredSince = queue.lastDelivery !== undefined && Date.parse(queue.lastDelivery.at) >= retain.at;
  return deliveredSince || queue.deadLetters === 0 ? 'delivered' : 'no longer queued (delivered, or refused: /memory dead-letters lists refusals)';
};

/** The status as memory_status and doctor read it. */
export const toolStatusView = (s: RuntimeStatus, importStatus: RuntimeStatusView['import']): RuntimeStatusView => {
  const { lastRecall, lastRetain } = s.session.context;
  return {
    setup: { state: s.setup.state, ...(s.setup.detail === null ? {} : { detail: s.setup.detail }) },
    session: {
      state: s.session.phase,
      ...(s.session.activity === undefined ? {} : { activity: s.session.activity }),
      nextRetainSkipped: s.session.nextOptOut,
      ...(lastRecall === null ? {} : { lastRecall: { at: lastRecall.at, outcome: lastRecall.outcome, count: lastRecall.items } }),
      ...(lastRetain === null ? {} : { lastRetain: { at: lastRetain.at, outcome: retainOutcomeNow(lastRetain, s.queue), count: lastRetain.messages } }),
    },
    ...(importStatus === undefined ? {} : { import: importStatus }),
    ...(s.problems.length === 0 ? {} : { problems: s.problems }),
  };
};

/**
 * Listeners of a runtime's status. One dispatch fires several transitions; the footer needs
 * only the last state, so status is computed once per burst, after the hook that caused it has
 * returned.
 */
export const statusListeners = (status: () => RuntimeStatus, closed: () => boolean) => {
  const listeners = new Set<(s: RuntimeStatus) => void>();
  let pending = false;
  const emitNow = (): void => {
    pending = false;
    if (closed() || listeners.size === 0) return;
    const now = status();
    for (const listener of listeners) listener(now);
  };
  return {
    emit: (): void => {
      if (listeners.size === 0 || pending) return;
      pending = true;
      setImmediate(emitNow);
    },
    subscribe: (listener: (s: RuntimeStatus) => void): (() => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
};
