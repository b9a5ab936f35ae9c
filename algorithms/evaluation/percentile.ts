/**
 * Nearest-rank percentiles: for N sorted values x_(1) ≤ … ≤ x_(N) and 0 < p ≤ 100,
 *   P_p = x_(⌈p/100 · N⌉)     (p = 0 gives the minimum x_(1)).
 * Always an observed value, no interpolation (NIST/Wikipedia "nearest-rank method"); so p50 of an even
 * count is the lower middle value. Empty input → null. Used for the p50/p95/p99 latencies of benches.
 */

import { EvaluationError } from "./errors.ts";

function check(values: readonly number[], p: number): void {
  if (!(p >= 0 && p <= 100)) throw new EvaluationError("percentile", "bad-p", `p must be in [0, 100], got ${p}`);
  for (const v of values)
    if (Number.isNaN(v)) throw new EvaluationError("percentile", "bad-value", "values contain NaN");
}

function atRank(sorted: readonly number[], p: number): number {
  // p·N first: (p / 100)·N can land just above an integer (0.07 · 100 = 7.000000000000001).
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100));
  return sorted[rank - 1]!;
}

export function percentile(values: readonly number[], p: number): number | null {
  check(values, p);
  if (values.length === 0) return null;
  return atRank(
    values.slice().sort((a, b) => a - b),
    p,
  );
}

export interface PercentileSummary {
  count: number;
  min: number | null;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

/** count, min, p50, p95, p99, max and mean of the values (nulls when empty). */
export function summarizePercentiles(values: readonly number[]): PercentileSummary {
  check(values, 50);
  if (values.length === 0) return { count: 0, min: null, p50: null, p95: null, p99: null, max: null, mean: null };
  const sorted = values.slice().sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
  return {
    count: sorted.length,
    min: sorted[0]!,
    p50: atRank(sorted, 50),
    p95: atRank(sorted, 95),
    p99: atRank(sorted, 99),
    max: sorted[sorted.length - 1]!,
    mean,
  };
}
