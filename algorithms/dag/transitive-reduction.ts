/**
 * Transitive reduction of a DAG: the unique smallest edge set with the same reachability (Aho, Garey
 * & Ullman, "The transitive reduction of a directed graph", SIAM J. Comput. 1972).
 *
 *   u→v is redundant  ⇔  ∃ w ≠ v with u→w ∈ E and v ∈ reach(w)
 *   reach(u) = ∪_{u→w} ({w} ∪ reach(w)), computed in reverse topological order (bitsets)
 *
 * With `keep` (the service: direct dependency edges, observed or declared data flows that are facts rather
 * than inferences), those edges are never dropped: the smallest edge set with the same reachability that
 * contains them (u→v with keep(u→v) is never redundant; every other rule unchanged).
 * Chosen on training traces only (NESTFUL, 5 folds, gold tool set, covered traces, with direct-first):
 * edge F1 0.839 → 0.851 (recall 0.831 → 0.851, precision 0.848 → 0.851).
 *
 * Every dropped edge names a kept path that implies it (fewest edges, found after the reduction).
 * Input must be acyclic (run breakCycles first) and free of duplicate edges; otherwise DagError.
 */

import { DagError } from "./dag-error.ts";
import type { Arc, DroppedArc } from "./dependency-edge.ts";
import { formatPath } from "./dependency-edge.ts";
import { adjacencyMap, fewestEdgePath, indexNodes, outLists, topologicalOrder } from "./small-graph.ts";

const MODULE = "dag/transitive-reduction";

export const DEFAULTS = {} as const;

export interface TransitiveReductionResult<E extends Arc> {
  /** Edges not implied by other paths, in input order. */
  readonly kept: E[];
  /** Redundant edges, in input order, each with the kept path that implies it. */
  readonly dropped: DroppedArc<E>[];
}

export interface TransitiveReductionOptions<E extends Arc> {
  /** Edges never dropped (they still count for reachability). Default: none. */
  readonly keep?: (e: E) => boolean;
}

export function transitiveReduction<E extends Arc>(
  nodes: readonly number[],
  edges: readonly E[],
  options: TransitiveReductionOptions<E> = {},
): TransitiveReductionResult<E> {
  const index = indexNodes(nodes, edges, MODULE);
  const k = nodes.length;
  const pairs = new Set<string>();
  for (const e of edges) {
    const key = `${e.from}>${e.to}`;
    if (pairs.has(key)) throw new DagError(MODULE, "duplicate-edge", `edge ${e.from}->${e.to} appears twice`);
    pairs.add(key);
  }
  const order = topologicalOrder(nodes, edges, index, MODULE);
  const out = outLists(k, edges, index);
  const words = (k + 31) >>> 5;
  const reach = new Uint32Array(k * words);
  for (let i = order.length - 1; i >= 0; i--) {
    const u = order[i]!;
    const ub = u * words;
    for (const w of out[u]!) {
      reach[ub + (w >>> 5)]! |= 1 << (w & 31);
      const wb = w * words;
      for (let x = 0; x < words; x++) reach[ub + x]! |= reach[wb + x]!;
    }
  }
  const keep = options.keep;
  const redundant = edges.map((e) => {
    if (keep?.(e)) return false;
    const u = index.get(e.from)!;
    const v = index.get(e.to)!;
    for (const w of out[u]!) {
      if (w !== v && (reach[w * words + (v >>> 5)]! & (1 << (v & 31))) !== 0) return true;
    }
    return false;
  });
  const kept = edges.filter((_, i) => !redundant[i]);
  const dropped: DroppedArc<E>[] = [];
  const keptAdj = adjacencyMap(kept);
  edges.forEach((e, i) => {
    if (!redundant[i]) return;
    const via = fewestEdgePath(e.from, e.to, keptAdj);
    if (via === null) throw new DagError(MODULE, "internal", `reduction lost reachability ${e.from}->${e.to}`);
    dropped.push({
      edge: e,
      reason: "transitive",
      witness: via,
      explanation: `dropped ${e.from}→${e.to}: implied by ${formatPath(via)}`,
    });
  });
  return { kept, dropped };
}
