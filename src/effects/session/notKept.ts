/**
 * The mark a skipped run leaves in the host's session file (pi: a `custom` entry of type
 * `agent-memory`, never sent to the model): the person chose not to keep that run
 * (`/memory:next-opt-out`) or took it with memory off. An import drops the marked run, so it
 * cannot bring back what the live session deliberately did not keep.
 */
import * as t from 'io-ts';

export const NOT_KEPT_CUSTOM_TYPE = 'agent-memory';

export const NotKeptReason = t.keyof({ 'next-opt-out': null, off: null });
export type NotKeptReason = t.TypeOf<typeof NotKeptReason>;

/** What the run was, as the host wrote it: `fromEntryId` is the run's first entry, when known. */
export const NotKept = t.intersection([t.type({ reason: NotKeptReason }), t.partial({ fromEntryId: t.string })]);
export type NotKept = t.TypeOf<typeof NotKept>;

/** The data of the custom entry. */
export const NotKeptData = t.type({ notKept: NotKept });
export type NotKeptData = t.TypeOf<typeof NotKeptData>;

/** The reasons a skip is marked; other skips (read-only, setup declined) leave the run importable. */
export const notKeptReasonOf = (reason: string): NotKeptReason | undefined => (NotKeptReason.is(reason) ? reason : undefined);
