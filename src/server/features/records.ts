/**
 * Typed access to a bank's feature records (`kind -> id -> JSON`). Records come back from
 * disk, so every read decodes them; one that does not decode is reported, not trusted.
 */
import type * as t from 'io-ts';
import { jsonCopy } from '../../codecs/codecs.js';
import { decodeWith } from '../../codecs/decode.js';
import type { ServerContext } from '../context.js';
import type { Mutation } from '../store/model.js';

/** Every record of `kind` in the bank, decoded; a corrupt one throws (500 naming it). */
export const readRecords = <A>(server: ServerContext, bankId: string, kind: string, codec: t.Decoder<unknown, A>): A[] => {
  const records = server.store.bank(bankId)?.records.get(kind);
  if (records === undefined) return [];
  return [...records].map(([id, value]) => decodeRecord(kind, id, codec, value));
};

/** One record of `kind`, decoded, or undefined when absent. */
export const readRecord = <A>(server: ServerContext, bankId: string, kind: string, id: string, codec: t.Decoder<unknown, A>): A | undefined => {
  const value = server.store.bank(bankId)?.records.get(kind)?.get(id);
  return value === undefined ? undefined : decodeRecord(kind, id, codec, value);
};

const decodeRecord = <A>(kind: string, id: string, codec: t.Decoder<unknown, A>, value: unknown): A => {
  const decoded = decodeWith(codec as t.Type<A, unknown, unknown>, `stored ${kind} ${id}`)(value);
  if (decoded._tag === 'Left') throw new Error(`${decoded.left.message}; the data dir may be damaged`);
  return decoded.right;
};

/** The `record.put` mutation for a value of a codec whose output is JSON. */
export const putRecord = (bankId: string, kind: string, id: string, value: unknown): Mutation => ({
  type: 'record.put',
  bank_id: bankId,
  kind,
  id,
  // Values are built from decoded JSON; undefined members vanish as they would on the wire.
  value: jsonCopy(value),
});

export const deleteRecord = (bankId: string, kind: string, id: string): Mutation => ({ type: 'record.delete', bank_id: bankId, kind, id });
