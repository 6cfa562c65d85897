/**
 * Optimal-string-alignment distance (Levenshtein with adjacent transpositions, "recieve" is one
 * edit from "receive"), bounded: past `max` it stops and answers max + 1. Linear in the words'
 * lengths times the bound, so a long word costs no more than a band of its letters.
 */
export const boundedDistance = (a: string, b: string, max: number): number => {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  const n = b.length;
  // Three rows: two back for a transposition, one back, and the row being filled.
  let before = new Array<number>(n + 1).fill(max + 1);
  let previous = Array.from({ length: n + 1 }, (_, j) => j);
  let current = new Array<number>(n + 1).fill(max + 1);
  for (let i = 1; i <= a.length; i += 1) {
    current.fill(max + 1);
    current[0] = i;
    let best = i;
    const from = Math.max(1, i - max);
    const to = Math.min(n, i + max);
    for (let j = from; j <= to; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] ?? max + 1) + 1, (current[j - 1] ?? max + 1) + 1, (previous[j - 1] ?? max + 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] ?? max + 1) + 1);
      current[j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[n] ?? max + 1, max + 1);
};
