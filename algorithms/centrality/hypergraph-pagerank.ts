/**
 * Hypergraph PageRank: one weighted PageRank (damping 0.85) over tools and capabilities together.
 *
 * The graph is the bipartite star expansion of the tool–capability hypergraph — tool t ↔ capability c for
 * every membership, both directions, weight `membershipWeight` — enriched with capability → capability
 * dependency edges (weight × `dependencyFactor`) and, optionally, the tool → tool edges of the tool
 * CSR (weight × `toolEdgeFactor`). See `spectral/tool-capability-graph.ts`. Parallel directed edges keep the
 * largest weight (CSR convention). PageRank conventions (weighted out-degree, uniform dangling mass, L1
 * stopping rule) are those of `pagerank.ts`; scores over all tools + capabilities sum to 1.
 *
 * Source: PageRank over the tools–capabilities bipartite hypergraph (algorithms/README.md, "Analytics");
 * Zhou, Huang & Schölkopf, "Learning with hypergraphs" (NIPS 2006) for the bipartite expansion; Page et al.
 * (1999).
 */
import {
  type ToolCapabilityInput,
  type ToolCapabilityWeights,
  toolCapabilityDigraph,
} from "../spectral/tool-capability-graph.ts";
import { type PagerankOptions, pagerankDetailed } from "./pagerank.ts";

export const DEFAULTS = {
  damping: 0.85,
} as const;

export interface HypergraphPagerankOptions extends PagerankOptions, ToolCapabilityWeights {}

export interface HypergraphPagerankResult {
  /** Score per tool id (length nTools). */
  readonly tools: Float64Array;
  /** Score per capability index (length memberships.length). tools + capabilities sum to 1. */
  readonly capabilities: Float64Array;
  readonly iterations: number;
  readonly converged: boolean;
}

/** PageRank of tools and capabilities in their joint graph; scores share one distribution (sum 1 overall). */
export function hypergraphPagerank(
  input: ToolCapabilityInput,
  options: HypergraphPagerankOptions = {},
): HypergraphPagerankResult {
  const nTools = input.nTools;
  const g = toolCapabilityDigraph(input, options);
  const pr = pagerankDetailed(g, { ...options, damping: options.damping ?? DEFAULTS.damping });
  return {
    tools: pr.scores.slice(0, nTools),
    capabilities: pr.scores.slice(nTools),
    iterations: pr.iterations,
    converged: pr.converged,
  };
}
