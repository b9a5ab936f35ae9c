/**
 * The fine stage of the staged vector index: 4-bit codes of the probed lists and a bounded exact re-rank.
 * Part of the staged vector index: algorithms/search/vector-index.ts has the overview and the entry points.
 *
 * Fine stage (the IVF stage's default scorer, built with it when the SIMD kernels are available): besides its sign
 * bit, every vector keeps a 4-bit scalar code of y = R(x − μ): δ = fineStep · ‖y‖/√D (0.335: the step of the best
 * 16-level uniform quantiser of a gaussian, Max 1960), m_j = min(7, ⌊|y_j|/δ⌋), c_j = 8 + m_j if y_j > 0 else
 * 7 − m_j (so the top bit of c_j is the sign bit), and one scale α = ‖y‖² / (y·(c − 7.5)) — the unbiased choice of
 * RaBitQ (Gao & Long 2024, §3.2: dividing by ⟨ō, o⟩), whose residual e = y − α(c − 7.5) is orthogonal to y, so the
 * estimate has no bias toward the vector's own direction (measured at 100k: mean error −0.007 with the least-squares
 * scale, +0.0003 with this one, sd 0.0036). With z = Rq,
 *
 *     est_i = α_i · Σ_j z_j (c_ij − 7.5)  ≈ z·y_i = q·x_i − q·μ,     z·y_i − est_i = z·e_i,
 *
 * computed as α_i · qs · (S_i − 7.5·K) by the SIMD kernel scan_u4 (simd/u4-scan.ts: z quantised to int16 with step
 * qs, S_i = Σ_j c_ij k_j exact in integers, error ≤ α_i · 3.75 · D · qs). For a random rotation z·e_i behaves as
 * ‖z‖·‖e_i‖/√D times a standard normal (RaBitQ's bound, ibid. §3.2.2; measured at 100k: |z·e_i| / (‖z‖‖e_i‖/√D) has
 * p99 1.97, max 3.39 over 50 queries × 1,000 candidates), so with
 *
 *     bound_i = ε · ‖q‖ · ‖e_i‖ / √D + α_i · 3.75 · D · qs,   ε = fineBound (2),
 *
 * the true score lies in [est_i − bound_i, est_i + bound_i] except with small probability (a probabilistic bound:
 * the rotation is random, the data are not adversarial). Every vector of the probed lists is scored; T is the N-th
 * largest est − bound, and only those with est + bound ≥ T can be in the probed lists' top N (a vector below scores
 * less than N vectors whose scores are ≥ T, while the bounds hold). Those are re-ranked exactly in order of est +
 * bound, 16 rows at a time, stopping when N rows are scored and the next one's est + bound + q·μ is below the N-th
 * exact score (the rest would score below it): the same answer as re-ranking them all, with fewer rows read.
 * At 100k × 512 (clustered) that re-ranks ~100 rows (p50) instead of the 1-bit path's 1,000 of 2 KB each, whose
 * cache misses were most of the query: the 1-bit estimate ranks the true top-10 up to 849th among all n (p99 688),
 * so a bound on it would not cut the re-rank much. Memory: 256 bytes a vector in the kernel's memory (0.125 × the
 * float32 vectors) plus α_i and ‖e_i‖ (8 bytes); the 1-bit list copy is then never made (index total 1.18 × raw at
 * 100k × 512). `ivfFine: false` runs the 1-bit list scan and the shortlist re-rank instead.
 */

import { SearchError } from "../search/search-error.ts";
import { kthLargestInPlace, TopK } from "../search/top-k.ts";
import type { F32RowDots } from "../simd/row-dots.ts";
import { quantizeU4Query, type U4Scan } from "../simd/u4-scan.ts";
import type { RowKernel } from "./exact-rerank.ts";
import {
  DEFAULTS,
  type FineCodes,
  MODULE,
  type VectorHit,
  type VectorIndex,
  type VectorSearchOptions,
} from "./index-types.ts";
import { probedLists, probeMinimum, probeRanges, probeTarget } from "./ivf.ts";
import { rotatedQuery } from "./rotation.ts";
import { scratchOf } from "./scratch.ts";

/**
 * The 4-bit code of the rotated centred vector y = buf (length D) into fine at row i (see the header, "Fine
 * stage"): δ = fineStep · ‖y‖/√D, m_j = min(7, ⌊|y_j|/δ⌋), c_j = 8 + m_j if y_j > 0 else 7 − m_j (the top bit is
 * the sign bit), α = ‖y‖² / (y·(c − 7.5)) (0 when y = 0), ‖e‖ = ‖y − α(c − 7.5)‖.
 */
export function fineCode(
  y: Float64Array,
  fine: { codes: Uint8Array; scales: Float32Array; residuals: Float32Array },
  i: number,
): void {
  const D = y.length;
  let yy = 0;
  for (let j = 0; j < D; j++) yy += y[j]! * y[j]!;
  const delta = DEFAULTS.fineStep * Math.sqrt(yy / D);
  const o = i * (D >> 1);
  let yc = 0;
  for (let j = 0; j < D; j += 2) {
    const a = y[j]!;
    const b = y[j + 1]!;
    const ma = delta > 0 ? Math.min(7, Math.floor(Math.abs(a) / delta)) : 0;
    const mb = delta > 0 ? Math.min(7, Math.floor(Math.abs(b) / delta)) : 0;
    const ca = a > 0 ? 8 + ma : 7 - ma;
    const cb = b > 0 ? 8 + mb : 7 - mb;
    fine.codes[o + (j >> 1)] = ca | (cb << 4);
    yc += a * (ca - 7.5) + b * (cb - 7.5);
  }
  const alpha = yc > 0 ? yy / yc : 0;
  let ee = 0;
  for (let j = 0; j < D; j += 2) {
    const v = fine.codes[o + (j >> 1)]!;
    ee += (y[j]! - alpha * ((v & 15) - 7.5)) ** 2 + (y[j + 1]! - alpha * ((v >> 4) - 7.5)) ** 2;
  }
  fine.scales[i] = alpha;
  fine.residuals[i] = Math.sqrt(ee);
}

/** The fine codes by id, laid out by list position in the kernel's memory (padding: zero code, zero scale and residual). */
export function fineByPosition(
  byId: { codes: Uint8Array; scales: Float32Array; residuals: Float32Array },
  order: Int32Array,
  D: number,
  scan: U4Scan,
): FineCodes {
  const bytes = D >> 1;
  const scales = new Float32Array(order.length);
  const residuals = new Float32Array(order.length);
  for (let p = 0; p < order.length; p++) {
    const id = order[p]!;
    if (id < 0) continue;
    scan.codes.set(byId.codes.subarray(id * bytes, (id + 1) * bytes), p * bytes);
    scales[p] = byId.scales[id]!;
    residuals[p] = byId.residuals[id]!;
  }
  return { codes: scan.codes, scales, residuals };
}

export interface FineKernel {
  readonly scan: U4Scan;
  /** q · centroid_l for every list. */
  readonly centroidDots: F32RowDots;
  readonly allLists: Int32Array;
  /** The fine codes (used only while index.ivf.fine.codes is still this view). */
  readonly source: Uint8Array;
}

/** The fine stage's kernels by index object: made at build (the codes live only in the kernel's memory). */
export const fineKernels = new WeakMap<VectorIndex, FineKernel | null>();

export function fineKernel(index: VectorIndex): FineKernel | undefined {
  const k = fineKernels.get(index);
  return k && k.source === index.ivf?.fine?.codes ? k : undefined;
}

let fineLower = new Float64Array(0);

let fineUpper = new Float64Array(0);

let fineIds = new Int32Array(0);

/**
 * The fine stage (see the header): the probed lists (as ivfShortlist, target ivfProbeFraction · n) scored on their
 * 4-bit codes, est_p = α_p · qs · (S_p − 7.5·K), bound_p = ε · ‖q‖ · ‖e_p‖ / √D + α_p · 3.75 · D · qs; the ids whose
 * est + bound reaches T, the topN-th largest est − bound (all probed ids when they are at most topN).
 */
export function fineCandidates(
  index: VectorIndex,
  k: FineKernel,
  q: Float64Array,
  topN: number,
  options: VectorSearchOptions,
): { ids: Int32Array; upper: Float64Array } {
  const ivf = index.ivf!;
  const fine = ivf.fine!;
  const eps = options.fineBound ?? DEFAULTS.fineBound;
  if (!(eps >= 0 && Number.isFinite(eps)))
    throw new SearchError(MODULE, "bad-fine-bound", `fineBound must be a finite number ≥ 0, got ${eps}`);
  const lists = probedLists(
    ivf,
    k.centroidDots,
    k.allLists,
    q,
    probeTarget(index, options, topN),
    probeMinimum(options),
  );
  const uq = quantizeU4Query(rotatedQuery(index, q), index.bits);
  const { sums, count } = k.scan.scanRanges(uq, probeRanges(ivf, lists, "positions"), lists.length);
  if (fineLower.length < count) {
    fineLower = new Float64Array(Math.max(count, 2 * fineLower.length));
    fineUpper = new Float64Array(fineLower.length);
    fineIds = new Int32Array(fineLower.length);
  }
  const lower = fineLower;
  const upper = fineUpper;
  const ids = fineIds;
  const scales = fine.scales;
  const residuals = fine.residuals;
  const order = ivf.order;
  let qq = 0;
  for (let j = 0; j < index.d; j++) qq += q[j]! * q[j]!;
  const spread = (eps * Math.sqrt(qq)) / Math.sqrt(index.bits);
  const offset = 7.5 * uq.sum;
  const step = uq.step;
  const quantErr = uq.errorBound;
  let c = 0;
  for (let p = 0; p < lists.length; p++) {
    const start = ivf.starts[lists[p]!]!;
    const end = start + ivf.sizes[lists[p]!]!;
    for (let pos = start; pos < end; pos++, c++) {
      const alpha = scales[pos]!;
      const est = alpha * step * (sums[c]! - offset);
      const bound = spread * residuals[pos]! + alpha * quantErr;
      lower[c] = est - bound;
      upper[c] = est + bound;
      ids[c] = order[pos]!;
    }
  }
  if (count <= topN) return { ids: ids.slice(0, count), upper: upper.slice(0, count) };
  const lows = scratchOf(count);
  lows.set(lower.subarray(0, count));
  const cut = kthLargestInPlace(lows, count, topN);
  let m = 0;
  for (let j = 0; j < count; j++) {
    if (upper[j]! >= cut) {
      upper[m] = upper[j]!;
      ids[m++] = ids[j]!;
    }
  }
  return { ids: ids.slice(0, m), upper: upper.slice(0, m) };
}

/** Rows the bounded re-rank scores between two checks of its stopping rule. */
const RERANK_BATCH = 16;

/**
 * Stage 2 of the fine stage: the exact top-N (dotAt's values, by the kernel's dots_f64) of `ids`, re-ranked in order of
 * their upper bounds (est + bound, in the estimate's units: add q·μ for a score), RERANK_BATCH rows at a time, stopping
 * when N rows are scored and the next upper bound + q·μ is below the N-th exact score: every row left would score
 * below it (while the bounds hold), so the answer equals re-ranking them all, with fewer rows read.
 */
export function boundedRerank(
  index: VectorIndex,
  kernel: RowKernel,
  ids: Int32Array,
  upper: Float64Array,
  q: Float64Array,
  topN: number,
): VectorHit[] {
  const m = ids.length;
  const order = Array.from({ length: m }, (_, j) => j).sort((a, b) => upper[b]! - upper[a]! || ids[a]! - ids[b]!);
  let qMean = 0;
  for (let j = 0; j < index.d; j++) qMean += q[j]! * index.mean[j]!;
  const exact = new TopK(Math.min(topN, m));
  const batch = new Int32Array(RERANK_BATCH);
  const values = new Float64Array(RERANK_BATCH);
  for (let start = 0; start < m; start += RERANK_BATCH) {
    if (upper[order[start]!]! + qMean < exact.threshold) break;
    const size = Math.min(RERANK_BATCH, m - start);
    for (let t = 0; t < size; t++) batch[t] = ids[order[start + t]!]!;
    kernel.dots.exactDots(batch, size, q, values);
    for (let t = 0; t < size; t++) exact.offer(batch[t]!, values[t]!);
  }
  return exact.result();
}
