/**
 * "Did you mean" suggestions by edit distance, for unknown flags and keys.
 *
 * @module
 */

/**
 * The largest edit distance still worth suggesting: a third of the word,
 * at least 2, so `--prot` finds `--port` but `--zzz` finds nothing.
 */
function maxDistance(word: string): number {
  return Math.max(2, Math.floor(word.length / 3));
}

/**
 * Returns the edit distance between two strings: insertions, deletions,
 * substitutions and swaps of two neighbours each cost 1 (optimal string
 * alignment), so the typo `--prot` is nearer `--port` than `--root`.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row[j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        rows[i - 1]![j]! + 1,
        row[j - 1]! + 1,
        rows[i - 1]![j - 1]! + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      row[j] = best;
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** Returns the candidate closest to `word`, or `undefined` when none is close. */
export function closest(
  word: string,
  candidates: Iterable<string>,
): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance(word) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Returns `: did you mean "x"?` for the closest candidate, or "". */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const best = closest(word, candidates);
  return best === undefined ? "" : `: did you mean "${best}"?`;
}
