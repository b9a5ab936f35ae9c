/**
 * Fusion of the embedding channel (cosine) and the lexical channel (BM25) into one `semantic` score in [0, 1].
 *
 *   cos⁺(c)    = clamp(cosine(c), 0, 1)                                  (absolute scale kept)
 *   bm25ⁿ(c)   = bm25(c) / max(max_{c'} bm25(c'), ideal(Q))              (per-query max-normalised, floored)
 *   semantic   = β · cos⁺ + (1 − β) · bm25ⁿ                              β = 0.7 by default
 *
 * Choice: a convex combination, not rank fusion, because the result is later compared with absolute
 * thresholds (the adaptive gate) and mixed with graph scores, so it must keep the cosine's absolute meaning.
 * BM25 has no absolute scale, so it is max-normalised per query, but with a floor: ideal(Q) is the score of
 * an average-length document containing every query term once (`bm25IdealScore`), so a query whose best
 * lexical hit only matches one weak term does not hand that hit a full 1.0. Both parts lie in [0, 1], hence
 * so does the convex combination (clamped once more against rounding).
 *
 * Candidates are the union of both channels' lists (pass a generous top-N of each; nothing is cut before
 * fusion). A candidate missing from a channel gets that channel's value from `cosineOf` / `bm25Of` when
 * given, else 0 (a document outside BM25's list shares no query term when the list was complete).
 * Output: score descending, then id ascending. Deterministic.
 *
 * Source: convex combination of normalised scores (Fox & Shaw, "Combination of multiple searches", TREC-2,
 * 1994, CombSUM; Bruch, Gai & Ingber, "An analysis of fusion functions for hybrid retrieval", TOIS 2023,
 * which finds a tuned convex combination at least as good as reciprocal rank fusion).
 */
import { SearchError } from "./search-error.ts";
import type { ScoredId } from "./top-k.ts";

export const DEFAULTS = {
  beta: 0.7,
} as const;

export interface FusionOptions {
  /** Weight of the cosine channel, in [0, 1]. Default 0.7. */
  readonly beta?: number;
  /** bm25IdealScore of the query: the normalisation floor. Default 0 (plain max-normalisation). */
  readonly bm25Ideal?: number;
  /** Cosine of a candidate absent from the cosine list. Default: 0. */
  readonly cosineOf?: (id: number) => number;
  /** BM25 score of a candidate absent from the BM25 list. Default: 0. */
  readonly bm25Of?: (id: number) => number;
  /**
   * Sort the output (score descending, then id ascending). Default true; false returns the candidates in
   * first-seen order (cosine list, then BM25-only ids), for a caller that ranks them again by its own order.
   */
  readonly sorted?: boolean;
}

export interface FusedHit {
  readonly id: number;
  /** The fused score in [0, 1]. */
  readonly semantic: number;
  /** Raw cosine (before clamping). */
  readonly cosine: number;
  /** Raw BM25 score. */
  readonly bm25: number;
  /** Normalised BM25 in [0, 1]. */
  readonly bm25Norm: number;
}

const MODULE = "fusion";

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

function checkFinite(what: string, id: number, x: number): void {
  if (!Number.isFinite(x))
    throw new SearchError(MODULE, "bad-score", `${what} of candidate ${id} is ${x}, not a finite number`);
}

/**
 * The fused score of one candidate from its raw cosine and its normalised BM25: clamp(β·cos⁺ + (1 − β)·bm25ⁿ).
 * A candidate that only the intent memory brought (no query term) is `fusedSemantic(cosine, 0, β)` = β·cos⁺.
 */
export function fusedSemantic(cosine: number, bm25Norm: number, beta: number): number {
  return clamp01(beta * clamp01(cosine) + (1 - beta) * bm25Norm);
}

/** Fuses the two channels; see the header for the formula. */
export function fuseScores(
  cosineHits: readonly ScoredId[],
  bm25Hits: readonly ScoredId[],
  options: FusionOptions = {},
): FusedHit[] {
  const beta = options.beta ?? DEFAULTS.beta;
  if (!(beta >= 0 && beta <= 1)) throw new SearchError(MODULE, "bad-beta", `beta must be in [0, 1], got ${beta}`);
  const ideal = options.bm25Ideal ?? 0;
  if (!(ideal >= 0) || !Number.isFinite(ideal))
    throw new SearchError(MODULE, "bad-ideal", `bm25Ideal must be finite and ≥ 0, got ${ideal}`);

  // One slot per distinct candidate (cosine list first, then BM25-only ids), in first-seen order.
  const cap = cosineHits.length + bm25Hits.length;
  const slot = new Map<number, number>();
  const ids = new Float64Array(cap);
  const cosines = new Float64Array(cap);
  const lexes = new Float64Array(cap);
  // Bit 1: the cosine list gave a value; bit 2: the BM25 list did.
  const has = new Uint8Array(cap);
  let count = 0;
  const slotOf = (id: number): number => {
    let k = slot.get(id);
    if (k === undefined) {
      k = count++;
      slot.set(id, k);
      ids[k] = id;
    }
    return k;
  };
  for (const h of cosineHits) {
    checkFinite("cosine", h.id, h.score);
    const k = slotOf(h.id);
    cosines[k] = h.score;
    has[k] = has[k]! | 1;
  }
  for (const h of bm25Hits) {
    checkFinite("bm25", h.id, h.score);
    if (h.score < 0) throw new SearchError(MODULE, "bad-score", `bm25 of candidate ${h.id} is ${h.score} < 0`);
    const k = slotOf(h.id);
    lexes[k] = h.score;
    has[k] = has[k]! | 2;
  }
  let maxBm25 = 0;
  for (let k = 0; k < count; k++) {
    const id = ids[k]!;
    const c = has[k]! & 1 ? cosines[k]! : (options.cosineOf?.(id) ?? 0);
    const l = has[k]! & 2 ? lexes[k]! : (options.bm25Of?.(id) ?? 0);
    checkFinite("cosine", id, c);
    checkFinite("bm25", id, l);
    if (l < 0) throw new SearchError(MODULE, "bad-score", `bm25 of candidate ${id} is ${l} < 0`);
    cosines[k] = c;
    lexes[k] = l;
    if (l > maxBm25) maxBm25 = l;
  }
  const denom = Math.max(maxBm25, ideal);
  const out: FusedHit[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const c = cosines[k]!;
    const l = lexes[k]!;
    const bm25Norm = denom > 0 ? clamp01(l / denom) : 0;
    const semantic = fusedSemantic(c, bm25Norm, beta);
    out[k] = { id: ids[k]!, semantic, cosine: c, bm25: l, bm25Norm };
  }
  if (options.sorted === false) return out;
  return out.sort((a, b) => (a.semantic !== b.semantic ? b.semantic - a.semantic : a.id - b.id));
}
