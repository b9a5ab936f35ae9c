/**
 * Row-compressed sparse matrix (CSR rows only) built from (u, v, w) triples, duplicates merged:
 *
 *   R[u][v] = max_i w_i  (merge "max", the tool-graph CSR convention)   or   Σ_i w_i  (merge "sum")
 *
 * over the triples i with (u_i, v_i) = (u, v). Self-pairs (u = v) are dropped unless `keepSelf`; zero weights
 * are dropped. Rows list columns in increasing order: the merged matrix is transposed twice by counting sort.
 * O(n + triples), no hashing, no comparison sort.
 *
 * Source: Saad, "Iterative Methods for Sparse Linear Systems" (2003), §3.4; Gustavson, "Two fast algorithms
 * for sparse matrices: multiplication and permuted transposition" (ACM TOMS 1978).
 */
import { AlgorithmError } from "../errors.ts";

export interface SparseRows {
  /** Number of rows (= columns). */
  readonly n: number;
  /** Row u's entries are `targets[offsets[u] .. offsets[u+1])` with matching `weights`, columns ascending. */
  readonly offsets: Uint32Array;
  readonly targets: Uint32Array;
  readonly weights: Float64Array;
}

export type MergeRule = "max" | "sum";

export class SparseRowsError extends AlgorithmError {
  constructor(code: string, message: string) {
    super("sparse-rows", code, message);
    this.name = "SparseRowsError";
  }
}

/** Builds the n×n rows from parallel arrays us, vs, ws; throws on ids outside 0..n−1 or weights < 0 / non-finite. */
export function buildSparseRows(
  n: number,
  us: ArrayLike<number>,
  vs: ArrayLike<number>,
  ws: ArrayLike<number>,
  merge: MergeRule,
): SparseRows {
  if (!Number.isInteger(n) || n < 0) throw new SparseRowsError("bad-n", `n must be a non-negative integer, got ${n}`);
  const len = us.length;
  if (vs.length !== len || ws.length !== len) {
    throw new SparseRowsError("bad-length", `us, vs, ws lengths differ: ${len}, ${vs.length}, ${ws.length}`);
  }
  const count = new Uint32Array(n + 1);
  for (let i = 0; i < len; i++) {
    const u = us[i]!;
    const v = vs[i]!;
    const w = ws[i]!;
    if (!Number.isInteger(u) || u < 0 || u >= n)
      throw new SparseRowsError("bad-edge", `triple ${i}: row ${u} outside 0..${n - 1}`);
    if (!Number.isInteger(v) || v < 0 || v >= n)
      throw new SparseRowsError("bad-edge", `triple ${i}: column ${v} outside 0..${n - 1}`);
    if (!Number.isFinite(w) || w < 0) throw new SparseRowsError("bad-weight", `triple ${i} (${u},${v}): weight ${w}`);
    if (u === v || w === 0) continue;
    count[u + 1]!++;
  }
  for (let u = 0; u < n; u++) count[u + 1]! += count[u]!;
  const total = count[n]!;
  const rawT = new Uint32Array(total);
  const rawW = new Float64Array(total);
  const pos = count.slice(0, n);
  for (let i = 0; i < len; i++) {
    const u = us[i]!;
    const v = vs[i]!;
    const w = ws[i]!;
    if (u === v || w === 0) continue;
    const p = pos[u]!++;
    rawT[p] = v;
    rawW[p] = w;
  }
  // Merge duplicates within each row (marker[v] = slot of column v in the current row).
  const marker = new Int32Array(n).fill(-1);
  const mOff = new Uint32Array(n + 1);
  const mT = new Uint32Array(total);
  const mW = new Float64Array(total);
  let out = 0;
  for (let u = 0; u < n; u++) {
    const start = out;
    const b = count[u + 1]!;
    for (let j = count[u]!; j < b; j++) {
      const v = rawT[j]!;
      const slot = marker[v]!;
      if (slot >= start) {
        mW[slot] = merge === "sum" ? mW[slot]! + rawW[j]! : Math.max(mW[slot]!, rawW[j]!);
      } else {
        marker[v] = out;
        mT[out] = v;
        mW[out] = rawW[j]!;
        out++;
      }
    }
    mOff[u + 1] = out;
  }
  const t = transpose(n, mOff, mT, mW);
  return transpose(n, t.offsets, t.targets, t.weights);
}

/** Counting-sort transpose; the result's rows list columns in increasing order. */
export function transpose(n: number, offsets: Uint32Array, targets: Uint32Array, weights: Float64Array): SparseRows {
  const m = offsets[n]!;
  const tOff = new Uint32Array(n + 1);
  for (let j = 0; j < m; j++) tOff[targets[j]! + 1]!++;
  for (let v = 0; v < n; v++) tOff[v + 1]! += tOff[v]!;
  const fill = tOff.slice(0, n);
  const tT = new Uint32Array(m);
  const tW = new Float64Array(m);
  for (let u = 0; u < n; u++) {
    const b = offsets[u + 1]!;
    for (let j = offsets[u]!; j < b; j++) {
      const p = fill[targets[j]!]!++;
      tT[p] = u;
      tW[p] = weights[j]!;
    }
  }
  return { n, offsets: tOff, targets: tT, weights: tW };
}
