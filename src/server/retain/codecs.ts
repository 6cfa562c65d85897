/** Wire codecs of `POST {b}/memories` (reference 1.5), decoded at the HTTP boundary and again when an async operation runs. */
import * as t from 'io-ts';
import { nullable } from '../../codecs/codecs.js';
import { registerIdentityCodec } from '../../codecs/identityCodec.js';
import { StringMap } from '../../codecs/codecs.js';
import { ObservationScopes, UpdateMode } from '../../wire/hindsight.js';


const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

// The custom types below are registered as decoding a valid value to itself (`is` accepts exactly
// what `validate` returns unchanged), so a well-formed request is checked by `is` alone
// (`decodeOr422`): a retain's full decode allocated 8 KB per item, most of it io-ts trying
// every absent optional field (`t.partial` validates undefined too) against both branches of
// its `nullable` union.

/** A non-blank string ("content cannot be empty"). */
const Content = registerIdentityCodec(new t.Type<string, string, unknown>(
  'Content',
  (u): u is string => typeof u === 'string' && u.trim().length > 0,
  (u, c) => (typeof u !== 'string' ? t.failure(u, c) : u.trim().length === 0 ? t.failure(u, c, 'content cannot be empty') : t.success(u)),
  t.identity,
));

const isIsoDateTime = (u: string): boolean => ISO_DATE_TIME.test(u) && !Number.isNaN(Date.parse(u));

/** ISO date-time, or "unset" in any case (store no date). `is`: only what decodes to itself ("unset" in lower case). */
export const RetainTimestamp = registerIdentityCodec(new t.Type<string, string, unknown>(
  'RetainTimestamp',
  (u): u is string => typeof u === 'string' && (u === 'unset' || isIsoDateTime(u)),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c);
    if (u.toLowerCase() === 'unset') return t.success('unset');
    return isIsoDateTime(u) ? t.success(u) : t.failure(u, c, `Invalid timestamp '${u.slice(0, 40)}': expected an ISO 8601 datetime or 'unset'`);
  },
  t.identity,
));

/** A list of strings; a JSON-encoded list or a bare string is coerced, as upstream does. */
const isStrings = (list: readonly unknown[]): list is string[] => list.every((x) => typeof x === 'string');

export const TagList = registerIdentityCodec(new t.Type<string[], string[], unknown>(
  'TagList',
  (u): u is string[] => Array.isArray(u) && u.every((x) => typeof x === 'string'),
  (u, c) => {
    if (Array.isArray(u)) return isStrings(u) ? t.success(u) : t.failure(u, c, 'tags must be strings');
    if (typeof u === 'string') {
      try {
        const parsed: unknown = JSON.parse(u);
        if (Array.isArray(parsed) && isStrings(parsed)) return t.success(parsed);
      } catch {
        // a bare string is one tag
      }
      return t.success([u]);
    }
    return t.failure(u, c);
  },
  t.identity,
));

const EntityInput = t.intersection([t.type({ text: t.string }), t.partial({ type: nullable(t.string) })]);

// The item's enumerations are the wire schema's own; the server adds its stricter checks around them.
export { ObservationScopes, UpdateMode };

export const MemoryItem = t.intersection([
  t.type({ content: Content }),
  t.partial({
    timestamp: nullable(RetainTimestamp),
    context: nullable(t.string),
    metadata: nullable(StringMap),
    document_id: nullable(t.string),
    entities: nullable(t.array(EntityInput)),
    tags: nullable(TagList),
    observation_scopes: nullable(ObservationScopes),
    strategy: nullable(t.string),
    update_mode: nullable(UpdateMode),
  }),
]);
export type MemoryItem = t.TypeOf<typeof MemoryItem>;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

const OperationIdField = registerIdentityCodec(new t.Type<string, string, unknown>(
  'OperationId',
  (u): u is string => typeof u === 'string' && UUID.test(u),
  (u, c) => (typeof u === 'string' && UUID.test(u) ? t.success(u) : t.failure(u, c, 'operation_id must be a valid UUID')),
  t.identity,
));

export const RetainRequest = t.intersection([
  t.type({ items: t.array(MemoryItem) }),
  t.partial({
    async: t.boolean,
    document_tags: nullable(TagList),
    operation_id: nullable(OperationIdField),
  }),
]);
export type RetainRequest = t.TypeOf<typeof RetainRequest>;

/** The payload of an async `retain` operation: the request items with document tags folded in. */
export const RetainPayload = t.type({ items: t.array(MemoryItem), document_tags: t.array(t.string) });
export type RetainPayload = t.TypeOf<typeof RetainPayload>;
