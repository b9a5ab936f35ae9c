/**
 * Scalar int8 quantisation of unit vectors for compact storage and re-ranking:
 *   q_ij = round(127 · x_ij / max_j |x_ij|),  scale_i = max_j |x_ij| / 127,   x_i · y ≈ scale_i · Σ_j q_ij y_j.
 * A 512-d float32 vector (2 KiB) becomes 516 bytes; the dot-product error is at most
 * scale_i/2 · Σ_j |y_j| (≤ 0.5 · max|x|/127 · √d for a unit query), small next to cosine gaps that matter.
 * Source: uniform scalar quantisation (e.g. Jégou et al., "Product quantization for nearest neighbor
 * search", 2011, §I; the symmetric int8 scheme of common vector databases).
 */

import { dotAt } from "../linalg/dot.ts";

export interface Int8Vectors {
  readonly n: number;
  readonly d: number;
  readonly data: Int8Array;
  readonly scales: Float32Array;
}

export function quantizeInt8(vectors: Float32Array, d: number): Int8Vectors {
  const n = d > 0 ? vectors.length / d : 0;
  const data = new Int8Array(n * d);
  const scales = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let max = 0;
    for (let j = 0; j < d; j++) max = Math.max(max, Math.abs(vectors[i * d + j]!));
    const scale = max / 127;
    scales[i] = scale;
    if (scale === 0) continue;
    for (let j = 0; j < d; j++) data[i * d + j] = Math.round(vectors[i * d + j]! / scale);
  }
  return { n, d, data, scales };
}

/** Approximate dot product of stored vector i with a float query. */
export function dotInt8(v: Int8Vectors, i: number, query: ArrayLike<number>): number {
  return dotAt(v.data, i * v.d, query, v.d) * v.scales[i]!;
}

/**
 * dotInt8 of the stored vectors `ids` with one query, into `out` (same values bit for bit: the same four
 * accumulators as dotAt). The query is copied to a Float64Array once, so the inner loop sees one pair of
 * array types (Int8Array × Float64Array) whatever the caller passes — the re-ranking loop of a shortlist.
 */
export function dotsInt8(v: Int8Vectors, ids: ArrayLike<number>, query: ArrayLike<number>, out: Float64Array = new Float64Array(ids.length)): Float64Array {
  const d = v.d;
  const q = Float64Array.from(query as ArrayLike<number>);
  for (let k = 0; k < ids.length; k++) out[k] = int8Row(v.data, ids[k]! * d, q, d) * v.scales[ids[k]!]!;
  return out;
}

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
