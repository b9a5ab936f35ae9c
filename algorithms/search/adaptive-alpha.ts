/**
 * Local adaptive α per candidate (docs/decisions/hybrid-alpha.md): the weight of the semantic score in
 * final = α · semantic + (1 − α) · graph, always in [0.5, 1] (0.5 = the α floor: text never weighs less
 * than the graph).
 *
 * (b) Active search, structural estimate from embedding/graph coherence:
 *       S = the tool's k nearest tools by embedding (caller-supplied ids, the tool itself ignored)
 *       G = its undirected graph neighbours with edge qualities w(u,·)
 *       coherence = Σ_{s ∈ S ∩ G} w(u,s) / |S|     ∈ [0, 1]   (weighted share of semantic neighbours the
 *                                                               graph confirms; 0 when S is empty)
 *       α_est = 1 − 0.5 · coherence     (coherent neighbourhoods → the graph is trustworthy → α toward 0.5)
 *     Dividing by |S| rather than |S ∪ G| (Jaccard) keeps hubs from being penalised for having many
 *     neighbours, and keeps a tool with one lucky neighbour from reaching full coherence.
 *
 * (c) Passive suggestion, heat diffusion from the context tools on the undirected weighted graph:
 *       h_0 = indicator of the context set;  h_{t+1}(i) = (1 − τ) h_t(i) + τ · Σ_j w(i,j) h_t(j) / Σ_j w(i,j)
 *     (an isolated node keeps its heat; each step is a convex combination, so h stays in [0, 1]);
 *       heat(i) = min(1, h_T(i) / max_{j ∉ context} h_T(j))   (1 for context tools, 0 if nothing warmed up)
 *       α_est = 1 − 0.5 · heat(candidate)
 *     Defaults: T = 3 steps, τ = 0.5. Normalising by the warmest non-context node makes the nearest
 *     candidates reach α = 0.5 whatever the graph's degree scale.
 *
 * (a) Cold start, fewer than `coldStartObservations` (5) observed executions of the tool: a Bayesian shrink
 *     of the mode's estimate toward the prior α₀ = 1.0 with prior strength k (pseudo-observations):
 *       α = (n · α_est + k · 1.0) / (n + k)
 *     n = 0 gives exactly 1.0 (a tool never run is judged on its text alone). Default k = 1, so the jump at
 *     n = 5 is at most (1 − α_est) · k / (5 + k) ≤ 0.083.
 *
 * Source: docs/decisions/hybrid-alpha.md (three regimes); heat kernel diffusion as in Kondor & Lafferty,
 * "Diffusion kernels on graphs" (2002), here its lazy random-walk discretisation; Beta-prior shrinkage of a
 * rate toward a prior mean (Gelman et al., Bayesian Data Analysis, §2.4).
 */
import type { Csr } from "../graph/csr.ts";
import { undirectedNeighbors } from "../graph/csr.ts";
import { SearchError } from "./search-error.ts";

export const DEFAULTS = {
  coldStartObservations: 5,
  priorStrength: 1,
  priorAlpha: 1,
  alphaFloor: 0.5,
  heatSteps: 3,
  heatTau: 0.5,
} as const;

export type AlphaRegime = "cold-start" | "active-coherence" | "passive-heat";

export interface AdaptiveAlphaOptions {
  /** Below this many observed executions the cold-start shrink applies. Default 5. */
  readonly coldStartObservations?: number;
  /** Prior strength k (pseudo-observations at α = 1). Default 1. */
  readonly priorStrength?: number;
}

export interface HeatOptions {
  /** Diffusion steps T. Default 3. */
  readonly steps?: number;
  /** Step size τ in [0, 1]. Default 0.5. */
  readonly tau?: number;
}

export interface HeatField {
  /** Normalised heat per node, in [0, 1]. */
  readonly heat: Float64Array;
  /** Raw h_T per node. */
  readonly raw: Float64Array;
  /** max_{j ∉ context} h_T(j), the normaliser (0 when nothing warmed up). */
  readonly maxOutside: number;
}

export interface CoherenceResult {
  /** In [0, 1]. */
  readonly coherence: number;
  /** Semantic neighbours that are also graph neighbours (ascending id). */
  readonly shared: readonly number[];
  /** |S| after removing the tool itself and duplicates. */
  readonly semanticCount: number;
}

export type LocalAlphaInput =
  | {
      readonly mode: "active";
      readonly graph: Csr;
      readonly node: number;
      /** Observed executions of the tool. */
      readonly observations: number;
      /** The tool's k nearest tools by embedding (ids). */
      readonly semanticNeighbors: readonly number[];
    }
  | {
      readonly mode: "passive";
      readonly node: number;
      readonly observations: number;
      /** From `heatField(graph, context)`, computed once per query. */
      readonly heat: HeatField;
    };

export interface AlphaResult {
  /** In [0.5, 1]. */
  readonly alpha: number;
  readonly regime: AlphaRegime;
  readonly details: {
    readonly observations: number;
    /** The mode's structural estimate α_est before any shrink. */
    readonly estimate: number;
    /** Which estimate was used ("active-coherence" or "passive-heat"). */
    readonly estimateFrom: Exclude<AlphaRegime, "cold-start">;
    readonly coherence?: CoherenceResult;
    readonly heat?: number;
    /** k, present in the cold-start regime. */
    readonly priorStrength?: number;
  };
}

const MODULE = "adaptive-alpha";

function checkNode(n: number, x: number, what: string): void {
  if (!Number.isInteger(x) || x < 0 || x >= n)
    throw new SearchError(MODULE, "bad-node", `${what} ${x} is outside 0..${n - 1}`);
}

function checkObservations(n: number): void {
  if (!Number.isFinite(n) || n < 0)
    throw new SearchError(MODULE, "bad-observations", `observations must be finite and ≥ 0, got ${n}`);
}

function clampAlpha(a: number): number {
  return Math.min(1, Math.max(DEFAULTS.alphaFloor, a));
}

/** (a) α = (n·α_est + k·1)/(n + k). */
export function coldStartAlpha(
  observations: number,
  estimate: number,
  priorStrength: number = DEFAULTS.priorStrength,
): number {
  checkObservations(observations);
  if (!Number.isFinite(priorStrength) || priorStrength <= 0) {
    throw new SearchError(MODULE, "bad-prior-strength", `priorStrength must be finite and > 0, got ${priorStrength}`);
  }
  if (!Number.isFinite(estimate))
    throw new SearchError(MODULE, "bad-estimate", `estimate must be finite, got ${estimate}`);
  return clampAlpha((observations * estimate + priorStrength * DEFAULTS.priorAlpha) / (observations + priorStrength));
}

/** (b) Weighted share of the semantic neighbourhood confirmed by the graph neighbourhood. */
export function neighborhoodCoherence(g: Csr, node: number, semanticNeighbors: readonly number[]): CoherenceResult {
  checkNode(g.n, node, "node");
  const s = new Set<number>();
  for (const x of semanticNeighbors) {
    checkNode(g.n, x, "semantic neighbour");
    if (x !== node) s.add(x);
  }
  if (s.size === 0) return { coherence: 0, shared: [], semanticCount: 0 };
  const { ids, weights } = undirectedNeighbors(g, node);
  let sum = 0;
  const shared: number[] = [];
  for (let k = 0; k < ids.length; k++) {
    if (s.has(ids[k]!)) {
      sum += weights[k]!;
      shared.push(ids[k]!);
    }
  }
  return { coherence: Math.min(1, sum / s.size), shared, semanticCount: s.size };
}

/** (c) Heat diffused from the context set, normalised (see the header). O(T · (n + m)). */
export function heatField(g: Csr, context: readonly number[], options: HeatOptions = {}): HeatField {
  const steps = options.steps ?? DEFAULTS.heatSteps;
  const tau = options.tau ?? DEFAULTS.heatTau;
  if (!Number.isInteger(steps) || steps < 0)
    throw new SearchError(MODULE, "bad-steps", `steps must be a non-negative integer, got ${steps}`);
  if (!(tau >= 0 && tau <= 1)) throw new SearchError(MODULE, "bad-tau", `tau must be in [0, 1], got ${tau}`);
  const n = g.n;
  const inContext = new Uint8Array(n);
  for (const v of context) {
    checkNode(n, v, "context tool");
    inContext[v] = 1;
  }
  let h = new Float64Array(n);
  for (let i = 0; i < n; i++) h[i] = inContext[i]!;
  let next = new Float64Array(n);
  for (let t = 0; t < steps; t++) {
    for (let i = 0; i < n; i++) {
      // Merge the sorted out- and in-slices: the undirected view, max weight for reciprocal pairs.
      let a = g.offsets[i]!;
      const aEnd = g.offsets[i + 1]!;
      let b = g.inOffsets[i]!;
      const bEnd = g.inOffsets[i + 1]!;
      let num = 0;
      let den = 0;
      while (a < aEnd || b < bEnd) {
        const x = a < aEnd ? g.targets[a]! : Number.POSITIVE_INFINITY;
        const y = b < bEnd ? g.inSources[b]! : Number.POSITIVE_INFINITY;
        let j: number;
        let w: number;
        if (x === y) {
          j = x;
          w = Math.max(g.weights[a]!, g.inWeights[b]!);
          a++;
          b++;
        } else if (x < y) {
          j = x;
          w = g.weights[a]!;
          a++;
        } else {
          j = y;
          w = g.inWeights[b]!;
          b++;
        }
        num += w * h[j]!;
        den += w;
      }
      const avg = den > 0 ? num / den : h[i]!;
      next[i] = (1 - tau) * h[i]! + tau * avg;
    }
    const tmp = h;
    h = next;
    next = tmp;
  }
  let maxOutside = 0;
  for (let i = 0; i < n; i++) if (!inContext[i] && h[i]! > maxOutside) maxOutside = h[i]!;
  const heat = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    heat[i] = inContext[i] ? 1 : maxOutside > 0 ? Math.min(1, h[i]! / maxOutside) : 0;
  }
  return { heat, raw: h, maxOutside };
}

/** Local α for one candidate in the given mode (see the header for the three regimes). */
export function localAlpha(input: LocalAlphaInput, options: AdaptiveAlphaOptions = {}): AlphaResult {
  checkObservations(input.observations);
  const threshold = options.coldStartObservations ?? DEFAULTS.coldStartObservations;
  const k = options.priorStrength ?? DEFAULTS.priorStrength;
  let estimate: number;
  let estimateFrom: Exclude<AlphaRegime, "cold-start">;
  let coherence: CoherenceResult | undefined;
  let heat: number | undefined;
  if (input.mode === "active") {
    coherence = neighborhoodCoherence(input.graph, input.node, input.semanticNeighbors);
    estimate = clampAlpha(1 - 0.5 * coherence.coherence);
    estimateFrom = "active-coherence";
  } else {
    checkNode(input.heat.heat.length, input.node, "node");
    heat = input.heat.heat[input.node]!;
    estimate = clampAlpha(1 - 0.5 * heat);
    estimateFrom = "passive-heat";
  }
  const base = { observations: input.observations, estimate, estimateFrom, coherence, heat };
  if (input.observations < threshold) {
    return {
      alpha: coldStartAlpha(input.observations, estimate, k),
      regime: "cold-start",
      details: { ...base, priorStrength: k },
    };
  }
  return { alpha: estimate, regime: estimateFrom, details: base };
}
