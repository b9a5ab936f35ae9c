/**
 * No-context graph signal of hybrid search (with no context tools, the graph side is a global signal; the
 * exact mix is this project's documented choice, algorithms/README.md "Graph"):
 *
 *   global(u) = min(1, 0.5 · pagerank(u) + 0.5 · ln(1 + successes(u)) / ln(1 + maxSuccesses))
 *
 * `pagerank` is the analytics' max-normalised PageRank (∈ [0,1]); the usage term is 0 when no tool has a
 * success (maxSuccesses = 0). `maxSuccesses` defaults to max(successes); the leave-one-out fit passes the
 * full project's maximum while scoring with the case's own successes removed.
 *
 * Invariants: global(u) ∈ [0,1]; non-decreasing in successes(u) and in pagerank(u); a tool with a
 * successful history never has a lower signal than one with the same PageRank and none.
 * Pure: no I/O, no clock.
 */
export function globalSignal(
  pagerank: ArrayLike<number>,
  successes: ArrayLike<number>,
  n: number,
  maxSuccesses?: number,
): Float64Array {
  let maxSucc = maxSuccesses ?? 0;
  if (maxSuccesses === undefined) for (let i = 0; i < n; i++) if (successes[i]! > maxSucc) maxSucc = successes[i]!;
  const values = new Float64Array(n);
  const denom = Math.log1p(maxSucc);
  for (let i = 0; i < n; i++) {
    const usage = denom > 0 ? Math.log1p(successes[i]!) / denom : 0;
    values[i] = Math.min(1, 0.5 * (pagerank[i] ?? 0) + 0.5 * usage);
  }
  return values;
}
