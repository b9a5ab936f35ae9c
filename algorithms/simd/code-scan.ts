/**
 * WebAssembly SIMD scan of 1-bit sign codes against a 4-bit quantised query (RaBitQ's query quantisation:
 * Gao & Long, "RaBitQ", SIGMOD 2024, §3.3), the kernel `scan_codes` of kernels.wat.
 *
 * A code b ∈ {0,1}^D stands for the signs s_j = 2b_j − 1; the JS scan computes Σ_j r_j · s_j for the rotated
 * query r through byte tables. Here r is quantised to B = 4 unsigned bit planes: with lo = min_j r_j,
 * Δ = (max_j r_j − lo) / 15 and u_j = round((r_j − lo) / Δ) ∈ [0, 15], r_j = lo + Δ·u_j + e_j with |e_j| ≤ Δ/2, so
 *
 *   Σ_j r_j s_j = Σ_j (lo + Δ u_j)(2b_j − 1) + Σ_j e_j s_j
 *               = Δ·(2·S − U) + lo·(2·P − D) + E,        S = Σ_j u_j b_j,  U = Σ_j u_j,  P = popcount(b),
 *
 * with |E| ≤ D·Δ/2 (worst case: every e_j at ±Δ/2 with the sign of s_j; for independent rounding errors it is
 * about Δ·√(D/12)). S = Σ_{p<4} 2^p · popcount(plane_p AND b) is computed exactly in integers (v128.and,
 * i8x16.popcnt, widening pairwise adds); the kernel returns scale_i · (a·S + b·P + c) in float64 with a = 2Δ,
 * b = 2·lo, c = −Δ·U − lo·D. So for vector i the SIMD score differs from the JS table score by at most
 *
 *   scale_i · D · Δ / 2      (+ float64 rounding, ~1e-15 relative),
 *
 * `quantizedErrorBound(q)` = D·Δ/2. D is the number of code bits scanned (128 for the prefix stage), and lo, Δ
 * are taken over those coordinates only.
 */
import { align, CHUNK, kernelInstance } from "./row-dots.ts";

/** Bit planes of the query. */
export const QUERY_BITS = 4;
const LEVELS = (1 << QUERY_BITS) - 1;
/** Most 128-bit blocks a code may have (the kernel's integer sums are exact up to 31). */
export const MAX_SCAN_BLOCKS = 16;

export interface QuantizedQuery {
  /** 128-bit blocks (D / 128). */
  readonly blocks: number;
  /** blocks × 4 planes × 4 words: word w of plane p of block k at (4k + p)·4 + w; bit t = coordinate 128k + 32w + t. */
  readonly planes: Uint32Array;
  readonly lo: number;
  readonly delta: number;
  /** Σ_j u_j. */
  readonly sumU: number;
}

/** Quantises r[0 .. 128·blocks) to 4 bit planes (see the header). r must be finite. */
export function quantizeQuery(r: ArrayLike<number>, blocks: number): QuantizedQuery {
  const D = 128 * blocks;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let j = 0; j < D; j++) {
    const v = r[j]!;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const delta = hi > lo ? (hi - lo) / LEVELS : 0;
  const planes = new Uint32Array(blocks * 16);
  let sumU = 0;
  for (let j = 0; j < D; j++) {
    let u = delta > 0 ? Math.round((r[j]! - lo) / delta) : 0;
    if (u > LEVELS) u = LEVELS;
    sumU += u;
    const k = j >> 7;
    const w = (j >> 5) & 3;
    const bit = 1 << (j & 31);
    for (let p = 0; p < QUERY_BITS; p++) if ((u >> p) & 1) planes[(4 * k + p) * 4 + w]! |= bit;
  }
  return { blocks, planes, lo, delta, sumU };
}

/** Worst-case |SIMD − exact| of Σ_j r_j s_j before the scale: D·Δ/2 (see the header). */
export function quantizedErrorBound(q: QuantizedQuery): number {
  return (128 * q.blocks * q.delta) / 2;
}

export interface CodeScan {
  readonly n: number;
  /**
   * Scores of all n vectors on their first q.blocks·128 bits, read from `prefix` when it has exactly that
   * many words a vector, else from the full codes. The result is a view into the kernel's memory, valid until
   * the next call.
   */
  scanAll(q: QuantizedQuery): Float64Array;
  /** Scores of the given vectors on their first q.blocks·128 code bits (full codes); out[k] for ids[k]. */
  scanIds(q: QuantizedQuery, ids: ArrayLike<number>, count: number, out: Float64Array): Float64Array;
}

/**
 * A kernel over copies of n codes of `words` 32-bit words, optional contiguous prefixes of `prefixWords`
 * words, and the scales; undefined when SIMD or the memory is unavailable or the codes are too long.
 */
export function codeScan(codes: Uint32Array, words: number, scales: Float32Array, prefix?: Uint32Array, prefixWords = 0): CodeScan | undefined {
  const n = scales.length;
  if (words % 4 !== 0 || words / 4 > MAX_SCAN_BLOCKS || codes.length !== n * words) return undefined;
  const hasPrefix = prefix !== undefined && prefixWords > 0 && prefixWords % 4 === 0 && prefix.length === n * prefixWords;
  const codesAt = 0;
  const prefixAt = align(4 * n * words);
  const scalesAt = prefixAt + (hasPrefix ? align(4 * n * prefixWords) : 0);
  const planesAt = scalesAt + align(4 * n);
  const idsAt = planesAt + 64 * MAX_SCAN_BLOCKS;
  const outAt = idsAt + 4 * CHUNK;
  const at = kernelInstance(outAt + 8 * Math.max(n, CHUNK));
  if (!at) return undefined;
  const buffer = at.memory.buffer;
  new Uint32Array(buffer, codesAt, n * words).set(codes);
  if (hasPrefix) new Uint32Array(buffer, prefixAt, n * prefixWords).set(prefix);
  new Float32Array(buffer, scalesAt, n).set(scales);
  const planes = new Uint32Array(buffer, planesAt, 16 * MAX_SCAN_BLOCKS);
  const idView = new Int32Array(buffer, idsAt, CHUNK);
  const outView = new Float64Array(buffer, outAt, Math.max(n, CHUNK));
  const kernel = at.exports.scan_codes!;
  const coefficients = (q: QuantizedQuery) => {
    if (q.blocks < 1 || q.blocks > words / 4) throw new RangeError(`code-scan: ${q.blocks} blocks, codes have ${words / 4}`);
    planes.set(q.planes);
    return [2 * q.delta, 2 * q.lo, -q.delta * q.sumU - q.lo * 128 * q.blocks] as const;
  };
  return {
    n,
    scanAll(q) {
      const [a, b, c] = coefficients(q);
      if (hasPrefix && q.blocks * 4 === prefixWords) kernel(prefixAt, 4 * prefixWords, q.blocks, -1, n, planesAt, scalesAt, a, b, c, outAt);
      else kernel(codesAt, 4 * words, q.blocks, -1, n, planesAt, scalesAt, a, b, c, outAt);
      return outView.subarray(0, n);
    },
    scanIds(q, ids, count, out) {
      const [a, b, c] = coefficients(q);
      for (let start = 0; start < count; start += CHUNK) {
        const m = Math.min(CHUNK, count - start);
        for (let k = 0; k < m; k++) {
          const id = ids[start + k]!;
          if (!(id >= 0 && id < n && Number.isInteger(id))) throw new RangeError(`code-scan: id ${id} is not in [0, ${n})`);
          idView[k] = id;
        }
        kernel(codesAt, 4 * words, q.blocks, idsAt, m, planesAt, scalesAt, a, b, c, outAt);
        out.set(outView.subarray(0, m), start);
      }
      return out;
    },
  };
}
