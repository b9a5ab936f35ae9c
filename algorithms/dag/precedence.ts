/**
 * Observed precedence of a pair of tools: how often A ran before B against B before A, shrunk to
 * "either order" when the evidence is thin.
 *
 *   share(A before B) = (n(A→B) + w/2) / (n(A→B) + n(B→A) + w)           w = priorWeight (2)
 *   order weight(A→B)  = strength(A→B) × share(A before B)               (what cycle breaking compares)
 *
 * n(A→B) counts A observed before B (the caller's counts: the project's learned successions — sequence,
 * dependency and contains observations of the directed edge A→B). The shrinkage is a Beta(w/2, w/2) prior on
 * the probability that A comes first: with no observation the share is ½ and the weight is the path
 * strength unchanged; a pair of flight-booking tools observed 50 times one way and 10 the other gives
 * 51/62 = 0.823 against 11/62 = 0.177, so of two saturated (strength 1) edges the rarely observed direction is
 * dropped, whatever the order or index of the tools (measurements: algorithms/README.md, "DAG"). Path costs
 * stay the edge-quality weights (docs/decisions/edge-quality.md, infer-dependencies.ts); only the choice of
 * which edge of a cycle to drop uses the order weight.
 *
 * Invariants: share(A,B) + share(B,A) = 1; share ∈ (0, 1) when w > 0; share = ½ when n(A→B) = n(B→A);
 * monotone in n(A→B). w chosen on training traces only (a time split of the NESTFUL and ToolLinkOS training
 * traces, bench/accuracy.ts "precedence prior" note in algorithms/README.md): see DEFAULTS.
 */

import { DagError } from "./dag-error.ts";

const MODULE = "dag/precedence";

export const DEFAULTS = {
  /** Pseudo-observations of the "either order" prior (Beta(1, 1)). */
  priorWeight: 2,
} as const;

/** share(A before B) of the header from the two directed counts. */
export function precedenceShare(before: number, after: number, priorWeight: number = DEFAULTS.priorWeight): number {
  if (!(before >= 0) || !(after >= 0) || !Number.isFinite(before) || !Number.isFinite(after)) {
    throw new DagError(MODULE, "bad-count", `precedence counts must be finite and >= 0, got ${before} and ${after}`);
  }
  if (!(priorWeight >= 0) || !Number.isFinite(priorWeight)) {
    throw new DagError(MODULE, "bad-prior", `priorWeight must be finite and >= 0, got ${priorWeight}`);
  }
  const d = before + after + priorWeight;
  return d === 0 ? 0.5 : (before + priorWeight / 2) / d;
}

/** Counts behind an oriented edge, kept on the edge for its explanation. */
export interface Precedence {
  /** Times `from` was observed before `to`. */
  readonly before: number;
  /** Times `to` was observed before `from`. */
  readonly after: number;
  /** share(from before to). */
  readonly share: number;
}
