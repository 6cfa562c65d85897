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
  /**
   * A config file is not valid JSON (or cannot be read). Setup never writes over a file it
   * could not read, so asking would lead a person through every question to "not written":
   * the start-up notice names the file, line and cause instead.
   */
  readonly configUnreadable?: boolean;
}

/** Ask once per repository when it is not set up; without a UI say what to run, never block. */
export const firstRunAction = (facts: FirstRunFacts): FirstRunAction => {
  if (facts.state !== 'unconfigured' || facts.declined || facts.asked || facts.configUnreadable === true) return 'quiet';
  return facts.interactive ? 'ask' : 'tell';
};

/** The guided setup's steps, in order; each can be skipped or cancelled. */
export type GuideStep = 'server' | 'key' | 'trust' | 'profile' | 'scope' | 'bank' | 'starters' | 'review';
