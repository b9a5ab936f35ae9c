/**
 * The semantic side of a capability match: the capability's own texts, lifted by the search score of its most
 * distinctive member tool and by the intent memory's capability votes, each as a noisy-OR lift (noisy-or.ts):
 *
 *   semantic = lift(lift(content, w_t, toolEvidence), w_m·τ, vote)
 *            = 1 − (1 − content)(1 − w_t·toolEvidence)(1 − w_m·τ·vote)
 *
 * content ∈ [0, 1] is the fused cosine + BM25 of the capability texts (fusion.ts), toolEvidence ∈ [0, 1] the
 * search score of the member shared by the fewest capabilities, vote ∈ [0, 1] the capability's vote from similar
 * past requests, τ ∈ [0, 1] the history guard's trust (history-guard.ts) from the query's best similarity to a
 * past request. w_t = w_m = 0.8 (docs/decisions/capability-scoring.md).
 *
 * Why τ: the memory's votes come from past requests that are only as close to this one as their similarity
 * says; search weighs its tool votes by τ, and the capability votes, the same memory's, are weighed the same
 * way (docs/decisions/history-guard.md, "capability match"). A request unlike every past one (τ = 0 under the
 * full guard) is matched by the texts and the tool evidence alone.
 *
 * Invariants: semantic ∈ [content, 1] (up to one rounding of 1 − (1 − content)); non-decreasing in content, toolEvidence, vote and τ; τ = 0 or vote = 0 →
 * the vote has no effect (bit for bit); τ = 1 → exactly the unguarded lift (w_m·1 = w_m, bit for bit).
 */
import { noisyOr } from "../memory/noisy-or.ts";
import { SearchError } from "./search-error.ts";

export const DEFAULTS = {
  /** Weight w_m of the intent memory's capability votes. */
  memoryWeight: 0.8,
  /** Weight w_t of the tool evidence (search score of the capability's most distinctive member). */
  toolWeight: 0.8,
} as const;

export interface CapabilityEvidence {
  /** Fused cosine + BM25 of the capability texts, in [0, 1]. */
  readonly content: number;
  /** Search score of the capability's most distinctive member, in [0, 1] (0: none). */
  readonly toolEvidence: number;
  /** The intent memory's vote for the capability, in [0, 1] (0: none). */
  readonly vote: number;
  /** The history guard's trust in the memory, in [0, 1]. */
  readonly trust: number;
}

const MODULE = "capability-evidence";

/** The capability's semantic score from its evidence (see the header). */
export function capabilitySemantic(e: CapabilityEvidence): number {
  if (!(e.trust >= 0 && e.trust <= 1))
    throw new SearchError(MODULE, "bad-trust", `trust must be in [0, 1], got ${e.trust}`);
  const lifted = noisyOr(e.content, DEFAULTS.toolWeight, e.toolEvidence);
  return e.trust > 0 ? noisyOr(lifted, DEFAULTS.memoryWeight * e.trust, e.vote) : lifted;
}
