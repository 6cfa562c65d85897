/** Setup-gate events: config as loaded, and the outcomes of probing the memory server. */
import * as t from 'io-ts';
import { EpochMs, NonEmptyString } from '../../codecs/codecs.js';
import { defineGateEvents, fields } from '../shared/gateEvents.js';

/** Which path a person took into guided setup. */
export const GuideVia = t.union([t.literal('first-run'), t.literal('command'), t.literal('hub')]);
export const FirstRunChoice = t.union([t.literal('setup'), t.literal('later'), t.literal('never')]);
export type FirstRunChoice = t.TypeOf<typeof FirstRunChoice>;

const events = defineGateEvents(
  'setup',
  {
    /**
     * The config as it bears on setup: the master switch, whether the project counts as set up
     * (explicit bank, setupComplete, an existing project file...) and the banks to ensure.
     * `untrusted`: the project file moved memory somewhere the user does not trust (reason says
     * where and how to trust it); memory stays off, nothing is probed.
     */
    configured: fields({ enabled: t.boolean, configured: t.boolean, banks: t.array(NonEmptyString) }, { reason: t.string, untrusted: t.boolean }),
    /** `append`: `update_mode: "append"` on retain, the floor for automatic retain. */
    'probe.succeeded': fields({ apiVersion: t.string, append: t.boolean, missingBanks: t.array(NonEmptyString) }),
    'probe.failed': fields({ reason: t.string, retryAt: EpochMs }),
    'banks.ensured': fields(),
    'banks.ensureFailed': fields({ reason: t.string, retryAt: EpochMs }),
    /** The server stopped answering while ready (breaker opened): degrade until it is back. */
    'server.lost': fields({ reason: t.string, retryAt: EpochMs }),
    /** Try again now (breaker half-open, a command, or the degraded retry time passed). */
    'probe.retry': fields(),

    // --- What a person answered (first run, guided setup, hub, settings) ---------------------
    // Each answer is an event, so a setup replays in the visualiser. An answer's text never
    // holds a secret: a raw key is recorded as `(raw key entered)`, never its value.

    /** The first-run question in a repository, and its answer (`later` also when dismissed). */
    'firstRun.answered': fields({ choice: FirstRunChoice }),
    /** No UI to ask (print, json): the person was told what to run instead. */
    'firstRun.told': fields(),
    'guide.started': fields({ via: GuideVia }),
    'guide.answered': fields({ step: NonEmptyString, answer: t.string }),
    'guide.skipped': fields({ step: NonEmptyString }),
    /** Dismissed (Esc) or refused at the preview: nothing was written. */
    'guide.cancelled': fields({ step: NonEmptyString }),
    /** The person confirmed a diff and it was written: which files, which fields, from where. */
    'config.written': fields({
      via: t.union([t.literal('setup'), t.literal('settings'), t.literal('hub'), t.literal('first-run')]),
      files: t.array(t.string),
      fields: t.array(t.string),
    }),
    'config.writeFailed': fields({ reason: t.string }),
  },
  // Setup journals are trace-grade, but `viz --journal` replays ones written before the prefix.
  { readsUnprefixed: true },
);

export const SetupEvent = events.codec;
export type SetupEvent = t.TypeOf<typeof SetupEvent>;
/** Every setup event type. */
export const setupEventTypes = events.types;

/** One constructor per event, in wire shape: effects build events only through these. */
export const setupEvents = events.make;
/** An event as effects build it (before the gate decodes it). */
export type SetupEventInput = t.OutputOf<typeof SetupEvent>;
