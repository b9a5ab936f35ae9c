/**
 * The random rotation of the staged vector index (algorithms/search/vector-index.ts has the overview): a randomised
 * Hadamard transform R = Π_r (H · diag(s_r)) over `rounds` rounds, each a random ±1 diagonal then the normalised
 * fast Walsh–Hadamard transform H (orthogonal: H·H = I), on vectors zero-padded to the code dimension D (a power of
 * two). R is orthogonal, so dot products are preserved: (Rq)·(Rx) = q·x. It spreads a vector's energy evenly over
 * the D coordinates, so every code bit carries about the same information.
 *
 * Source: Ailon & Chazelle, "The fast Johnson–Lindenstrauss transform and approximate nearest neighbors", 2009.
 */
import type { VectorIndex } from "./index-types.ts";

/** In-place normalised fast Walsh–Hadamard transform (length a power of two); orthogonal. */
export function fwht(buf: Float64Array): void {
  const n = buf.length;
  let h0 = 1;
  if (n >= 4) {
    // The first two butterfly levels fused (radix 4): the same sums as two passes with h = 1 and h = 2.
    for (let i = 0; i < n; i += 4) {
      const a = buf[i]!;
      const b = buf[i + 1]!;
      const c = buf[i + 2]!;
      const d = buf[i + 3]!;
      const s0 = a + b;
      const s1 = a - b;
      const s2 = c + d;
      const s3 = c - d;
      buf[i] = s0 + s2;
      buf[i + 1] = s1 + s3;
      buf[i + 2] = s0 - s2;
      buf[i + 3] = s1 - s3;
    }
    h0 = 4;
  }
  for (let h = h0; h < n; h <<= 1) {
    for (let i = 0; i < n; i += h << 1) {
      for (let j = i; j < i + h; j++) {
        const a = buf[j]!;
        const b = buf[j + h]!;
        buf[j] = a + b;
        buf[j + h] = a - b;
      }
    }
  }
  const s = 1 / Math.sqrt(n);
  for (let i = 0; i < n; i++) buf[i]! *= s;
}

export function rotate(buf: Float64Array, signs: Float64Array, rounds: number): void {
  const D = buf.length;
  for (let r = 0; r < rounds; r++) {
    const o = r * D;
    for (let i = 0; i < D; i++) buf[i]! *= signs[o + i]!;
    fwht(buf);
  }
}

/** The rotated query Rq (length bits). */
export function rotatedQuery(index: VectorIndex, query: ArrayLike<number>): Float64Array {
  const buf = new Float64Array(index.bits);
  for (let j = 0; j < index.d; j++) buf[j] = query[j]!;
  rotate(buf, index.signs, index.rounds);
  return buf;
}
