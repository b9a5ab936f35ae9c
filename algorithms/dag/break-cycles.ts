/**
 * Breaks every cycle of a small directed graph by dropping, repeatedly, the weakest edge that lies on
 * a cycle, until the graph is acyclic (a greedy feedback-arc-set heuristic; cf. Eades, Lin & Smyth,
 * "A fast and effective heuristic for the feedback arc set problem", 1993, for the problem).
 *
 *   repeat: e* = the weakest edge that lies on some cycle (its head reaches its tail);
 *           drop e*  ⇒ e* is the weakest edge of the cycle e* + fewest-edge path(head → tail)
 *   until no edge lies on a cycle
 *
 * Implemented as one scan of the edges inside strongly connected components (Kosaraju), weakest
 * first, dropping each edge whose head still reaches its tail (BFS): an edge off every cycle stays
 * off, since removing edges creates no cycle, so the scan drops exactly the sequence above.
 *
 * Cycles of any length (including 2-cycles and self-loops) are handled. Weakest = lowest strength;
 * ties: a non-direct edge before a direct one, then lower `from`, then lower `to` (deterministic);
 * the order is replaceable with `weaker`.
 */

import { DagError } from "./dag-error.ts";
import type { DroppedArc, StrengthArc } from "./dependency-edge.ts";
import { formatPath } from "./dependency-edge.ts";
import { indexNodes } from "./small-graph.ts";

const MODULE = "dag/break-cycles";

export interface BreakCyclesOptions<E extends StrengthArc> {
  /** Negative when `a` is weaker (dropped first). Default `defaultWeaker`. */
  readonly weaker?: (a: E, b: E) => number;
}

export const DEFAULTS = {} as const;

export interface BreakCyclesResult<E extends StrengthArc> {
  /** Remaining edges, in input order; acyclic. */
  readonly kept: E[];
  /** Dropped edges in the order they were dropped, each with its cycle (closed: first = last). */
  readonly dropped: DroppedArc<E>[];
}

/** Default weakness order: strength asc, non-direct first, from asc, to asc. */
export function defaultWeaker(a: StrengthArc, b: StrengthArc): number {
  if (a.strength !== b.strength) return a.strength - b.strength;
  const da = a.direct === true ? 1 : 0;
  const db = b.direct === true ? 1 : 0;
  if (da !== db) return da - db;
  if (a.from !== b.from) return a.from - b.from;
  return a.to - b.to;
}

/** Returns the acyclic remainder of `edges` and the dropped edges with the cycle each one broke. */
export function breakCycles<E extends StrengthArc>(
  nodes: readonly number[],
  edges: readonly E[],
  options: BreakCyclesOptions<E> = {},
): BreakCyclesResult<E> {
  const weaker = options.weaker ?? defaultWeaker;
  for (const e of edges) {
    if (!Number.isFinite(e.strength)) {
      throw new DagError(MODULE, "bad-strength", `edge ${e.from}->${e.to} strength ${e.strength} is not finite`);
    }
  }
  const index = indexNodes(nodes, edges, MODULE);
  const k = nodes.length;
  const head = edges.map((e) => index.get(e.to)!);
  const tail = edges.map((e) => index.get(e.from)!);
  // Out-edge indices per node, in edge order.
  const outEdges: number[][] = Array.from({ length: k }, () => []);
  for (let i = 0; i < edges.length; i++) outEdges[tail[i]!]!.push(i);
  const comp = components(k, outEdges, head);
  const alive = new Uint8Array(edges.length).fill(1);
  // Scanning edges from weakest to strongest and dropping each one that still lies on a cycle drops
  // exactly the sequence "weakest edge currently on a cycle" (an edge off every cycle stays off:
  // removing edges creates no cycle). Only edges inside one component can lie on a cycle.
  const candidates: number[] = [];
  edges.forEach((_, i) => {
    if (comp[tail[i]!] === comp[head[i]!]) candidates.push(i);
  });
  candidates.sort((a, b) => weaker(edges[a]!, edges[b]!) || a - b);
  const visited = new Int32Array(k).fill(-1);
  const parentEdge = new Int32Array(k);
  const dropped: DroppedArc<E>[] = [];
  for (let c = 0; c < candidates.length; c++) {
    const i = candidates[c]!;
    const back = pathBack(head[i]!, tail[i]!, c);
    if (back === null) continue;
    alive[i] = 0;
    const e = edges[i]!;
    const cycle = [e.from, ...back.map((v) => nodes[v]!)];
    dropped.push({
      edge: e,
      reason: "cycle",
      witness: cycle,
      explanation:
        `dropped ${e.from}→${e.to} (strength ${e.strength.toFixed(4)}${e.direct === true ? ", direct" : ""}): ` +
        `weakest edge of cycle ${formatPath(cycle)}`,
    });
  }
  return { kept: edges.filter((_, i) => alive[i] === 1), dropped };

  /** Fewest-edge path from → to over alive edges (BFS in edge order) as node indices, or null. */
  function pathBack(from: number, to: number, stamp: number): number[] | null {
    if (from === to) return [from];
    visited[from] = stamp;
    const queue = [from];
    for (let q = 0; q < queue.length; q++) {
      const u = queue[q]!;
      for (const ei of outEdges[u]!) {
        if (alive[ei] === 0) continue;
        const w = head[ei]!;
        if (visited[w] === stamp) continue;
        visited[w] = stamp;
        parentEdge[w] = ei;
        if (w === to) {
          const path = [to];
          for (let v = to; v !== from; ) {
            v = tail[parentEdge[v]!]!;
            path.push(v);
          }
          return path.reverse();
        }
        queue.push(w);
      }
    }
    return null;
  }
}

/** Kosaraju: strongly connected component id per node index (iterative). */
function components(k: number, outEdges: number[][], head: number[]): Int32Array {
  const inn: number[][] = Array.from({ length: k }, () => []);
  outEdges.forEach((list, a) => {
    for (const ei of list) inn[head[ei]!]!.push(a);
  });
  const order: number[] = [];
  const seen = new Uint8Array(k);
  for (let s = 0; s < k; s++) {
    if (seen[s]) continue;
    seen[s] = 1;
    const stack: Array<[number, number]> = [[s, 0]];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const adj = outEdges[top[0]]!;
      if (top[1] < adj.length) {
        const w = head[adj[top[1]++]!]!;
        if (!seen[w]) {
          seen[w] = 1;
          stack.push([w, 0]);
        }
      } else {
        order.push(top[0]);
        stack.pop();
      }
    }
  }
  const comp = new Int32Array(k).fill(-1);
  let c = 0;
  for (let i = order.length - 1; i >= 0; i--) {
    const s = order[i]!;
    if (comp[s] !== -1) continue;
    comp[s] = c;
    const stack = [s];
    while (stack.length > 0) {
      const u = stack.pop()!;
      for (const w of inn[u]!) {
        if (comp[w] === -1) {
          comp[w] = c;
          stack.push(w);
        }
      }
    }
    c++;
  }
  return comp;
}
