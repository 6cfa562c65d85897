/** Setup-gate events: config as loaded, and the outcomes of probing the memory server. */
import * as t from 'io-ts';
import { EpochMs, NonEmptyString } from '../../codecs/codecs.js';
import { eventOf } from '../shared/eventOf.js';

const at = { at: EpochMs };

/**
 * The config as it bears on setup: the master switch, whether the project counts as set up
 * (explicit bank, setupComplete, an existing project file...) and the banks to ensure.
 */
export const SetupConfigured = t.intersection([
  t.type({ type: t.literal('setup.configured'), ...at, enabled: t.boolean, configured: t.boolean, banks: t.array(NonEmptyString) }),
  // `untrusted`: the project file moved memory somewhere the user does not trust (reason says
  // where and how to trust it); memory stays off, nothing is probed.
  t.partial({ reason: t.string, untrusted: t.boolean }),
]);
export const ProbeSucceeded = t.type({
  type: t.literal('probe.succeeded'),
  ...at,
  apiVersion: t.string,
  /** `update_mode: "append"` on retain: the floor for automatic retain. */
  append: t.boolean,
  missingBanks: t.array(NonEmptyString),
});
export const ProbeFailed = t.type({ type: t.literal('probe.failed'), ...at, reason: t.string, retryAt: EpochMs });
export const BanksEnsured = t.type({ type: t.literal('banks.ensured'), ...at });
export const BanksEnsureFailed = t.type({ type: t.literal('banks.ensureFailed'), ...at, reason: t.string, retryAt: EpochMs });
/** The server stopped answering while ready (breaker opened): degrade until it is back. */
export const ServerLost = t.type({ type: t.literal('server.lost'), ...at, reason: t.string, retryAt: EpochMs });
/** Try again now (breaker half-open, a command, or the degraded retry time passed). */
export const ProbeRetry = t.type({ type: t.literal('probe.retry'), ...at });

export const SetupEvent = t.union([SetupConfigured, ProbeSucceeded, ProbeFailed, BanksEnsured, BanksEnsureFailed, ServerLost, ProbeRetry]);
export type SetupEvent = t.TypeOf<typeof SetupEvent>;

/** One constructor per event, in wire shape: effects build events only through these. */
export const setupEvents = {
  configured: eventOf<typeof SetupConfigured>('setup.configured'),
  probeSucceeded: eventOf<typeof ProbeSucceeded>('probe.succeeded'),
  probeFailed: eventOf<typeof ProbeFailed>('probe.failed'),
  banksEnsured: eventOf<typeof BanksEnsured>('banks.ensured'),
  banksEnsureFailed: eventOf<typeof BanksEnsureFailed>('banks.ensureFailed'),
  serverLost: eventOf<typeof ServerLost>('server.lost'),
  probeRetry: eventOf<typeof ProbeRetry>('probe.retry'),
} as const;
/** An event as effects build it (before the gate decodes it). */
export type SetupEventInput = t.OutputOf<typeof SetupEvent>;
