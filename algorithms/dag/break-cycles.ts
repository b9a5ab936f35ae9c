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
 * Cycles of any length (including 2-cycles and self-loops) are handled. Weakest = lowest order weight
 * (`orderWeight`, default the strength; the service passes strength × observed precedence share,
 * precedence.ts, so of two equally strong edges the direction seen less often goes); ties: a non-direct
 * edge before a direct one. Edges still tied (equal weight and kind) are never told apart by node id or
 * input position: every edge of such a tie group that lies on a cycle when the group is reached
 * is dropped together — with no evidence for either direction, neither is asserted. So the result does not
 * depend on the order of `nodes` or `edges`, nor on the node ids. The order is replaceable with `weaker`.
 */

import { DagError } from "./dag-error.ts";
import type { DroppedArc, StrengthArc } from "./dependency-edge.ts";
import { formatPath } from "./dependency-edge.ts";
import { indexNodes } from "./small-graph.ts";

const MODULE = "dag/break-cycles";

export interface BreakCyclesOptions<E extends StrengthArc> {
  /** Negative when `a` is weaker (dropped first); 0 = tied (dropped together). Default: by `orderWeight`, then `defaultWeaker`. */
  readonly weaker?: (a: E, b: E) => number;
  /** The weight compared first (lower = dropped first). Default: the edge's strength. */
  readonly orderWeight?: (e: E) => number;
}

export const DEFAULTS = {} as const;

export interface BreakCyclesResult<E extends StrengthArc> {
  /** Remaining edges, in input order; acyclic. */
  readonly kept: E[];
  /** Dropped edges in the order they were dropped, each with its cycle (closed: first = last). */
  readonly dropped: DroppedArc<E>[];
}

/** Default weakness order: strength asc, then non-direct first; 0 (a tie) otherwise. */
export function defaultWeaker(a: StrengthArc, b: StrengthArc): number {
  if (a.strength !== b.strength) return a.strength - b.strength;
  const da = a.direct === true ? 1 : 0;
  const db = b.direct === true ? 1 : 0;
  return da - db;
}

/** Returns the acyclic remainder of `edges` and the dropped edges with the cycle each one broke. */
export function breakCycles<E extends StrengthArc>(
  nodes: readonly number[],
  edges: readonly E[],
  options: BreakCyclesOptions<E> = {},
): BreakCyclesResult<E> {
  const orderWeight = options.orderWeight;
  const weights = edges.map((e) => (orderWeight ? orderWeight(e) : e.strength));
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i]!;
    if (!Number.isFinite(e.strength)) {
      throw new DagError(MODULE, "bad-strength", `edge ${e.from}->${e.to} strength ${e.strength} is not finite`);
    }
    if (!Number.isFinite(weights[i]!)) {
      throw new DagError(MODULE, "bad-strength", `edge ${e.from}->${e.to} order weight ${weights[i]} is not finite`);
    }
  }
  const weaker =
    options.weaker ??
    ((a: E, b: E, ia: number, ib: number): number => {
      const d = weights[ia]! - weights[ib]!;
      return d !== 0 ? d : defaultWeaker(a, b);
    });
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
  const cmp = (a: number, b: number) => weaker(edges[a]!, edges[b]!, a, b);
  // Stable sort: within a tie group the input order stays, but only for listing the drops (a group is
  // decided as a whole, before any of its edges is dropped).
  candidates.sort(cmp);
  const visited = new Int32Array(k).fill(-1);
  const parentEdge = new Int32Array(k);
  const dropped: DroppedArc<E>[] = [];
  let stamp = 0;
  for (let g = 0; g < candidates.length; ) {
    let end = g + 1;
    while (end < candidates.length && cmp(candidates[g]!, candidates[end]!) === 0) end++;
    const onCycle: { i: number; back: number[] }[] = [];
    for (let c = g; c < end; c++) {
      const i = candidates[c]!;
      const back = pathBack(head[i]!, tail[i]!, stamp++);
      if (back !== null) onCycle.push({ i, back });
    }
    for (const { i } of onCycle) alive[i] = 0;
    for (const { i, back } of onCycle) {
      const e = edges[i]!;
      const cycle = [e.from, ...back.map((v) => nodes[v]!)];
      const tied =
        onCycle.length > 1
          ? `; tied with ${onCycle.length - 1} other edge${onCycle.length > 2 ? "s" : ""} of equal weight, dropped together`
          : "";
      dropped.push({
        edge: e,
        reason: "cycle",
        witness: cycle,
        explanation:
          `dropped ${e.from}→${e.to} (strength ${e.strength.toFixed(4)}${orderWeight ? `, order weight ${weights[i]!.toFixed(4)}` : ""}${e.direct === true ? ", direct" : ""}): ` +
          `weakest edge of cycle ${formatPath(cycle)}${tied}`,
      });
    }
    g = end;
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
