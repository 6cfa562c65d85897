/**
 * Optimal-string-alignment distance (Levenshtein with adjacent transpositions, "recieve" is one
 * edit from "receive"), bounded: past `max` it stops and answers max + 1. Linear in the words'
 * lengths times the bound, and it allocates nothing: the typo search calls it for hundreds of
 * words per query.
 */
let rows = new Int32Array(0);

export const boundedDistance = (a: string, b: string, max: number): number => {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  const n = b.length;
  const width = n + 1;
  if (rows.length < 3 * width) rows = new Int32Array(3 * width * 2);
  const far = max + 1;
  // Three rows in one buffer: two back (for a transposition), one back, and the one being filled.
  let before = 0;
  let previous = width;
  let current = 2 * width;
  for (let j = 0; j <= n; j += 1) {
    rows[before + j] = far;
    rows[previous + j] = j;
  }
  for (let i = 1; i <= a.length; i += 1) {
    const ai = a.charCodeAt(i - 1);
    const from = Math.max(1, i - max);
    const to = Math.min(n, i + max);
    // Cells outside the band are out of reach.
    rows[current] = i;
    if (from > 1) rows[current + from - 1] = far;
    if (to < n) rows[current + to + 1] = far;
    let best = from > 1 ? far : i;
    for (let j = from; j <= to; j += 1) {
      const bj = b.charCodeAt(j - 1);
      let d = Math.min((rows[previous + j] ?? far) + 1, (rows[current + j - 1] ?? far) + 1, (rows[previous + j - 1] ?? far) + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) d = Math.min(d, (rows[before + j - 2] ?? far) + 1);
      rows[current + j] = d;
      if (d < best) best = d;
    }
    if (best > max) return far;
    const spare = before;
    before = previous;
    previous = current;
    current = spare;
  }
  return Math.min(rows[previous + n] ?? far, far);
};
