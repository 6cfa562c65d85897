/**
 * One memory item as a Hindsight server's retain endpoint takes it (`MemoryItem`). The queue
 * journals it and the server client sends it, so both read this one codec.
 */
import * as t from 'io-ts';
import { StringMap } from './codecs.js';

export const UpdateMode = t.keyof({ replace: null, append: null });
export type UpdateMode = t.TypeOf<typeof UpdateMode>;

export const ObservationScopes = t.union([
  t.keyof({ per_tag: null, combined: null, all_combinations: null, shared: null }),
  t.array(t.array(t.string)),
]);
export type ObservationScopes = t.TypeOf<typeof ObservationScopes>;

export const Entity = t.intersection([t.type({ text: t.string }), t.partial({ type: t.string })]);
export type Entity = t.TypeOf<typeof Entity>;

export const RetainItem = t.intersection([
  t.type({ content: t.string }),
  t.partial({
    /** ISO date-time, or `unset` to store no date. */
    timestamp: t.string,
    context: t.string,
    metadata: StringMap,
    document_id: t.string,
    entities: t.array(Entity),
    tags: t.array(t.string),
    update_mode: UpdateMode,
    observation_scopes: ObservationScopes,
  }),
]);
export type RetainItem = t.TypeOf<typeof RetainItem>;

/** Metadata keys the service sets on every retained item (provenance); a caller can never override them. */
export const RESERVED_METADATA_KEYS = ['cwd', 'host_session_file', 'source', 'retainSource'] as const;
