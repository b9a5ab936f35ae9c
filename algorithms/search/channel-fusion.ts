/**
 * The content and intent-memory channels combined into one semantic score, each with its own weight:
 *
 *   semantic'(u) = 1 − (1 − w_c·content(u))(1 − μ·vote(u))      (vote > 0)
 *                = w_c·content(u)                               (no vote)
 *
 * content ∈ [0, 1] is the fused text score (fusion.ts: β·cos⁺ + (1 − β)·BM25ⁿ), vote ∈ [0, 1] the intent
 * memory's vote for the tool, w_c ∈ [0, 1] the weight of the content channel and μ ∈ [0, 1] the weight of the
 * memory channel; both are fitted per project (fit-fusion-weights.ts). The combination can reproduce each
 * channel alone, which the plain lift `1 − (1 − content)(1 − μ·vote)` cannot (it never turns content down):
 *
 *   w_c = 1          → the memory lift of memory/noisy-or.ts, bit for bit (today's default);
 *   μ = 0 (or no vote) → w_c·content: the content channel's order;
 *   w_c = 0, μ > 0   → μ·vote: the memory channel's order (vote desc).
 *
 * Invariants: semantic' ∈ [0, 1]; semantic' ≥ w_c·content and ≥ μ·vote; non-decreasing in each of content,
 * vote, w_c and μ.
 *
 * Source: noisy-OR combination of independent evidence (Pearl, Probabilistic Reasoning in Intelligent Systems,
 * 1988, §4.3.2) with a weight (a "link probability") on each cause, as in the leaky noisy-OR (Henrion, 1989).
 */
import { noisyOr } from "../memory/noisy-or.ts";

export const DEFAULTS = {
  /** Weight of the content channel: 1 keeps the plain memory lift. */
  contentWeight: 1,
  /**
   * Lowest content weight a fitted setting may hold: descriptions always count, so a tool nobody has used yet
   * can still be found (docs/decisions/search-weight-fitting.md).
   */
  contentFloor: 0.5,
} as const;

/** 1 − (1 − contentWeight·content)(1 − memoryWeight·vote); contentWeight·content without a vote. */
export function fuseChannels(
  content: number,
  contentWeight: number,
  vote: number | undefined,
  memoryWeight: number,
): number {
  return noisyOr(contentWeight * content, memoryWeight, vote);
}
