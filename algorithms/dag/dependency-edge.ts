/**
 * The edge type of an execution DAG: "`to` depends on `from`", with the evidence that justified it.
 *
 *   strength = (1 / hops) × mean(weights along path)        (hop count of a direct edge = 1;
 *                                                            docs/decisions/edge-quality.md)
 *
 * Small-graph passes (cycle breaking, transitive reduction, layers) accept any `Arc`, so they can be
 * reused on declared dependency graphs as well as on inferred ones.
 */

/** The minimum an edge needs for the small-graph passes. */
export interface Arc {
  readonly from: number;
  readonly to: number;
}

/** An arc with a strength (higher = more trusted); `direct` marks a declared/learned dependency edge. */
export interface StrengthArc extends Arc {
  readonly strength: number;
  readonly direct?: boolean;
}

export interface DependencyEdge extends StrengthArc {
  /** Node ids from `from` to `to` that justified the edge; `path.length === hops + 1`. */
  readonly path: number[];
  /** Edges on `path` (a direct edge is 1 hop). */
  readonly hops: number;
  /** Σ 1 / max(w, minWeight) along `path`. */
  readonly cost: number;
  /** Mean raw edge weight along `path`. */
  readonly meanWeight: number;
  /** (1 / hops) × meanWeight. */
  readonly strength: number;
  /** True when the relation is a direct `dependency` edge (preferred over any path). */
  readonly direct: boolean;
}

/** An edge removed by a pass, with why and the nodes that prove it (the cycle, or the other path). */
export interface DroppedArc<E extends Arc> {
  readonly edge: E;
  readonly reason: "cycle" | "transitive" | "orientation" | "direct-first";
  /** "cycle": the cycle as a closed node list (first = last); "transitive": the kept path from → to; "orientation": the kept reverse edge (to, from); "direct-first": the direct edge into `to`. */
  readonly witness: number[];
  readonly explanation: string;
}

/** Formats a node list as "a→b→c" for explanations. */
export function formatPath(nodes: readonly number[]): string {
  return nodes.join("→");
}
