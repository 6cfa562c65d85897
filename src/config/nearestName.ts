/**
 * The known name a mistyped one most likely meant ("retian" for "retain"): within two edits
 * and a third of its length, else none. A config key nobody claims was only "unknown".
 */
const distance = (a: string, b: string): number => {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
};

export const nearestName = (name: string, known: Iterable<string>): string | undefined => {
  const limit = Math.min(2, Math.floor(name.length / 3));
  let best: { name: string; d: number } | undefined;
  for (const candidate of known) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d <= limit && (best === undefined || d < best.d)) best = { name: candidate, d };
  }
  return best?.name;
};
