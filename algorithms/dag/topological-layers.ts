/**
 * Parallel execution layers of a DAG by longest-path layering (as-soon-as-possible schedule):
 *
 *   layer(v) = 0 if v has no predecessor, else 1 + max_{u→v} layer(u)
 *
 * Tools in one layer have no path between them and can run in parallel; every edge goes from a lower
 * layer to a higher one. Source: Kahn's topological sort (CACM 1962); longest-path layering in
 * Healy & Nikolov, "How to layer a directed acyclic graph" (Graph Drawing 2001).
 * Within a layer nodes keep their input order. Cyclic input throws DagError "cyclic".
 */

import type { Arc } from "./dependency-edge.ts";
import { indexNodes, outLists, topologicalOrder } from "./small-graph.ts";

const MODULE = "dag/topological-layers";

export const DEFAULTS = {} as const;

export interface LayersResult {
  /** layers[i] = node ids of layer i, in input order. Empty when there are no nodes. */
  readonly layers: number[][];
  /** Layer of each node id. */
  readonly layerOf: Map<number, number>;
}

export function topologicalLayers(nodes: readonly number[], edges: readonly Arc[]): LayersResult {
  const index = indexNodes(nodes, edges, MODULE);
  const order = topologicalOrder(nodes, edges, index, MODULE);
  const out = outLists(nodes.length, edges, index);
  const layer = new Int32Array(nodes.length);
  let depth = 0;
  for (const u of order) {
    depth = Math.max(depth, layer[u]! + 1);
    for (const w of out[u]!) if (layer[w]! < layer[u]! + 1) layer[w] = layer[u]! + 1;
  }
  const layers: number[][] = Array.from({ length: nodes.length === 0 ? 0 : depth }, () => []);
  const layerOf = new Map<number, number>();
  nodes.forEach((v, i) => {
    layers[layer[i]!]!.push(v);
    layerOf.set(v, layer[i]!);
  });
  return { layers, layerOf };
}
