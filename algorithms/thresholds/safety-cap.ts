/**
 * A gate decision capped by the tool's safety tags: a tool tagged `suspicious` (its description reads like
 * instructions to the model: algorithms/safety/instruction-like.ts) is never `accepted`. An accepted tier
 * becomes `accepted-with-caution` (confidence at most "medium", caution set) with the reason; caution and
 * abstention pass unchanged, and so does every tool without the tag.
 *
 *   cap(tier, tags) = tier                                                   if "suspicious" ∉ tags or tier ≠ accepted
 *                   = { tier with decision accepted-with-caution, confidence medium, caution true, reason }   otherwise
 *
 * Why a cap and not a penalty on the score: the score ranks by relevance, which a steering description can
 * still have; what the tag changes is how far the caller may trust the answer (docs/decisions/gateway-trust.md).
 * Invariants: pure; never raises a decision; idempotent.
 */
import type { GateTier } from "./gate-decision.ts";

export const SUSPICIOUS_TAG = "suspicious";
export const SUSPICIOUS_REASON =
  "never accepted outright: the tool's description reads like instructions to the model (safety tag suspicious)";

export type CappedTier<T extends Pick<GateTier, "decision" | "confidence" | "caution">> = T | (T & { reason: string });

export function capForSafety<T extends Pick<GateTier, "decision" | "confidence" | "caution">>(
  tier: T,
  safetyTags: readonly string[],
): CappedTier<T> {
  return safetyTags.includes(SUSPICIOUS_TAG) ? capAccepted(tier, SUSPICIOUS_REASON) : tier;
}

/** The cap itself: an accepted tier becomes accepted-with-caution (confidence at most medium) with `reason`; others pass. */
export function capAccepted<T extends Pick<GateTier, "decision" | "confidence" | "caution">>(
  tier: T,
  reason: string,
): CappedTier<T> {
  if (tier.decision !== "accepted") return tier;
  return {
    ...tier,
    decision: "accepted-with-caution",
    confidence: tier.confidence === "high" ? "medium" : tier.confidence,
    caution: true,
    reason,
  };
}
