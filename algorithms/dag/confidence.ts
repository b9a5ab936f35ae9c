/**
 * Confidence of a DAG answer and of a plan (the answer's confidence is what the gate compares with its
 * threshold, docs/decisions/gate-thresholds.md), and which dependencies are required.
 *
 *   dagConfidence   = 1 for one tool or none; 0 for several tools with no kept edge; else the mean
 *                     strength of the kept edges
 *   planConfidence  = mean score of the plan's main tools; 0 without one
 *   inMainBand      = score ≥ band · top score (band 0.95): the search results planned around
 *   requiredPrerequisite(u → v) = declared, or v read u's output in ≥ max(1, ½ · executions(v)) runs (a tool
 *                     with alternative predecessors does not require each of them)
 *
 * Invariants: confidences ∈ [0,1] when strengths and scores are; no division by zero.
 * Pure: the caller passes the counts and scores.
 */

export const DEFAULTS = {
  /** Search results within this share of the top score are a plan's main tools. */
  mainBand: 0.95,
  /** Share of v's runs that must read u's output for u → v to be required. */
  requiredShare: 0.5,
} as const;

export function dagConfidence(nodeCount: number, edgeStrengths: readonly number[]): number {
  if (nodeCount <= 1) return 1;
  if (edgeStrengths.length === 0) return 0;
  let t = 0;
  for (const x of edgeStrengths) t += x;
  return t / edgeStrengths.length;
}

export function planConfidence(mainScores: readonly number[]): number {
  if (mainScores.length === 0) return 0;
  let t = 0;
  for (const x of mainScores) t += x;
  return t / mainScores.length;
}

export function inMainBand(score: number, topScore: number, band: number = DEFAULTS.mainBand): boolean {
  return score >= band * topScore;
}

export function requiredPrerequisite(
  declared: boolean,
  dependencyCount: number,
  executions: number,
  share: number = DEFAULTS.requiredShare,
): boolean {
  return declared || dependencyCount >= Math.max(1, share * executions);
}
