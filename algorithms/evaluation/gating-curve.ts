/**
 * Precision / coverage curve of a confidence gate: given (score, correct) pairs, a threshold τ keeps
 * the answers with score ≥ τ.
 *   coverage(τ)  = |{score ≥ τ}| / N
 *   precision(τ) = |{score ≥ τ, correct}| / |{score ≥ τ}|   (null when nothing is kept)
 * Default thresholds: every distinct score, descending, so coverage grows point by point (the
 * risk–coverage curve of selective prediction, Geifman & El-Yaniv, NeurIPS 2017).
 */

import { EvaluationError } from "./errors.ts";

export interface ScoredOutcome {
  score: number;
  correct: boolean;
}

export interface GatingPoint {
  threshold: number;
  kept: number;
  correctKept: number;
  coverage: number;
  precision: number | null;
}

/** One point per threshold, in the order of `thresholds` (default: distinct scores descending). Empty input → []. */
export function gatingCurve(pairs: readonly ScoredOutcome[], thresholds?: readonly number[]): GatingPoint[] {
  for (const p of pairs) {
    if (!Number.isFinite(p.score))
      throw new EvaluationError("gating-curve", "bad-score", `score ${p.score} is not finite`);
  }
  const n = pairs.length;
  if (n === 0) return [];
  const taus = thresholds ?? [...new Set(pairs.map((p) => p.score))].sort((a, b) => b - a);
  // Sort once by score descending; for each τ count the prefix with score ≥ τ by binary search.
  const sorted = pairs.slice().sort((a, b) => b.score - a.score);
  const correctPrefix = new Array<number>(n + 1).fill(0);
  sorted.forEach((p, i) => {
    correctPrefix[i + 1] = correctPrefix[i]! + (p.correct ? 1 : 0);
  });
  return taus.map((threshold) => {
    if (Number.isNaN(threshold)) throw new EvaluationError("gating-curve", "bad-threshold", "threshold is NaN");
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]!.score >= threshold) lo = mid + 1;
      else hi = mid;
    }
    const kept = lo;
    const correctKept = correctPrefix[kept]!;
    return { threshold, kept, correctKept, coverage: kept / n, precision: kept === 0 ? null : correctKept / kept };
  });
}
