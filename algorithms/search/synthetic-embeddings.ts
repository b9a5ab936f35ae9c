/**
 * Seeded synthetic "sentence-embedding-like" unit vectors for tests and benches.
 *
 *   x = normalise( meanWeight · m  +  S ⊙ c_j  +  noise · S ⊙ g ),   g ~ N(0, I_d / d),  c_j ~ unit(N(0, I_d))
 *
 * where m is one shared unit direction (sentence embeddings are anisotropic: they share a large common
 * component, so raw sign bits or cosines are all alike), c_j is one of `clusters` random centroids (topics),
 * and S is a per-coordinate power-law spectrum S_i = (1 + i)^(−spectrumDecay / 2), renormalised to mean
 * square 1, that mimics the decaying variance of real embedding coordinates. Queries are fresh draws from the
 * same mixture (not copies of indexed points).
 *
 * Source: the clustered-Gaussian benchmark recipe of the ANN literature (e.g. Jégou et al., "Product
 * quantization for nearest neighbor search", 2011); the shared-mean anisotropy is reported by Ethayarajh,
 * "How contextual are contextualized word representations?" (2019).
 */
import type { Rng } from "../random/rng.ts";
import { SearchError } from "./search-error.ts";

export const DEFAULTS = {
  clusters: 100,
  noise: 0.7,
  meanWeight: 0,
  spectrumDecay: 0,
} as const;

export interface SyntheticEmbeddingOptions {
  /** Number of centroids (topics). Default 100. */
  readonly clusters?: number;
  /** Norm of the gaussian noise relative to a centroid (unit). Default 0.7 (cosine to centroid ≈ 0.8). */
  readonly noise?: number;
  /** Weight of the shared mean direction (0 = isotropic; ~1.5 ≈ sentence encoders). Default 0. */
  readonly meanWeight?: number;
  /** Power-law exponent of the coordinate spectrum (0 = flat). Default 0. */
  readonly spectrumDecay?: number;
}

/** A seeded mixture: call `sample(count)` for row-major unit vectors (count × d). */
export interface SyntheticEmbeddings {
  readonly d: number;
  sample(count: number): Float32Array;
}

/** A standard normal deviate by Box–Muller from a uniform rng. */
export function gaussian(rng: Rng): number {
  let u = rng();
  while (u <= Number.MIN_VALUE) u = rng();
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Builds a seeded mixture of `clusters` topics in dimension d. */
export function syntheticEmbeddings(d: number, rng: Rng, options: SyntheticEmbeddingOptions = {}): SyntheticEmbeddings {
  if (!Number.isInteger(d) || d <= 0)
    throw new SearchError("synthetic-embeddings", "bad-dimension", `d must be a positive integer, got ${d}`);
  const k = options.clusters ?? DEFAULTS.clusters;
  if (!Number.isInteger(k) || k <= 0)
    throw new SearchError("synthetic-embeddings", "bad-clusters", `clusters must be a positive integer, got ${k}`);
  const noise = options.noise ?? DEFAULTS.noise;
  const meanWeight = options.meanWeight ?? DEFAULTS.meanWeight;
  const decay = options.spectrumDecay ?? DEFAULTS.spectrumDecay;

  const spectrum = new Float64Array(d);
  let ms = 0;
  for (let i = 0; i < d; i++) {
    spectrum[i] = (1 + i) ** (-decay / 2);
    ms += spectrum[i]! * spectrum[i]!;
  }
  const fix = Math.sqrt(d / ms);
  for (let i = 0; i < d; i++) spectrum[i]! *= fix;

  const unit = (): Float64Array => {
    const v = new Float64Array(d);
    let s = 0;
    for (let i = 0; i < d; i++) {
      v[i] = gaussian(rng);
      s += v[i]! * v[i]!;
    }
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < d; i++) v[i]! *= inv;
    return v;
  };
  const mean = unit();
  const centroids: Float64Array[] = [];
  for (let j = 0; j < k; j++) centroids.push(unit());

  return {
    d,
    sample(count: number): Float32Array {
      const out = new Float32Array(count * d);
      const x = new Float64Array(d);
      const sd = 1 / Math.sqrt(d);
      for (let r = 0; r < count; r++) {
        const c = centroids[Math.floor(rng() * k)]!;
        let s = 0;
        for (let i = 0; i < d; i++) {
          x[i] = meanWeight * mean[i]! + spectrum[i]! * (c[i]! + noise * sd * gaussian(rng));
          s += x[i]! * x[i]!;
        }
        const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
        for (let i = 0; i < d; i++) out[r * d + i] = x[i]! * inv;
      }
      return out;
    },
  };
}
