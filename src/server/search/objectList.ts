/**
 * An empty array that V8 holds as an array of objects from the start. A `[]` literal, or `.map`
 * of an empty array, is an array of small integers until an object is put in it, and V8 gives
 * the two kinds different maps: code optimised while the ranking's lists (expansion terms, hits)
 * were non-empty was thrown away at the next empty one ("wrong map" at its `.length`), and `rank`
 * then ran unoptimised for 30-70 recalls, three times in the bench's 300 timed recalls of a
 * young server (docs/server.md, eighteenth session). One kind whether empty or not: no such
 * deoptimisation.
 *
 * `seed` is put in and taken out again: any object does; a caller may pass one whose fields hold
 * the kinds of values its list's objects will (V8 lays a field out by the values it has seen).
 */
const SEED: object = Object.freeze({});

// Overloads give each caller its element type without a cast: the list is empty when returned.
export function objectList<T extends object>(): T[];
export function objectList<T extends object>(seed: T): T[];
export function objectList(seed: object = SEED): object[] {
  // An array literal holding an object is of the objects' kind; taking the object out keeps it.
  const list = [seed];
  list.pop();
  return list;
}
