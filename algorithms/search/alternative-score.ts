/**
 * Score of a substitute for a failed or unavailable tool (retry with an alternate tool; the
 * weights are this project's documented choice, see src/jobs/alternatives.ts):
 *
 *   score = 0.5·clamp01(cos(tool, candidate)) + 0.2·[same Louvain community] + 0.2·[share a capability]
 *           + 0.1·schema,   schema = |P_tool ∩ P_cand| / |P_tool ∪ P_cand| (Jaccard of input parameter
 *                           names; 0 when both have none)
 *
 * Invariants: score ∈ [0,1]; non-decreasing in each term; a candidate with no evidence scores 0.
 * Pure: no I/O, no clock.
 */

export interface AlternativeEvidence {
  cosine: number;
  sameCommunity: boolean;
  sharesCapability: boolean;
  /** Schema compatibility in [0,1] (schemaJaccard). */
  schema: number;
}

export function alternativeScore(e: AlternativeEvidence): number {
  return (
    0.5 * Math.max(0, Math.min(1, e.cosine)) +
    0.2 * (e.sameCommunity ? 1 : 0) +
    0.2 * (e.sharesCapability ? 1 : 0) +
    0.1 * e.schema
  );
}

/** Jaccard of two parameter-name sets; 0 when both are empty. */
export function schemaJaccard(mine: ReadonlySet<string>, theirs: ReadonlySet<string>): number {
  const union = new Set([...mine, ...theirs]);
  return union.size === 0 ? 0 : [...mine].filter((p) => theirs.has(p)).length / union.size;
}
