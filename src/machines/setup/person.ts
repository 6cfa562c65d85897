/**
 * What the setup gate decides about a person: whether a repository's first run asks, tells
 * or stays quiet, and the guided setup's steps in the order they are asked.
 */
import type { SetupState } from './selectors.js';

export type FirstRunAction = 'ask' | 'tell' | 'quiet';

export interface FirstRunFacts {
  readonly state: SetupState;
  /** A UI that can ask (the TUI, an RPC client); print and json modes cannot. */
  readonly interactive: boolean;
  /** The person answered "never in this repository" (remembered in the user file by project id). */
  readonly declined: boolean;
  /** Already asked or told in this process (pi's RPC mode starts a session twice). */
  readonly asked: boolean;
}

/** Ask once per repository when it is not set up; without a UI say what to run, never block. */
export const firstRunAction = (facts: FirstRunFacts): FirstRunAction => {
  if (facts.state !== 'unconfigured' || facts.declined || facts.asked) return 'quiet';
  return facts.interactive ? 'ask' : 'tell';
};

/** The guided setup's steps, in order; each can be skipped or cancelled. */
export type GuideStep = 'server' | 'key' | 'trust' | 'profile' | 'scope' | 'bank' | 'starters' | 'review';
