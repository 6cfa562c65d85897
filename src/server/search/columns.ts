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

export const num = (list: readonly number[], i: number): number => list[i] ?? outside(i, list.length);

export const item = <T>(list: readonly T[], i: number): T => {
  const value = list[i];
  return value === undefined ? outside(i, list.length) : value;
};
