/**
 * Infers "B depends on A" among selected tools from the history graph (docs/decisions/edge-quality.md):
 *
 *   B depends on A  ⇔  the cheapest path A → B with at most maxHops (3) edges exists,
 *                      edge cost = 1 / max(w, minWeight)   (minWeight = 0.1)
 *   strength(A→B)   = (1 / hops) × mean edge weight along that path
 *
 * A declared/learned `dependency` edge A→B (caller's predicate) wins over any path: the relation is
 * then the direct edge (hops 1, strength = its weight; when the CSR lacks the edge, its weight is
 * `declaredDependencyWeight`, default 1.0 = the `dependency` type weight 1.0 × the `observed` multiplier 1.0).
 *
 * Edge provenance: `pathCsr` holds the edges that may be hops of a multi-hop path (the
 * service passes the *learned* edges, observed in traces, weighted from that evidence alone); an edge of
 * `csr` absent from `pathCsr` (declared only) justifies a relation only as a whole 1-hop path:
 *
 *   cost(A→B) = min( 1 / max(w_csr(A,B), minWeight)   if A→B ∈ csr,
 *                    cheapest ≤ maxHops path A → B over pathCsr )          (tie → the 1-hop edge)
 *
 * Why: a declared dependency graph lists each tool's *direct* prerequisites, so a declared chain
 * A→X→B without a declared A→B says that B needs X, not A; learned edges are a sample of what ran, so
 * the ≤ 3-hop paths fill pairs the traces happened not to show. Chosen on training data only
 * (leave-one-out over the training traces, dependency graph, edge F1): ToolLinkOS traces + declared
 * edges — paths over every edge 0.710, 1 hop 0.937, learned-only paths 0.937; NESTFUL (no declared
 * edges) — 3 learned hops 0.710, 2 hops 0.691, 1 hop 0.688, so learned edges keep the default limit of
 * 3 hops. Default `pathCsr = csr`: every edge may be a hop (the plain ≤ 3-hop rule unchanged).
 *
 * One hop-bounded search per selected tool, restricted to the other selected tools as targets
 * (algorithms/paths/hop-bounded-search.ts), instead of k² whole-graph searches.
 */

import type { Csr } from "../graph/csr.ts";
import { edgeWeight } from "../graph/csr.ts";
import type { HopBoundedSearch } from "../paths/hop-bounded-search.ts";
import { createHopBoundedSearch } from "../paths/hop-bounded-search.ts";
import { DagError } from "./dag-error.ts";
import type { DependencyEdge } from "./dependency-edge.ts";

const MODULE = "dag/infer-dependencies";

export interface InferDependenciesOptions {
  /** Largest number of edges on a justifying path. Default `DEFAULTS.maxHops` (3). */
  readonly maxHops?: number;
  /** Edge cost is 1 / max(weight, minWeight). Default `DEFAULTS.minWeight` (0.1). */
  readonly minWeight?: number;
  /** True when from→to is a declared or learned `dependency` edge. Default: no edge is. */
  readonly isDependencyEdge?: (from: number, to: number) => boolean;
  /** Weight of a dependency edge the CSR does not hold. Default `DEFAULTS.declaredDependencyWeight` (1). */
  readonly declaredDependencyWeight?: number;
  /**
   * The edges that may be hops of a multi-hop path (same node count as `csr`); an edge only in `csr`
   * is a relation on its own (1 hop) but never a hop of a longer path. Default: `csr` itself.
   */
  readonly pathCsr?: Csr;
  /** A searcher built once for `pathCsr` (reuses its scratch). Default: a fresh one per call. */
  readonly search?: HopBoundedSearch;
}

export const DEFAULTS = {
  maxHops: 3,
  minWeight: 0.1,
  declaredDependencyWeight: 1,
} as const;

/** Weight of edge u→v in `csr`, or -1 when absent (a held edge may weigh 0). */
function heldWeight(csr: Csr, u: number, v: number): number {
  let lo = csr.offsets[u]!;
  let hi = csr.offsets[u + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const t = csr.targets[mid]!;
    if (t === v) return csr.weights[mid]!;
    if (t < v) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/** Checks that `selected` are distinct node ids of `csr`; throws DagError otherwise. */
export function validateSelection(csr: Csr, selected: readonly number[], module: string): void {
  const seen = new Set<number>();
  for (const v of selected) {
    if (!Number.isInteger(v) || v < 0 || v >= csr.n) {
      throw new DagError(module, "bad-node", `selected node ${v} outside 0..${csr.n - 1}`);
    }
    if (seen.has(v)) throw new DagError(module, "duplicate-node", `selected node ${v} appears twice`);
    seen.add(v);
  }
}

/**
 * Candidate dependency edges among `selected` (may contain cycles), ordered by the input position of
 * `from`, then of `to`. Pairs with no path of at most maxHops edges produce no edge.
 */
export function inferDependencies(
  csr: Csr,
  selected: readonly number[],
  options: InferDependenciesOptions = {},
): DependencyEdge[] {
  const maxHops = options.maxHops ?? DEFAULTS.maxHops;
  const minWeight = options.minWeight ?? DEFAULTS.minWeight;
  const declaredWeight = options.declaredDependencyWeight ?? DEFAULTS.declaredDependencyWeight;
  const isDependencyEdge = options.isDependencyEdge;
  validateSelection(csr, selected, MODULE);
  if (!(declaredWeight >= 0) || !Number.isFinite(declaredWeight)) {
    throw new DagError(MODULE, "bad-weight", `declaredDependencyWeight must be finite and >= 0, got ${declaredWeight}`);
  }
  const pathCsr = options.pathCsr ?? csr;
  if (pathCsr.n !== csr.n) {
    throw new DagError(MODULE, "bad-path-csr", `pathCsr has ${pathCsr.n} nodes, csr has ${csr.n}`);
  }
  const searcher = options.search ?? createHopBoundedSearch(pathCsr);
  if (searcher.csr !== pathCsr) {
    throw new DagError(MODULE, "foreign-search", "options.search was built for another CSR than pathCsr (default csr)");
  }
  // Edges of csr missing from pathCsr (or lighter there) are checked as whole 1-hop paths.
  const directOnly = pathCsr !== csr && maxHops > 0;
  const edges: DependencyEdge[] = [];
  for (const a of selected) {
    const found = new Map<number, DependencyEdge>();
    if (maxHops > 0) {
      for (const p of searcher.search(a, { maxHops, minWeight, targets: selected })) {
        let sum = 0;
        for (const w of p.weights) sum += w;
        const meanWeight = sum / p.hops;
        found.set(p.target, {
          from: a,
          to: p.target,
          path: p.path,
          hops: p.hops,
          cost: p.cost,
          meanWeight,
          strength: meanWeight / p.hops,
          direct: false,
        });
      }
    }
    for (const b of selected) {
      if (b === a) continue;
      if (isDependencyEdge?.(a, b)) {
        const held = edgeWeight(csr, a, b);
        const w = held > 0 ? held : declaredWeight;
        edges.push({
          from: a,
          to: b,
          path: [a, b],
          hops: 1,
          cost: 1 / Math.max(w, minWeight),
          meanWeight: w,
          strength: w,
          direct: true,
        });
        continue;
      }
      let e = found.get(b);
      if (directOnly) {
        const w = heldWeight(csr, a, b);
        const cost = 1 / Math.max(w, minWeight);
        if (w >= 0 && (e === undefined || cost <= e.cost)) {
          e = { from: a, to: b, path: [a, b], hops: 1, cost, meanWeight: w, strength: w, direct: false };
        }
      }
      if (e !== undefined) edges.push(e);
    }
  }
  return edges;
}
