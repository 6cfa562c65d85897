/**
 * Which codecs decode a valid value to that same value. For those, `codec.is(u)` says whether
 * decoding would succeed at a fraction of the cost (no context path, no Either per field), and
 * the value decoding would return is `u` itself; `decodeWith` takes that path first and decodes
 * in full only to explain a failure. A recall answer of eight memories decodes in 1.7 µs this
 * way against 14 µs.
 *
 * Only io-ts's own combinators qualify, whose `is` and `validate` accept the same values, plus
 * custom types registered here by their module. Anything else may transform (a custom type
 * that trims or defaults, `exact` which drops keys, `readonly` which freezes) and always takes
 * the full decode.
 */
import * as t from 'io-ts';

const isLeaf = (codec: t.Mixed): boolean =>
  codec instanceof t.StringType ||
  codec instanceof t.NumberType ||
  codec instanceof t.BooleanType ||
  codec instanceof t.NullType ||
  codec instanceof t.UndefinedType ||
  codec instanceof t.UnknownType ||
  codec instanceof t.AnyArrayType ||
  codec instanceof t.AnyDictionaryType ||
  codec instanceof t.LiteralType ||
  codec instanceof t.KeyofType;

const registered = new WeakSet<t.Mixed>();
const known = new WeakMap<t.Mixed, boolean>();

/** For a custom codec whose `validate` returns its input whenever `is` accepts it. */
export const registerIdentityCodec = <C extends t.Mixed>(codec: C): C => {
  registered.add(codec);
  return codec;
};

// Combinators that hold other codecs, and where they keep them.
const children = (codec: t.Mixed): readonly t.Mixed[] | undefined => {
  if (codec instanceof t.InterfaceType || codec instanceof t.PartialType) return Object.values<t.Mixed>(codec.props);
  if (codec instanceof t.IntersectionType || codec instanceof t.UnionType) return codec.types;
  if (codec instanceof t.ArrayType || codec instanceof t.RefinementType || codec instanceof t.RecursiveType) return [codec.type];
  if (codec instanceof t.DictionaryType) return [codec.domain, codec.codomain];
  return undefined;
};

/** True when every valid input decodes to itself (see above); memoised per codec. */
export const decodesToItself = (codec: t.Mixed): boolean => {
  if (registered.has(codec)) return true;
  const cached = known.get(codec);
  if (cached !== undefined) return cached;
  if (isLeaf(codec)) {
    known.set(codec, true);
    return true;
  }
  // A recursive codec refers to itself: assume yes while its members are looked at.
  known.set(codec, true);
  const members = children(codec);
  const verdict = members !== undefined && members.every(decodesToItself);
  known.set(codec, verdict);
  return verdict;
};
