/**
 * Weighted PageRank over a CSR graph, by power iteration.
 *
 *   x_{t+1}[v] = α · Σ_{u→v} x_t[u] · w(u,v) / W(u)  +  α · (Σ_{u dangling} x_t[u]) / n  +  (1 − α) / n
 *
 * where W(u) = Σ_v w(u,v) is u's weighted out-degree and a node is "dangling" when W(u) = 0 (no out-edges,
 * or only zero-weight ones): its mass is spread uniformly over all n nodes. Iteration starts from 1/n,
 * stops when the L1 change ‖x_{t+1} − x_t‖₁ < n · tolerance (graphology's criterion) or after
 * maxIterations. Scores sum to 1 (re-normalised once at the end to absorb rounding).
 *
 * Source: Page, Brin, Motwani, Winograd, "The PageRank citation ranking" (1999); conventions (weighted
 * out-degree normalisation, uniform dangling redistribution, convergence test) copied from graphology-metrics
 * `centrality/pagerank.js` 2.4.2 so both agree within 1e-6. Differences: a node whose out-edges all weigh 0
 * is treated as dangling (graphology divides 0/0 and returns NaN), and non-convergence is reported with
 * `converged: false` instead of throwing.
 */
import { AlgorithmError } from "../errors.ts";
import type { Csr } from "../graph/csr.ts";

/** The part of a CSR PageRank reads (out-edges only); a `Csr` or `SparseRows` qualifies. */
export type PagerankGraph = Pick<Csr, "n" | "offsets" | "targets" | "weights">;

export const DEFAULTS = {
  damping: 0.85,
  tolerance: 1e-6,
  maxIterations: 100,
} as const;

export interface PagerankOptions {
  /** Damping factor α in [0, 1]. Default 0.85. */
  readonly damping?: number;
  /** Convergence threshold per node: stop when the L1 change < n · tolerance. Default 1e-6. */
  readonly tolerance?: number;
  /** Maximum number of power iterations. Default 100. */
  readonly maxIterations?: number;
}

export interface PagerankResult {
  /** PageRank per node id, non-negative, summing to 1 (empty array for an empty graph). */
  readonly scores: Float64Array;
  /** Power iterations performed. */
  readonly iterations: number;
  /** True when the L1 change fell below n · tolerance within maxIterations (true for an empty graph). */
  readonly converged: boolean;
}

export class PagerankError extends AlgorithmError {
  constructor(code: string, message: string) {
    super("pagerank", code, message);
    this.name = "PagerankError";
  }
}

/** PageRank scores (Float64Array indexed by node id, summing to 1). */
export function pagerank(g: PagerankGraph, options: PagerankOptions = {}): Float64Array {
  return pagerankDetailed(g, options).scores;
}

/** PageRank scores plus iteration count and convergence flag. */
export function pagerankDetailed(g: PagerankGraph, options: PagerankOptions = {}): PagerankResult {
  const alpha = options.damping ?? DEFAULTS.damping;
  const tolerance = options.tolerance ?? DEFAULTS.tolerance;
  const maxIterations = options.maxIterations ?? DEFAULTS.maxIterations;
  if (!(alpha >= 0 && alpha <= 1)) throw new PagerankError("bad-damping", `damping must be in [0, 1], got ${alpha}`);
  if (!(tolerance >= 0) || !Number.isFinite(tolerance)) {
    throw new PagerankError("bad-tolerance", `tolerance must be a finite non-negative number, got ${tolerance}`);
  }
  if (!Number.isInteger(maxIterations) || maxIterations < 0) {
    throw new PagerankError("bad-max-iterations", `maxIterations must be a non-negative integer, got ${maxIterations}`);
  }
  const n = g.n;
  if (n === 0) return { scores: new Float64Array(0), iterations: 0, converged: true };
  const { offsets, targets, weights } = g;
  const p = 1 / n;

  // Transition probabilities w(u,v)/W(u); dangling nodes have W(u) = 0.
  const prob = new Float64Array(weights.length);
  const dangling: number[] = [];
  for (let u = 0; u < n; u++) {
    const a = offsets[u]!;
    const b = offsets[u + 1]!;
    let wsum = 0;
    for (let j = a; j < b; j++) wsum += weights[j]!;
    if (wsum > 0) {
      for (let j = a; j < b; j++) prob[j] = weights[j]! / wsum;
    } else {
      dangling.push(u);
    }
  }

  let x = new Float64Array(n).fill(p);
  let next = new Float64Array(n);
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations) {
    iterations++;
    let dangleSum = 0;
    for (const u of dangling) dangleSum += x[u]!;
    const base = alpha * dangleSum * p + (1 - alpha) * p;
    next.fill(base);
    for (let u = 0; u < n; u++) {
      const xu = alpha * x[u]!;
      if (xu === 0) continue;
      const b = offsets[u + 1]!;
      for (let j = offsets[u]!; j < b; j++) next[targets[j]!]! += xu * prob[j]!;
    }
    let err = 0;
    for (let i = 0; i < n; i++) err += Math.abs(next[i]! - x[i]!);
    const tmp = x;
    x = next;
    next = tmp;
    if (err < n * tolerance) {
      converged = true;
      break;
    }
  }
  let total = 0;
  for (let i = 0; i < n; i++) total += x[i]!;
  if (total > 0) for (let i = 0; i < n; i++) x[i]! /= total;
  return { scores: x, iterations, converged };
}

/**
 * Max-normalisation to [0, 1]: s_i / max_j s_j, so the most central node scores 1. This is the PageRank
 * term of the next-step formula (prediction/next-step.ts), which mixes it with other [0, 1] signals. All-zero (or
 * empty) input returns zeros. Negative or non-finite input is misuse.
 */
export function normalizeToUnit(scores: ArrayLike<number>): Float64Array {
  const out = new Float64Array(scores.length);
  let max = 0;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (!(s >= 0) || !Number.isFinite(s)) {
      throw new PagerankError(
        "bad-score",
        `normalizeToUnit: score ${i} is ${s}, expected a finite non-negative number`,
      );
    }
    if (s > max) max = s;
  }
  if (max === 0) return out;
  for (let i = 0; i < scores.length; i++) out[i] = scores[i]! / max;
  return out;
}
