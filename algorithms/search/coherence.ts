/**
 * Semantic–graph coherence of a tool and the active-search α estimate it gives (the local α's active-search
 * regime, docs/decisions/hybrid-alpha.md):
 *
 *   coherence(u) = Σ_v w(u,v) · clamp01(cos(u,v)) / Σ_v w(u,v)      over u's undirected graph neighbours v
 *                = 0 when u has no neighbour (or Σ w = 0)
 *   α_est(u)     = 1 − 0.5 · coherence(u)
 *
 * A tool whose graph neighbours are also its semantic neighbours gets more graph weight (α down to 0.5);
 * an incoherent or isolated tool keeps α = 1 (text only). Cold start (< 5 executions) is applied by the
 * caller through adaptive-alpha.ts's coldStartAlpha.
 *
 * Invariants: coherence ∈ [0,1]; α_est ∈ [0.5, 1]; coherence does not depend on neighbour order.
 * Pure: the cosine is the caller's function of two tool indices (no I/O, no clock).
 */
import { type Csr, undirectedNeighbors } from "../graph/csr.ts";
import { drain } from "../timing/drain.ts";

export function toolCoherence(g: Csr, n: number, cosine: (u: number, v: number) => number): Float64Array {
  return drain(toolCoherenceSteps(g, n, cosine));
}

/** Neighbours visited between two yields of `toolCoherenceSteps` (each a cosine of two vectors). */
const STEP_NEIGHBOURS = 2048;

/**
 * `toolCoherence`, yielding every STEP_NEIGHBOURS neighbours (2,000 tools × 50k edges of 512-d vectors are tens
 * of ms), for a caller on an event loop; the same values.
 */
export function* toolCoherenceSteps(
  g: Csr,
  n: number,
  cosine: (u: number, v: number) => number,
): Generator<void, Float64Array, void> {
  const values = new Float64Array(n);
  let visited = 0;
  for (let u = 0; u < n; u++) {
    if (visited >= STEP_NEIGHBOURS) {
      visited = 0;
      yield;
    }
    const { ids, weights } = undirectedNeighbors(g, u);
    visited += ids.length;
    let num = 0;
    let den = 0;
    for (let k = 0; k < ids.length; k++) {
      const dot = cosine(u, ids[k]!);
      num += weights[k]! * Math.max(0, Math.min(1, dot));
      den += weights[k]!;
    }
    values[u] = den > 0 ? num / den : 0;
  }
  return values;
}

/** α_est = 1 − 0.5 · coherence. */
export function coherenceAlpha(coherence: number): number {
  return 1 - 0.5 * coherence;
}
