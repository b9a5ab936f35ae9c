/**
 * Deterministic feature-hashing embedder (for tests and as a dependency-free fallback).
 *
 * Features of a text: after NFKC + lowercasing, words are maximal runs of letters/digits (\p{L}\p{N});
 * each word w gives the unigram "w:" + w (weight `wordWeight`) and the character trigrams of "#" + w + "#"
 * (weight `trigramWeight` each; a one-letter word "a" gives the single trigram "#a#").
 * Each feature f adds sign(f)·weight to bucket h(f) mod d, where h = FNV-1a 32-bit over UTF-16 code units
 * followed by murmur3's fmix32 finaliser, and sign(f) = +1 if bit 31 of h is 0, else −1. The vector is then
 * L2-normalised. A text with no word (blank, punctuation only) is the zero vector.
 *
 * The signed hash makes the dot product an unbiased estimate of the feature-count dot product
 * (Weinberger et al., "Feature Hashing for Large Scale Multitask Learning", ICML 2009): texts sharing
 * words have a positive expected cosine, unrelated texts ≈ 0. Collisions add noise of order
 * sqrt(features² / d), so with long texts and small d a shared-word pair can (rarely) score ≤ 0.
 * FNV-1a: Fowler, Noll, Vo (IETF draft-eastlake-fnv); fmix32: Appleby, MurmurHash3.
 */
import { EmbeddingError, type EmbeddingProvider, type EmbedOptions, positiveInt, throwIfAborted } from "./provider.ts";
import { l2Normalised } from "./vector.ts";

export interface HashingEmbedderOptions {
  /** Vector length d. Default: DEFAULTS.dimensions (256). */
  readonly dimensions?: number;
  /** Weight of each word unigram. Default: DEFAULTS.wordWeight (1). */
  readonly wordWeight?: number;
  /** Weight of each character trigram. Default: DEFAULTS.trigramWeight (0.5). */
  readonly trigramWeight?: number;
}

export const DEFAULTS = {
  dimensions: 256,
  wordWeight: 1,
  trigramWeight: 0.5,
} as const;

/** FNV-1a 32-bit over the UTF-16 code units of s, as an unsigned integer. */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** MurmurHash3's 32-bit finaliser: spreads every input bit over every output bit. */
export function fmix32(h: number): number {
  let x = h >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The words of a text: NFKC, lowercase, maximal runs of letters and digits. */
export function words(text: string): string[] {
  return (
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Weighted features of a text, in order (a feature may repeat: counts add up). */
export function features(text: string, wordWeight: number, trigramWeight: number): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const w of words(text)) {
    out.push([`w:${w}`, wordWeight]);
    const padded = Array.from(`#${w}#`); // code points, so a trigram never splits a surrogate pair
    for (let i = 0; i + 3 <= padded.length; i++) {
      out.push([`t:${padded[i]}${padded[i + 1]}${padded[i + 2]}`, trigramWeight]);
    }
  }
  return out;
}

/** Embeds one text by signed feature hashing (unnormalised); see the file header for the formula. */
export function hashFeatures(text: string, d: number, wordWeight: number, trigramWeight: number): Float64Array {
  const v = new Float64Array(d);
  for (const [f, weight] of features(text, wordWeight, trigramWeight)) {
    const h = fmix32(fnv1a32(f));
    const sign = h & 0x80000000 ? -1 : 1;
    v[h % d]! += sign * weight;
  }
  return v;
}

export class HashingEmbedder implements EmbeddingProvider {
  readonly model: string;
  readonly dimensions: number;
  readonly #wordWeight: number;
  readonly #trigramWeight: number;

  constructor(options: HashingEmbedderOptions = {}) {
    this.dimensions = positiveInt(options.dimensions ?? DEFAULTS.dimensions, "dimensions", "hash");
    this.#wordWeight = options.wordWeight ?? DEFAULTS.wordWeight;
    this.#trigramWeight = options.trigramWeight ?? DEFAULTS.trigramWeight;
    for (const [name, w] of [
      ["wordWeight", this.#wordWeight],
      ["trigramWeight", this.#trigramWeight],
    ] as const) {
      if (!Number.isFinite(w) || w < 0) {
        throw new EmbeddingError("bad-option", `hash: ${name} must be a finite non-negative number, got ${w}`);
      }
    }
    const weighted = this.#wordWeight !== DEFAULTS.wordWeight || this.#trigramWeight !== DEFAULTS.trigramWeight;
    // The name changes with anything that changes the vectors, so persisted vectors are never mixed up.
    this.model = `hash-v1-${this.dimensions}${weighted ? `-w${this.#wordWeight}-t${this.#trigramWeight}` : ""}`;
  }

  async embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    throwIfAborted(opts.signal, "hash");
    const out = texts.map((t) => l2Normalised(hashFeatures(t, this.dimensions, this.#wordWeight, this.#trigramWeight)));
    if (texts.length > 0) opts.onProgress?.(texts.length, texts.length);
    return out;
  }
}
