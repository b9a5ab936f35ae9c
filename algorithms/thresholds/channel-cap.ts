/**
 * A gate decision capped by the channels that were live when the answer was ranked: an answer ranked without
 * the embedding channel (the catalog's embeddings still being computed, so only BM25 and the graph scored it)
 * is never `accepted` outright. An accepted tier becomes `accepted-with-caution` (confidence at most "medium",
 * caution set) with the reason; caution and abstention pass unchanged, and so does every answer ranked with
 * every channel.
 *
 *   cap(tier, live) = tier                                                    if live.embedding or tier ≠ accepted
 *                   = { tier with decision accepted-with-caution, confidence medium, caution true, reason }   otherwise
 *
 * Why a cap and not a lower score: the thresholds were calibrated on hybrid scores; a lexical-only score is on
 * another scale, and what changes is how far the caller may trust the answer until the full ranking is back
 * (docs/decisions/lexical-while-embedding.md, algorithms/README.md "Gate"). Invariants: pure; never raises a decision; idempotent; a tier
 * already capped (by safety-cap.ts) keeps its reason.
 */
import type { GateTier } from "./gate-decision.ts";
import { type CappedTier, capAccepted } from "./safety-cap.ts";

/** Which ranking channels scored an answer. */
export interface LiveChannels {
  lexical: boolean;
  embedding: boolean;
  graph: boolean;
}

export const LEXICAL_ONLY_REASON =
  "never accepted outright: ranked by the lexical and graph channels only, the tools' embeddings are still being computed";

export function capForChannels<T extends Pick<GateTier, "decision" | "confidence" | "caution">>(
  tier: T,
  live: LiveChannels,
): CappedTier<T> {
  return live.embedding ? tier : capAccepted(tier, LEXICAL_ONLY_REASON);
}
