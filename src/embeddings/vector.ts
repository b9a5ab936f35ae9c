/**
 * Small vector helpers for embeddings: L2 normalisation and dot product (= cosine for unit vectors).
 *
 * normalise(v) = v / ‖v‖₂ with ‖v‖₂ = sqrt(Σ vᵢ²), accumulated in float64 and stored as float32.
 * The zero vector (‖v‖₂ = 0) stays the zero vector: it has no direction, and its cosine with anything is 0.
 */
import { EmbeddingError } from "./provider.ts";

/** A new Float32Array holding v / ‖v‖₂ (the zero vector if ‖v‖₂ = 0 or the norm is not finite). */
export function l2Normalised(v: ArrayLike<number>): Float32Array {
  let sq = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    sq += x * x;
  }
  const out = new Float32Array(v.length);
  const norm = Math.sqrt(sq);
  if (norm === 0 || !Number.isFinite(norm)) return out;
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
  return out;
}

/** Σ aᵢbᵢ in float64; for unit vectors this is the cosine similarity. Throws on a length mismatch. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) {
    throw new EmbeddingError("dimension-mismatch", `dot: vector lengths differ (${a.length} vs ${b.length})`);
  }
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** ‖v‖₂ in float64. */
export function l2Norm(v: ArrayLike<number>): number {
  return Math.sqrt(dot(v, v));
}
