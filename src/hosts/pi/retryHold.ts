/**
 * A run pi will retry is retained once, with its retry, not twice. pi 0.75.4+ marks such a run
 * (`willRetry` on the agent_end it emits to SDK listeners; read here when an extension event
 * carries it too). Otherwise a run whose last assistant message failed is held: the retry's
 * agent_end, pi 0.80.5+'s `agent_settled` (nothing more will follow), or session_shutdown
 * releases it. The failed attempt's assistant message is dropped once a later one exists:
 * the retry replaced it in pi's own context as well.
 */
import type { HostMessage } from '../../effects/session/messages.js';

export interface RetryHold {
  /** The messages to retain now, or undefined while pi may still retry this run. */
  ended(messages: readonly HostMessage[], willRetry: boolean | undefined): HostMessage[] | undefined;
  /** Whatever is held (agent_settled, shutdown): nothing follows it. */
  release(): HostMessage[];
}

const failed = (m: HostMessage): boolean => m.role === 'assistant' && m.stopReason === 'error';

const lastAssistant = (messages: readonly HostMessage[]): HostMessage | undefined => [...messages].reverse().find((m) => m.role === 'assistant');

/** Drops failed assistant attempts that a later assistant message superseded. */
export const withoutRetriedFailures = (messages: readonly HostMessage[]): HostMessage[] =>
  messages.filter((m, i) => !(failed(m) && messages.slice(i + 1).some((later) => later.role === 'assistant')));

export const createRetryHold = (): RetryHold => {
  let held: HostMessage[] = [];
  return {
    ended: (messages, willRetry) => {
      const run = [...held, ...messages];
      const last = lastAssistant(messages);
      const mayRetry = willRetry ?? (last !== undefined && failed(last));
      if (mayRetry) {
        held = run;
        return undefined;
      }
      held = [];
      return withoutRetriedFailures(run);
    },
    release: () => {
      const run = withoutRetriedFailures(held);
      held = [];
      return run;
    },
  };
};
