/**
 * Infers "B depends on A" among selected tools from the history graph (seed 003 §2.3, ADR-041):
 *
 *   B depends on A  ⇔  the cheapest path A → B with at most maxHops (3) edges exists,
 *                      edge cost = 1 / max(w, minWeight)   (minWeight = 0.1)
 *   strength(A→B)   = (1 / hops) × mean edge weight along that path
 *
 * A declared/learned `dependency` edge A→B (caller's predicate) wins over any path: the relation is
 * then the direct edge (hops 1, strength = its weight; when the CSR lacks the edge, its weight is
 * `declaredDependencyWeight`, default 1.0 = the seed's `dependency` type weight × `observed`).
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
  /** A searcher built once for this CSR (reuses its scratch). Default: a fresh one per call. */
  readonly search?: HopBoundedSearch;
}

export const DEFAULTS = {
  maxHops: 3,
  minWeight: 0.1,
  declaredDependencyWeight: 1,
} as const;

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
  const searcher = options.search ?? createHopBoundedSearch(csr);
  if (searcher.csr !== csr) {
    throw new DagError(MODULE, "foreign-search", "options.search was built for another CSR");
  }
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
      const e = found.get(b);
      if (e !== undefined) edges.push(e);
    }
  }
  return edges;
}
