/**
 * Hybrid tool score: semantic relevance mixed with graph evidence by the local α.
 *
 *   final = α · semantic + (1 − α) · graphChannel
 *   graphChannel = semantic ⊕ graph = 1 − (1 − semantic)(1 − graph)            (combine = "lift", default)
 *   ⇔ final = semantic + (1 − α) · (1 − semantic) · graph
 *   graph  = Adamic–Adar score against the context tools   when the context is non-empty,
 *          = global[id] (caller's per-node signal in [0,1], e.g. normalised PageRank or success-weighted
 *            usage; 0 for a tool without history)            when there is no context.
 *
 * Why "lift" and not the literal convex mix with graph as the channel (`combine: "convex"`, kept for
 * ablation): with the convex mix a tool with history (α < 1) and a weak graph value scores
 * α·s + (1 − α)·g < s whenever g < s, so it ranks below an identical-text tool that was never run (α = 1,
 * score s): e.g. s = 0.9, g = 0.2, α = 0.5 → 0.55 < 0.9. That is the reference implementation's defect.
 * With "lift" the graph channel is the probabilistic OR of text and structure: graph evidence only ever
 * adds, final ∈ [semantic, 1], final is non-decreasing in semantic and in graph, and final = semantic when
 * α = 1 or graph = 0. So a tool with history never ranks below an identical-text tool without one.
 * Ranking ties are broken by graph (more evidence first), then semantic, then id ascending.
 *
 * Source: docs/decisions/hybrid-alpha.md (formula and local α); the OR combination is the noisy-OR of Pearl,
 * "Probabilistic reasoning in intelligent systems" (1988), §4.3.
 */
import { SearchError } from "./search-error.ts";

export type HybridCombine = "lift" | "convex";

export const DEFAULTS = {
  combine: "lift" as HybridCombine,
};

export interface HybridOptions {
  /** "lift" (default): graph channel = semantic ⊕ graph. "convex": graph channel = graph (the plain mix). */
  readonly combine?: HybridCombine;
}

export interface HybridCandidate {
  readonly id: number;
  /** Fused semantic score in [0, 1]. */
  readonly semantic: number;
  /** Local α in [0.5, 1] (any value in [0, 1] is accepted). */
  readonly alpha: number;
  /** Graph evidence in [0, 1]: contextual score or the global fallback (see `graphEvidence`). */
  readonly graph: number;
}

export interface HybridHit extends HybridCandidate {
  /** The final score in [0, 1]. */
  readonly final: number;
}

const MODULE = "hybrid-score";

function check01(what: string, x: number): void {
  if (!(x >= 0 && x <= 1)) throw new SearchError(MODULE, "bad-score", `${what} must be in [0, 1], got ${x}`);
}

/** The final score of one candidate (see the header). */
export function hybridScore(semantic: number, graph: number, alpha: number, options: HybridOptions = {}): number {
  check01("semantic", semantic);
  check01("graph", graph);
  check01("alpha", alpha);
  const combine = options.combine ?? DEFAULTS.combine;
  // The lift form is evaluated as s + (1 − α)(1 − s)·g (algebraically equal to α·s + (1 − α)(s ⊕ g)), so that
  // adding a non-negative term keeps final ≥ s exactly in floating point.
  const f =
    combine === "lift" ? semantic + (1 - alpha) * (1 - semantic) * graph : alpha * semantic + (1 - alpha) * graph;
  return Math.min(1, Math.max(0, f));
}

/**
 * The graph term for a candidate: its contextual score when the context is non-empty, else the global
 * fallback signal (0 when the id is beyond the array, i.e. a tool without history).
 */
export function graphEvidence(
  id: number,
  hasContext: boolean,
  contextScore: (id: number) => number,
  global: ArrayLike<number> | undefined,
): number {
  const g = hasContext ? contextScore(id) : (global?.[id] ?? 0);
  check01(`graph evidence of ${id}`, g);
  return g;
}

/** Scores and ranks candidates: final desc, then graph desc, then semantic desc, then id asc. */
export function rankHybrid(candidates: readonly HybridCandidate[], options: HybridOptions = {}): HybridHit[] {
  const out = candidates.map((c) => ({ ...c, final: hybridScore(c.semantic, c.graph, c.alpha, options) }));
  return out.sort((a, b) => {
    if (a.final !== b.final) return b.final - a.final;
    if (a.graph !== b.graph) return b.graph - a.graph;
    if (a.semantic !== b.semantic) return b.semantic - a.semantic;
    return a.id - b.id;
  });
}
