/**
 * Critical path of a DAG whose nodes take time (tool latencies in milliseconds):
 *
 *   finish(v)  = latency(v) + max_{u→v} finish(u)        (0 for the max over no predecessor)
 *   wallTime   = max_v finish(v)     = Σ latency over the critical path   (unbounded parallelism)
 *   sequential = Σ_v latency(v);     speedup = sequential / wallTime   (1 when wallTime = 0)
 *
 * Source: the critical path method (Kelley & Walker, 1959). Ties pick the earlier node in input
 * order. Unknown latencies (the function returns undefined) count as `unknownLatencyMs` (default 0)
 * and are listed. Cyclic input throws DagError "cyclic"; a negative or non-finite latency, "bad-latency".
 */

import { DagError } from "./dag-error.ts";
import type { Arc } from "./dependency-edge.ts";
import { indexNodes, outLists, topologicalOrder } from "./small-graph.ts";

const MODULE = "dag/critical-path";

export interface CriticalPathOptions {
  /** Latency used for nodes whose latency is unknown. Default `DEFAULTS.unknownLatencyMs` (0). */
  readonly unknownLatencyMs?: number;
}

export const DEFAULTS = {
  unknownLatencyMs: 0,
} as const;

export interface CriticalPathResult {
  /** Node ids of the critical path, first to last; empty when there are no nodes. */
  readonly path: number[];
  /** Σ latency over `path`, in ms. */
  readonly wallTimeMs: number;
  /** Σ latency over all nodes, in ms. */
  readonly sequentialMs: number;
  /** sequentialMs / wallTimeMs (1 when wallTimeMs is 0). */
  readonly speedup: number;
  /** Nodes whose latency was unknown (counted as unknownLatencyMs), in input order. */
  readonly unknownLatency: number[];
  /** Why the answer is empty or partial, else null. */
  readonly reason: string | null;
}

export function criticalPath(
  nodes: readonly number[],
  edges: readonly Arc[],
  latencyMs: (node: number) => number | undefined,
  options: CriticalPathOptions = {},
): CriticalPathResult {
  const fallback = options.unknownLatencyMs ?? DEFAULTS.unknownLatencyMs;
  if (!(fallback >= 0) || !Number.isFinite(fallback)) {
    throw new DagError(MODULE, "bad-latency", `unknownLatencyMs must be finite and >= 0, got ${fallback}`);
  }
  const index = indexNodes(nodes, edges, MODULE);
  const order = topologicalOrder(nodes, edges, index, MODULE);
  const out = outLists(nodes.length, edges, index);
  const k = nodes.length;
  const lat = new Float64Array(k);
  const unknownLatency: number[] = [];
  let sequentialMs = 0;
  nodes.forEach((v, i) => {
    const l = latencyMs(v);
    if (l === undefined) {
      unknownLatency.push(v);
      lat[i] = fallback;
    } else {
      if (!(l >= 0) || !Number.isFinite(l)) {
        throw new DagError(MODULE, "bad-latency", `latency of node ${v} is ${l}, expected a finite number >= 0`);
      }
      lat[i] = l;
    }
    sequentialMs += lat[i]!;
  });
  if (k === 0) {
    return { path: [], wallTimeMs: 0, sequentialMs: 0, speedup: 1, unknownLatency, reason: "no nodes" };
  }
  // start(v) = max finish of predecessors; best predecessor ties keep the earlier input position.
  const start = new Float64Array(k);
  const pred = new Int32Array(k).fill(-1);
  for (const u of order) {
    const fu = start[u]! + lat[u]!;
    for (const w of out[u]!) {
      if (pred[w] === -1 || fu > start[w]! || (fu === start[w]! && u < pred[w]!)) {
        start[w] = fu;
        pred[w] = u;
      }
    }
  }
  let end = 0;
  for (let i = 1; i < k; i++) if (start[i]! + lat[i]! > start[end]! + lat[end]!) end = i;
  const path: number[] = [];
  for (let v = end; v >= 0; v = pred[v]!) path.push(nodes[v]!);
  path.reverse();
  const wallTimeMs = start[end]! + lat[end]!;
  const reason =
    unknownLatency.length > 0
      ? `latency unknown for ${unknownLatency.length} of ${k} nodes (counted as ${fallback} ms)`
      : null;
  return {
    path,
    wallTimeMs,
    sequentialMs,
    speedup: wallTimeMs > 0 ? sequentialMs / wallTimeMs : 1,
    unknownLatency,
    reason,
  };
}
