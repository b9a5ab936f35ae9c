/**
 * Strategic discovery (passive capability suggestion; the 0.5 boost: docs/decisions/capability-scoring.md):
 *
 *   discovery(c) = toolsOverlap(c) × (1 + boost(c))
 *
 * - toolsOverlap(c) = |tools(c) ∩ context| / |tools(c)| over distinct tools (0 for an empty capability).
 * - Dominant clusters D = the spectral cluster ids (≥ 0) that hold the most distinct context tools
 *   (argmax of the count; ties → every tied cluster is dominant). Context tools without a cluster (< 0)
 *   do not vote.
 * - boost, mode "own-cluster" (default): `clusterBoost` (0.5) when the capability's own spectral
 *   cluster id (from clustering the tool–capability bipartite graph) is in D, else 0.
 *   Mode "fractional": `clusterBoost` × (share of the capability's distinct tools whose cluster is in
 *   D) — for capabilities whose tools span clusters.
 *
 * Only capabilities with overlap > 0 are returned (the score is 0 otherwise). Ranking: score desc, then
 * the caller's tie-breaker (hypergraph PageRank of the capability) desc, then capability index asc.
 * Cost: O(Σ |tools(c)|) per query.
 *
 * Sources: docs/decisions/capability-scoring.md; spectral clustering of bipartite graphs (Dhillon,
 * "Co-clustering documents and words using bipartite spectral graph partitioning", KDD 2001); hypergraph
 * PageRank as a tie-breaker.
 */
import { PredictionError } from "./prediction-error.ts";

const MODULE = "capability-discovery";

export type BoostMode = "own-cluster" | "fractional";

export interface CapabilityNode {
  /** Tool ids (0..n-1) the capability contains; duplicates are ignored. */
  readonly tools: readonly number[];
  /** The capability's own spectral cluster id; negative = unclustered. */
  readonly cluster: number;
}

export interface CapabilityDiscoveryInput {
  /** Capabilities, identified by their index in this array. */
  readonly capabilities: readonly CapabilityNode[];
  /** Spectral cluster id per tool (length n); negative = unclustered. */
  readonly toolCluster: Int32Array;
  /** Tools already used in the current workflow. */
  readonly context: readonly number[];
  /** Optional tie-breaker per capability (e.g. hypergraph PageRank), same length as capabilities. Default 0. */
  readonly tieBreaker?: ArrayLike<number>;
}

export interface CapabilityDiscoveryOptions {
  /** Boost for the dominant cluster. Default 0.5 ("+50 %", docs/decisions/capability-scoring.md). */
  readonly clusterBoost?: number;
  /** How the boost applies. Default "own-cluster". */
  readonly boostMode?: BoostMode;
  /** Number of capabilities returned. Default 10. */
  readonly limit?: number;
}

export const DEFAULTS = {
  clusterBoost: 0.5,
  boostMode: "own-cluster" as BoostMode,
  limit: 10,
} as const;

export interface DiscoveredCapability {
  /** Index into `capabilities`. */
  readonly capability: number;
  /** Share of the capability's distinct tools present in the context, in (0, 1]. */
  readonly overlap: number;
  /** The context tools it contains, ascending. */
  readonly matchedTools: number[];
  /** The capability's own cluster id. */
  readonly cluster: number;
  /** Whether its own cluster is one of the dominant clusters. */
  readonly inDominantCluster: boolean;
  /** Boost applied, in [0, clusterBoost]. */
  readonly boost: number;
  /** overlap × (1 + boost), in [0, 1 + clusterBoost]. */
  readonly score: number;
  /** The caller's tie-breaker value (0 when not given). */
  readonly tieBreaker: number;
}

export interface CapabilityDiscoveryResult {
  readonly capabilities: DiscoveredCapability[];
  /** Cluster ids holding the most context tools (empty when no context tool is clustered). */
  readonly dominantClusters: number[];
  readonly reason?: string;
}

/** Ranks capabilities for the current context. Throws PredictionError on out-of-range ids or bad options. */
export function discoverCapabilities(
  input: CapabilityDiscoveryInput,
  options?: CapabilityDiscoveryOptions,
): CapabilityDiscoveryResult {
  const boostValue = options?.clusterBoost ?? DEFAULTS.clusterBoost;
  const mode = options?.boostMode ?? DEFAULTS.boostMode;
  const limit = options?.limit ?? DEFAULTS.limit;
  if (!(boostValue >= 0 && Number.isFinite(boostValue))) {
    throw new PredictionError(MODULE, "bad-option", `clusterBoost = ${boostValue} must be finite and >= 0`);
  }
  if (!Number.isInteger(limit) || limit < 0) throw new PredictionError(MODULE, "bad-option", `limit = ${limit}`);
  const { capabilities, toolCluster, tieBreaker } = input;
  const n = toolCluster.length;
  if (tieBreaker !== undefined && tieBreaker.length !== capabilities.length) {
    throw new PredictionError(
      MODULE,
      "bad-length",
      `tieBreaker has length ${tieBreaker.length}, expected ${capabilities.length}`,
    );
  }
  const checkTool = (t: number, where: string): void => {
    if (!Number.isInteger(t) || t < 0 || t >= n) {
      throw new PredictionError(MODULE, "bad-tool", `${where} tool ${t} outside 0..${n - 1}`);
    }
  };
  const ctx = new Set<number>();
  for (const t of input.context) {
    checkTool(t, "context");
    ctx.add(t);
  }
  if (ctx.size === 0) return { capabilities: [], dominantClusters: [], reason: "empty context" };

  const counts = new Map<number, number>();
  for (const t of ctx) {
    const c = toolCluster[t]!;
    if (c >= 0) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let maxCount = 0;
  for (const v of counts.values()) maxCount = Math.max(maxCount, v);
  const dominantClusters = [...counts.entries()]
    .filter(([, v]) => v === maxCount && maxCount > 0)
    .map(([c]) => c)
    .sort((a, b) => a - b);
  const dominant = new Set(dominantClusters);

  const found: DiscoveredCapability[] = [];
  capabilities.forEach((cap, i) => {
    const tools = new Set<number>();
    for (const t of cap.tools) {
      checkTool(t, `capability ${i}`);
      tools.add(t);
    }
    if (tools.size === 0) return;
    const matched: number[] = [];
    let inDom = 0;
    for (const t of tools) {
      if (ctx.has(t)) matched.push(t);
      if (dominant.has(toolCluster[t]!)) inDom++;
    }
    if (matched.length === 0) return;
    const overlap = matched.length / tools.size;
    const inDominantCluster = cap.cluster >= 0 && dominant.has(cap.cluster);
    const boost = mode === "fractional" ? boostValue * (inDom / tools.size) : inDominantCluster ? boostValue : 0;
    const tb = tieBreaker === undefined ? 0 : tieBreaker[i]!;
    found.push({
      capability: i,
      overlap,
      matchedTools: matched.sort((a, b) => a - b),
      cluster: cap.cluster,
      inDominantCluster,
      boost,
      score: (matched.length * (1 + boost)) / tools.size, // = overlap × (1 + boost), one rounding
      tieBreaker: Number.isFinite(tb) ? tb : 0,
    });
  });
  found.sort((a, b) => b.score - a.score || b.tieBreaker - a.tieBreaker || a.capability - b.capability);
  const top = found.slice(0, limit);
  if (top.length === 0) {
    return { capabilities: top, dominantClusters, reason: "no capability shares a tool with the context" };
  }
  return { capabilities: top, dominantClusters };
}
