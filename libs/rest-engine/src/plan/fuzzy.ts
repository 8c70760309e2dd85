/** Levenshtein distance, bounded work: names are identifiers, short. */
function distance(a: string, b: string): number {
  if (a.length > 256 || b.length > 256) return Math.max(a.length, b.length);
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(
        prev[j]! + 1,
        cur[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The closest candidate to `name`, if it is close enough to be a plausible typo (PostgREST
 * suggests names through a fuzzy set; this is the same idea with an edit distance).
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const wanted = name.toLowerCase();
  for (const candidate of candidates) {
    const d = distance(wanted, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best === undefined) return undefined;
  // PostgREST's threshold: similarity 1 - distance / longer length of at least 0.75.
  const similarity = 1 - bestDistance / Math.max(name.length, best.length);
  return similarity >= 0.75 ? best : undefined;
}
