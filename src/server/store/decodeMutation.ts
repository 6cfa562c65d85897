/** Decodes a log or snapshot line into a `Mutation`, naming the field that is wrong. */
import type * as t from 'io-ts';
import * as E from 'fp-ts/lib/Either.js';
import { decodeWith } from '../../codecs/decode.js';
import { Mutation } from './model.js';

// Decoding against the one member named by `type` is much faster than trying the whole union.
const members = new Map<string, t.Mixed>(
  Mutation.types.map((member) => [String((member.props.type as t.LiteralC<string>).value), member]),
);

export const decodeMutation = (value: unknown, source: string): E.Either<string, Mutation> => {
  const type = typeof value === 'object' && value !== null && 'type' in value ? value.type : undefined;
  const codec = typeof type === 'string' ? members.get(type) : undefined;
  if (codec === undefined) return E.left(`${source}: field type: expected one of ${[...members.keys()].join(', ')}`);
  // The type guard checks exactly what decoding checks but allocates nothing (io-ts
  // intersections merge objects when decoding); decode only to name what is wrong.
  if (codec.is(value)) return E.right(value as Mutation);
  return E.bimap(
    (e: { message: string }) => e.message,
    (m) => m as Mutation,
  )(decodeWith(codec, source)(value));
};
