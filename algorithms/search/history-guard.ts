/**
 * The history guard: how much a query may lean on what the project learned from its past requests. The
 * history channels of search — the intent memory's votes and the no-context graph signal (PageRank and
 * successful use) — are weighted by a trust that rises with the query's similarity to the past intents:
 *
 *   t      = clamp((s − low) / (high − low), 0, 1)
 *   ramp   = t²·(3 − 2t)                                   (smoothstep)
 *   trust  = 1 − γ·(1 − ramp)                              (γ ∈ [0, 1]: the guard's strength)
 *   μ'     = trust·μ,   graph'(u) = trust·w_g·global(u)     (hybrid-rank.ts)
 *
 * s ∈ [0, 1] is the best fused similarity of the query to a past intent of the project (the intent memory's
 * nearest neighbour: 0.5·cos⁺ + 0.5·BM25/max(best, ideal), memory/fuse-similarity.ts); s undefined means the
 * project has no past intents at all, and then trust = 1 (nothing learned to guard against: the answer is
 * exactly the unguarded one). A repeated request (s ≥ high) uses its history in full; a request unlike any past
 * one (s ≤ low) is answered by the descriptions (content channel) and the catalog alone; in between the
 * history's weight grows smoothly, so a small change of wording never flips the ranking at a threshold.
 * The graph term against explicit context tools (Adamic–Adar) is not guarded: the caller named those tools.
 * The strength γ is 1 by default (the full guard); a project's fit may lower it when its own history helps
 * the requests it has not seen (grouped validation on unseen intents, fit-fusion-weights.ts) — where the
 * descriptions carry little (ToolLinkOS: the catalog alone 0.20 mAP@10), the memory of merely related
 * requests is still the better evidence.
 *
 * Why: fitted and default weights are learned on the project's history; when a narrow history (a few intents
 * repeated many times, as a gateway's traffic is) meets an intent it never saw, the popular tools' memory
 * votes and graph signal outweigh the description that matches — learning then makes search worse than the
 * catalog alone. Constants and measurements: docs/decisions/history-guard.md.
 *
 * Invariants: trust ∈ [1 − γ, 1]; trust = 1 − γ for s ≤ low, 1 for s ≥ high; non-decreasing and continuous
 * in s (C¹: zero slope at both ends); non-increasing in γ; γ = 0 → trust 1 (no guard).
 *
 * Source: the smoothstep ramp (Hermite interpolation, t²(3 − 2t)); gating a learned signal by the query's
 * distance to the training data follows the idea of applicability domains / out-of-distribution abstention
 * (Sun, Ming, Zhu & Li, "Out-of-distribution detection with deep nearest neighbors", ICML 2022: the nearest
 * training neighbour's similarity as the novelty score).
 */
import { SearchError } from "./search-error.ts";

export const DEFAULTS = {
  /** Similarity at and below which the history gets no weight. */
  low: 0.4,
  /** Similarity at and above which the history gets its full weight. */
  high: 0.9,
} as const;

export interface HistoryGuardOptions {
  /** Similarity at and below which trust = 1 − γ. Default 0.4. */
  readonly low?: number;
  /** Similarity at and above which trust = 1. Default 0.9. */
  readonly high?: number;
  /** The guard's strength γ ∈ [0, 1]: 1 (default) the full guard, 0 none. */
  readonly strength?: number;
}

const MODULE = "history-guard";

/** The trust in the history for a query whose best similarity to a past intent is `similarity` (see the header). */
export function historyTrust(similarity: number | undefined, options: HistoryGuardOptions = {}): number {
  const low = options.low ?? DEFAULTS.low;
  const high = options.high ?? DEFAULTS.high;
  if (!(low >= 0 && high <= 1 && low < high))
    throw new SearchError(MODULE, "bad-option", `need 0 ≤ low < high ≤ 1, got low ${low}, high ${high}`);
  const strength = options.strength ?? 1;
  if (!(strength >= 0 && strength <= 1))
    throw new SearchError(MODULE, "bad-option", `strength must be in [0, 1], got ${strength}`);
  if (similarity === undefined) return 1;
  if (!(similarity >= 0 && similarity <= 1 + 1e-9))
    throw new SearchError(MODULE, "bad-score", `similarity must be in [0, 1], got ${similarity}`);
  const t = Math.min(1, Math.max(0, (similarity - low) / (high - low)));
  return 1 - strength * (1 - t * t * (3 - 2 * t));
}
