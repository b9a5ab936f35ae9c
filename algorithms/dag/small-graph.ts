/**
 * Shared helpers for the small-graph passes of the DAG builder (k selected tools, k² edges at most):
 * node indexing with validation, Kahn's topological order (Kahn, "Topological sorting of large
 * networks", CACM 1962) and a fewest-edge path (breadth-first search). Ties follow input order.
 */

import { DagError } from "./dag-error.ts";
import type { Arc } from "./dependency-edge.ts";

/** Maps node ids to their input position; throws DagError on duplicates or edges to unlisted nodes. */
export function indexNodes(nodes: readonly number[], edges: readonly Arc[], module: string): Map<number, number> {
  const index = new Map<number, number>();
  nodes.forEach((v, i) => {
    if (index.has(v)) throw new DagError(module, "duplicate-node", `node ${v} appears twice`);
    index.set(v, i);
  });
  for (const e of edges) {
    for (const v of [e.from, e.to]) {
      if (!index.has(v))
        throw new DagError(module, "unknown-node", `edge ${e.from}->${e.to}: node ${v} is not in nodes`);
    }
  }
  return index;
}

/** Out-adjacency by node index, in edge order. */
export function outLists(k: number, edges: readonly Arc[], index: Map<number, number>): number[][] {
  const out: number[][] = Array.from({ length: k }, () => []);
  for (const e of edges) out[index.get(e.from)!]!.push(index.get(e.to)!);
  return out;
}

/**
 * Node indices in topological order (Kahn; among ready nodes the lowest input position first).
 * Throws DagError "cyclic" naming a node left on a cycle.
 */
export function topologicalOrder(
  nodes: readonly number[],
  edges: readonly Arc[],
  index: Map<number, number>,
  module: string,
): number[] {
  const k = nodes.length;
  const out = outLists(k, edges, index);
  const indeg = new Int32Array(k);
  for (const list of out) for (const w of list) indeg[w]!++;
  // k is small: a sorted ready list keeps "lowest input position first" simple.
  const ready: number[] = [];
  for (let i = 0; i < k; i++) if (indeg[i] === 0) ready.push(i);
  const order: number[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => b - a);
    const u = ready.pop()!;
    order.push(u);
    for (const w of out[u]!) if (--indeg[w]! === 0) ready.push(w);
  }
  if (order.length < k) {
    let stuck = 0;
    while (indeg[stuck] === 0) stuck++;
    throw new DagError(
      module,
      "cyclic",
      `edges contain a cycle (node ${nodes[stuck]} is on or after one); break cycles first`,
    );
  }
  return order;
}

/** Out-neighbour ids per node id, in edge order. */
export function adjacencyMap(edges: readonly Arc[]): Map<number, number[]> {
  const adj = new Map<number, number[]>();
  for (const e of edges) {
    let list = adj.get(e.from);
    if (list === undefined) {
      list = [];
      adj.set(e.from, list);
    }
    list.push(e.to);
  }
  return adj;
}

/** Fewest-edge path from → to over `adj` (BFS in list order) as node ids, or null when none. */
export function fewestEdgePath(from: number, to: number, adj: Map<number, number[]>): number[] | null {
  if (from === to) return [from];
  const parent = new Map<number, number>([[from, from]]);
  const queue = [from];
  for (let q = 0; q < queue.length; q++) {
    const u = queue[q]!;
    for (const w of adj.get(u) ?? []) {
      if (parent.has(w)) continue;
      parent.set(w, u);
      if (w === to) {
        const path = [to];
        let v = to;
        while (v !== from) {
          v = parent.get(v)!;
          path.push(v);
        }
        return path.reverse();
      }
      queue.push(w);
    }
  }
  return null;
}
