/**
 * Checked reads of the search index's columns and lists. Every index a caller passes is in
 * range by construction (a document number below the slot count, a term id below the term
 * count, an offset taken from a CSR start array), so a read outside is a bug: it throws rather
 * than letting `undefined` turn a score into NaN. One reader per array type keeps each read
 * site monomorphic where recall's loops inline it (bench/server-recall.bench.ts).
 */

const outside = (i: number, length: number): never => {
  throw new RangeError(`search index: position ${i} is outside a column of ${length}`);
};

export const i32 = (column: Int32Array<ArrayBufferLike>, i: number): number => column[i] ?? outside(i, column.length);

export const f64 = (column: Float64Array<ArrayBufferLike>, i: number): number => column[i] ?? outside(i, column.length);

export const u8 = (column: Uint8Array<ArrayBufferLike>, i: number): number => column[i] ?? outside(i, column.length);

export const u16 = (column: Uint16Array<ArrayBufferLike>, i: number): number => column[i] ?? outside(i, column.length);

/**
 * A sealed column of counts or term ids (never negative), as narrow as its largest value allows:
 * term frequencies fit a byte, term ids two, where they took four (a third of the index's bytes).
 */
export type Counts = Uint8Array<ArrayBufferLike> | Uint16Array<ArrayBufferLike> | Int32Array<ArrayBufferLike>;

export const count = (column: Counts, i: number): number => column[i] ?? outside(i, column.length);

/** A copy of `values` (integers from 0) in the narrowest of Uint8Array, Uint16Array and Int32Array that holds them all. */
export const narrowed = (values: Int32Array<ArrayBufferLike>): Counts => {
  let max = 0;
  for (let i = 0; i < values.length; i += 1) max = Math.max(max, values[i] ?? 0);
  return max <= 0xff ? Uint8Array.from(values) : max <= 0xffff ? Uint16Array.from(values) : values.slice();
};

export const num = (list: readonly number[], i: number): number => list[i] ?? outside(i, list.length);

export const item = <T>(list: readonly T[], i: number): T => {
  const value = list[i];
  return value === undefined ? outside(i, list.length) : value;
};
