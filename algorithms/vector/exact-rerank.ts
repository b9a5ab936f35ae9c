/**
 * Stage 2 of the staged vector index: the exact re-rank of a shortlist (JS dotAt, or the float32 SIMD row kernel
 * with a float64 re-check, the same answer bit for bit), and the exact scan used as ground truth.
 * Part of the staged vector index: algorithms/search/vector-index.ts has the overview and the entry points.
 *
 * Stage 2: the shortlist is re-scored exactly (float32 dot product = cosine for unit vectors) and the top N
 * returned, score descending, id ascending on ties.
 *
 * Stage 2 with WebAssembly SIMD (simd/row-dots.ts, on by default where available): the shortlist is scored by the
 * float32 SIMD kernel, whose error against the float64 dotAt is at most ε = dotErrorFactor(d) · max_i ‖x_i‖ · ‖q‖
 * (Cauchy–Schwarz on Σ_j |x_ij q_j|) + dotUnderflowBound; with T the N-th best SIMD score, every vector of the JS top N has a SIMD
 * score ≥ T − 2ε (N candidates have JS scores ≥ T − ε), so exactly those are re-scored with dotAt and the top N
 * taken from them: the result equals the JS path's, scores bit for bit. The kernel copies the vectors into its
 * own WebAssembly.Memory on the first search that re-ranks (not at build: the memory service keeps an index
 * without its float32 vectors and never re-ranks through it) and is freed with the index object.
 */
import { dotAt } from "../linalg/dot.ts";
import { SearchError } from "../search/search-error.ts";
import { kthLargestInPlace, TopK } from "../search/top-k.ts";
import {
  dotErrorFactor,
  dotUnderflowBound,
  type F32RowDots,
  f32RowDotsSteps,
  MAX_QUERY_ABS,
  simdByDefault,
} from "../simd/row-dots.ts";
import {
  checkMatrix,
  checkQuery,
  checkTopN,
  MODULE,
  SIMD_MIN_VALUES,
  type VectorHit,
  type VectorIndex,
} from "./index-types.ts";
import { cachedKernel } from "./scratch.ts";

export function wantSimd(index: VectorIndex, options: { readonly simd?: boolean }): boolean {
  return options.simd ?? (index.n * index.d >= SIMD_MIN_VALUES && simdByDefault());
}

/** Stage 2 alone: the exact top-N of the given ids (as searchVectorIndex re-ranks its shortlist; benchmarks). */
export function rerankIds(
  index: VectorIndex,
  ids: Int32Array,
  query: ArrayLike<number>,
  topN: number,
  options: { readonly simd?: boolean } = {},
): VectorHit[] {
  checkQuery(query, index.d);
  checkTopN(topN);
  if (ids.length === 0 || topN === 0) return [];
  const q = query instanceof Float64Array ? query : Float64Array.from(query as ArrayLike<number>);
  const kernel = wantSimd(index, options) ? rowKernel(index) : undefined;
  return (kernel && simdRerank(index, kernel, ids, q, topN)) ?? rerank(index, ids, q, topN);
}

/**
 * dotAt(index.vectors, ids[k]·d, q, d) for k < count, bit for bit: through the index's SIMD row kernel (dots_f64)
 * when re-ranking would use it (default: SIMD on and the index large enough), else dotAt itself. For callers that
 * need exact cosines of rows outside the vector channel's hits (the BM25-only and memory candidates of a search).
 */
export function exactRowDots(
  index: VectorIndex,
  ids: ArrayLike<number>,
  count: number,
  q: ArrayLike<number>,
  out: Float64Array = new Float64Array(count),
): Float64Array {
  checkQuery(q, index.d);
  for (let k = 0; k < count; k++) {
    const id = ids[k]!;
    if (!(Number.isInteger(id) && id >= 0 && id < index.n))
      throw new SearchError(MODULE, "bad-id", `id ${id} is not a row of the index (n = ${index.n})`);
  }
  const kernel = count > 0 && wantSimd(index, {}) ? rowKernel(index) : undefined;
  if (kernel) return kernel.dots.exactDots(ids, count, q, out);
  for (let k = 0; k < count; k++) out[k] = dotAt(index.vectors, ids[k]! * index.d, q, index.d);
  return out;
}

/** Exact top-N of `ids` by dotAt (the JS stage 2). */
export function rerank(index: VectorIndex, ids: Int32Array, q: Float64Array, topN: number): VectorHit[] {
  const exact = new TopK(Math.min(topN, ids.length));
  for (const id of ids) exact.offer(id, dotAt(index.vectors, id * index.d, q, index.d));
  return exact.result();
}

export interface RowKernel {
  readonly dots: F32RowDots;
  /** The array copied into the kernel (re-ranking uses the kernel only while index.vectors is still it). */
  readonly source: Float32Array;
  /** max_i ‖x_i‖₂, rounded up. */
  readonly maxNorm: number;
}

/** SIMD kernels by index object: created on the first SIMD re-rank, collected with the index. */
export const rowKernels = new WeakMap<VectorIndex, RowKernel | null>();

export function rowKernel(index: VectorIndex): RowKernel | undefined {
  return cachedKernel(rowKernels, index, index.vectors, () => makeRowKernel(index.vectors, index.n, index.d));
}

/** A SIMD row kernel over a copy of the n × d vectors (its `source` is the copy); undefined when unavailable. */
export function makeRowKernel(vectors: Float32Array, n: number, d: number): RowKernel | undefined {
  const steps = makeRowKernelSteps(vectors, n, d, Number.MAX_SAFE_INTEGER);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * makeRowKernel in steps: pauses after each `rowsPerStep` rows of the norm pass, then through the kernel's
 * copy of the rows (row-dots.ts f32RowDotsSteps), so a caller can return to its event loop between steps.
 */
export function* makeRowKernelSteps(
  vectors: Float32Array,
  n: number,
  d: number,
  rowsPerStep: number,
): Generator<void, RowKernel | undefined, void> {
  if (!(vectors.length === n * d && n > 0)) return undefined;
  let max = 0;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = i * d; j < (i + 1) * d; j++) s += vectors[j]! * vectors[j]!;
    if (!(s <= max)) max = s; // NaN propagates
    if ((i + 1) % rowsPerStep === 0 && i + 1 < n) yield;
  }
  const maxNorm = Math.sqrt(max) * (1 + 1e-9);
  const dots = Number.isFinite(maxNorm) && maxNorm < 1e18 ? yield* f32RowDotsSteps(vectors, d, rowsPerStep) : undefined;
  return dots ? { dots, source: vectors, maxNorm } : undefined;
}

let simdScores = new Float32Array(0);

let simdSelect = new Float64Array(0);

/**
 * Top-N of `ids` equal to rerank's: SIMD scores, then dotAt on every id within 2ε of the N-th best SIMD score
 * (see the header). Undefined when the bound is not finite (the caller then runs the JS re-rank).
 */
let candidateIds = new Int32Array(0);

export function simdRerank(
  index: VectorIndex,
  kernel: RowKernel,
  ids: Int32Array,
  q: Float64Array,
  topN: number,
): VectorHit[] | undefined {
  const m = ids.length;
  const top = Math.min(topN, m);
  let qq = 0;
  for (let j = 0; j < index.d; j++) qq += q[j]! * q[j]!;
  const qNorm = Math.sqrt(qq);
  if (!(qNorm < MAX_QUERY_ABS)) return undefined;
  const eps =
    (dotErrorFactor(index.d) * kernel.maxNorm * qNorm + dotUnderflowBound(index.d, kernel.maxNorm)) * (1 + 1e-9);
  if (simdScores.length < m) {
    simdScores = new Float32Array(Math.max(m, 2 * simdScores.length));
    simdSelect = new Float64Array(simdScores.length);
  }
  const scores = kernel.dots.dots(ids, q, simdScores.subarray(0, m));
  for (let k = 0; k < m; k++) simdSelect[k] = scores[k]!;
  const t = kthLargestInPlace(simdSelect, m, top);
  if (!Number.isFinite(t)) return undefined;
  const cut = t - 2 * eps;
  if (candidateIds.length < m) candidateIds = new Int32Array(Math.max(m, 2 * candidateIds.length));
  let c = 0;
  for (let k = 0; k < m; k++) if (scores[k]! >= cut) candidateIds[c++] = ids[k]!;
  // dotAt's value bit for bit, computed by the kernel (dots_f64) on its copy of the rows
  const values = kernel.dots.exactDots(candidateIds, c, q, simdSelect.subarray(0, c));
  const exact = new TopK(top);
  for (let k = 0; k < c; k++) exact.offer(candidateIds[k]!, values[k]!);
  return exact.result();
}

/** Exact top-N by a full float32 dot-product scan (the baseline and the ground truth). */
export function exactTopK(vectors: Float32Array, d: number, query: ArrayLike<number>, topN: number): VectorHit[] {
  const n = checkMatrix(vectors, d);
  checkQuery(query, d);
  checkTopN(topN);
  const q = query instanceof Float64Array ? query : Float64Array.from(query as ArrayLike<number>);
  const heap = new TopK(Math.min(topN, n));
  let bar = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const s = dotAt(vectors, i * d, q, d);
    if (s >= bar) {
      heap.offer(i, s);
      bar = heap.threshold;
    }
  }
  return heap.result();
}
