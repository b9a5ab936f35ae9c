/**
 * Sparse symmetric matrix in CSR form, built from undirected weighted pairs by summing duplicates:
 *
 *   A[u][v] = A[v][u] = Σ_{pairs {u,v}} w        (self-pairs and zero weights dropped)
 *
 * Both orientations of every pair are stored; rows list neighbours in increasing id order. Built with
 * `buildSparseRows(…, "sum")` over the pairs and their mirror images: O(n + pairs).
 *
 * Source: Saad, "Iterative Methods for Sparse Linear Systems" (2003), §3.4 (CSR storage of symmetric matrices).
 */
import { buildSparseRows, type SparseRows } from "./sparse-rows.ts";

/** A symmetric sparse matrix: row u lists every v with A[u][v] > 0. */
export type SymmetricCsr = SparseRows;

/**
 * Builds A from parallel arrays of pairs (us[i], vs[i], ws[i]); duplicates in either orientation are summed.
 * Throws SparseRowsError on ids outside 0..n−1 or weights that are negative or not finite.
 */
export function buildSymmetricCsr(
  n: number,
  us: ArrayLike<number>,
  vs: ArrayLike<number>,
  ws: ArrayLike<number>,
): SymmetricCsr {
  const len = us.length;
  if (vs.length !== len || ws.length !== len) return buildSparseRows(n, us, vs, ws, "sum"); // throws bad-length
  const u2 = new Float64Array(2 * len);
  const v2 = new Float64Array(2 * len);
  const w2 = new Float64Array(2 * len);
  for (let i = 0; i < len; i++) {
    u2[i] = us[i]!;
    v2[i] = vs[i]!;
    w2[i] = ws[i]!;
    u2[len + i] = vs[i]!;
    v2[len + i] = us[i]!;
    w2[len + i] = ws[i]!;
  }
  return buildSparseRows(n, u2, v2, w2, "sum");
}

/** Weighted degree d_u = Σ_v A[u][v] of every row. */
export function weightedDegrees(a: SparseRows): Float64Array {
  const d = new Float64Array(a.n);
  for (let u = 0; u < a.n; u++) {
    let s = 0;
    const b = a.offsets[u + 1]!;
    for (let j = a.offsets[u]!; j < b; j++) s += a.weights[j]!;
    d[u] = s;
  }
  return d;
}
