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


// --- What a person answered (first run, guided setup, hub, settings) -----------------------
// Each answer is an event, so a setup replays in the visualiser. An answer's text never holds
// a secret: a raw key is recorded as `(raw key entered)`, never its value.

export const FirstRunChoice = t.union([t.literal('setup'), t.literal('later'), t.literal('never')]);
export type FirstRunChoice = t.TypeOf<typeof FirstRunChoice>;
/** The first-run question in a repository, and its answer (`later` also when dismissed). */
export const FirstRunAnswered = t.type({ type: t.literal('firstRun.answered'), ...at, choice: FirstRunChoice });
/** No UI to ask (print, json): the person was told what to run instead. */
export const FirstRunTold = t.type({ type: t.literal('firstRun.told'), ...at });
export const GuideVia = t.union([t.literal('first-run'), t.literal('command'), t.literal('hub')]);
export const GuideStarted = t.type({ type: t.literal('guide.started'), ...at, via: GuideVia });
export const GuideAnswered = t.type({ type: t.literal('guide.answered'), ...at, step: NonEmptyString, answer: t.string });
export const GuideSkipped = t.type({ type: t.literal('guide.skipped'), ...at, step: NonEmptyString });
/** Dismissed (Esc) or refused at the preview: nothing was written. */
export const GuideCancelled = t.type({ type: t.literal('guide.cancelled'), ...at, step: NonEmptyString });
/** The person confirmed a diff and it was written: which files, which fields, from where. */
export const ConfigWritten = t.type({
  type: t.literal('config.written'),
  ...at,
  via: t.union([t.literal('setup'), t.literal('settings'), t.literal('hub'), t.literal('first-run')]),
  files: t.array(t.string),
  fields: t.array(t.string),
});
export const ConfigWriteFailed = t.type({ type: t.literal('config.writeFailed'), ...at, reason: t.string });

export const SetupEvent = t.union([
  SetupConfigured,
  ProbeSucceeded,
  ProbeFailed,
  BanksEnsured,
  BanksEnsureFailed,
  ServerLost,
  ProbeRetry,
  FirstRunAnswered,
  FirstRunTold,
  GuideStarted,
  GuideAnswered,
  GuideSkipped,
  GuideCancelled,
  ConfigWritten,
  ConfigWriteFailed,
]);
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
  firstRunAnswered: eventOf<typeof FirstRunAnswered>('firstRun.answered'),
  firstRunTold: eventOf<typeof FirstRunTold>('firstRun.told'),
  guideStarted: eventOf<typeof GuideStarted>('guide.started'),
  guideAnswered: eventOf<typeof GuideAnswered>('guide.answered'),
  guideSkipped: eventOf<typeof GuideSkipped>('guide.skipped'),
  guideCancelled: eventOf<typeof GuideCancelled>('guide.cancelled'),
  configWritten: eventOf<typeof ConfigWritten>('config.written'),
  configWriteFailed: eventOf<typeof ConfigWriteFailed>('config.writeFailed'),
} as const;
/** An event as effects build it (before the gate decodes it). */
export type SetupEventInput = t.OutputOf<typeof SetupEvent>;
