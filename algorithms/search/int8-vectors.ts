/**
 * Scalar int8 quantisation of unit vectors for compact storage and re-ranking:
 *   q_ij = round(127 · x_ij / max_j |x_ij|),  scale_i = max_j |x_ij| / 127,   x_i · y ≈ scale_i · Σ_j q_ij y_j.
 * A 512-d float32 vector (2 KiB) becomes 516 bytes; the dot-product error is at most
 * scale_i/2 · Σ_j |y_j| (≤ 0.5 · max|x|/127 · √d for a unit query), small next to cosine gaps that matter.
 * Source: uniform scalar quantisation (e.g. Jégou et al., "Product quantization for nearest neighbor
 * search", 2011, §I; the symmetric int8 scheme of common vector databases).
 *
 * SIMD: by default the codes and scales are written into the memory of a WebAssembly SIMD kernel
 * (simd/row-dots.ts; no copy), and dotsInt8 runs it: the query rounded to float32 and a float32 sum, within
 * scale_i · (dotErrorFactor(d) · Σ_j |q_ij y_j| + dotUnderflowBound(d, 127)) of the JS value (≈ 2.6e-6 ·
 * scale_i · Σ_j |q_ij y_j| at d = 512, far below the quantisation error above). Queries with |y_j| ≥ 2¹²⁰ (not
 * representable in float32) run the JS loop. dotInt8 (one vector) stays in JS.
 */

import { dotAt } from "../linalg/dot.ts";
import { type Int8RowDots, int8RowDots, MAX_QUERY_ABS, simdByDefault } from "../simd/row-dots.ts";

export interface Int8Vectors {
  readonly n: number;
  readonly d: number;
  readonly data: Int8Array;
  readonly scales: Float32Array;
  /** The SIMD kernel whose memory holds `data` and `scales` (used by dotsInt8 while they are still its views). */
  readonly simd?: Int8RowDots;
}

export interface QuantizeOptions {
  /** Store the codes in a WebAssembly SIMD kernel's memory. Default: available and TOOLGRAPH_NO_SIMD ≠ 1. */
  readonly simd?: boolean;
}

export function quantizeInt8(vectors: Float32Array, d: number, options: QuantizeOptions = {}): Int8Vectors {
  return appendInt8({ n: 0, d, data: new Int8Array(0), scales: new Float32Array(0) }, vectors, options);
}

/**
 * The stored vectors followed by the rows of `added` (m × d), quantised: each row is quantised on its own, so the
 * result equals quantizeInt8 over all rows (the stored rows are copied, not quantised again). v is not changed.
 */
export function appendInt8(v: Int8Vectors, added: Float32Array, options: QuantizeOptions = {}): Int8Vectors {
  const d = v.d;
  const n0 = v.n;
  const n = n0 + (d > 0 ? added.length / d : 0);
  const simd = n > 0 && (options.simd ?? simdByDefault()) ? int8RowDots(n, d) : undefined;
  const data = simd ? simd.data : new Int8Array(n * d);
  const scales = simd ? simd.scales : new Float32Array(n);
  data.set(v.data.subarray(0, n0 * d));
  scales.set(v.scales.subarray(0, n0));
  for (let i = n0; i < n; i++) {
    const o = (i - n0) * d;
    let max = 0;
    for (let j = 0; j < d; j++) max = Math.max(max, Math.abs(added[o + j]!));
    const scale = max / 127;
    scales[i] = scale;
    if (scale === 0) continue;
    for (let j = 0; j < d; j++) data[i * d + j] = Math.round(added[o + j]! / scale);
  }
  return simd ? { n, d, data, scales, simd } : { n, d, data, scales };
}

/** Approximate dot product of stored vector i with a float query. */
export function dotInt8(v: Int8Vectors, i: number, query: ArrayLike<number>): number {
  return dotAt(v.data, i * v.d, query, v.d) * v.scales[i]!;
}

/**
 * dotInt8 of the stored vectors `ids` with one query, into `out`. With the SIMD kernel: within the bound of the
 * header of dotInt8. Without: the same values bit for bit (the same four
 * accumulators as dotAt); the query is copied to a Float64Array once, so the inner loop sees one pair of
 * array types (Int8Array × Float64Array) whatever the caller passes — the re-ranking loop of a shortlist.
 */
export function dotsInt8(
  v: Int8Vectors,
  ids: ArrayLike<number>,
  query: ArrayLike<number>,
  out: Float64Array = new Float64Array(ids.length),
): Float64Array {
  const d = v.d;
  const k = v.simd;
  if (k !== undefined && k.data === v.data && k.scales === v.scales && k.d === d && fitsFloat32(query, d))
    return k.dots(ids, query, out);
  const q = Float64Array.from(query as ArrayLike<number>);
  for (let k = 0; k < ids.length; k++) out[k] = int8Row(v.data, ids[k]! * d, q, d) * v.scales[ids[k]!]!;
  return out;
}

/**
 * dotAt (algorithms/linalg/dot.ts) specialised to (Int8Array, Float64Array): the same four-accumulator sum,
 * kept separate on purpose so this hot loop stays monomorphic (dotAt also sees float32 rows, and a polymorphic
 * element access costs here ~2× on 100k-row re-ranks).
 */
function int8Row(a: Int8Array, offset: number, b: Float64Array, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < d; j += 4) {
    s0 += a[offset + j]! * b[j]!;
    s1 += a[offset + j + 1]! * b[j + 1]!;
    s2 += a[offset + j + 2]! * b[j + 2]!;
    s3 += a[offset + j + 3]! * b[j + 3]!;
  }
  for (; j < d; j++) s0 += a[offset + j]! * b[j]!;
  return s0 + s1 + (s2 + s3);
}

function fitsFloat32(query: ArrayLike<number>, d: number): boolean {
  for (let j = 0; j < d; j++) if (!(Math.abs(query[j]!) < MAX_QUERY_ABS)) return false;
  return true;
}
