/**
 * Hop-bounded cheapest paths over a CSR graph: for a source s and a hop budget H, the cheapest path
 * s → t among the paths with at most H edges (H = 3 for execution DAGs, docs/decisions/edge-quality.md).
 *
 *   cost(path) = Σ_{edges e} cost(w_e),   default cost(w) = 1 / max(w, minWeight)   (minWeight = 0.1)
 *   D_0(s) = 0;  D_h(v) = min( D_{h-1}(v),  min_{u→v} D_{h-1}(u) + cost(w_uv) )   for h = 1..H
 *
 * Method: H rounds of layered (not in-place) Bellman–Ford relaxation (Bellman, "On a routing
 * problem", 1958; after round h, D_h is the cheapest walk of at most h edges, cf. Cormen et al.,
 * "Introduction to Algorithms", §24.1). Chosen over Dijkstra on (node, hops) states because it needs
 * no heap, is exact for a hop budget by construction, and its work is bounded by the H-hop ball of s.
 * Round h only expands the nodes whose cost strictly improved in round h-1, and an entry is recorded
 * only on a strict improvement, so an entry recorded in round h ends a path of exactly h edges
 * (positive costs ⇒ the path is simple). When targets are given, the last round scans the in-edges
 * of the targets only (work Σ indeg(target) instead of the whole H-hop ball).
 *
 * Scratch: one searcher owns typed arrays of size (H+1)·n, invalidated by a search stamp, so a
 * search allocates nothing proportional to n (build the searcher once per graph, query many times).
 * Cost: Σ out-degree over the (H-2)-hop ball of s, plus Σ in-degree of the targets; a source next to
 * hubs therefore touches most of a skewed graph at H = 3.
 * Ties between equal-cost paths keep the first found (CSR neighbour order, ascending ids).
 */

import { AlgorithmError } from "../errors.ts";
import type { Csr } from "../graph/csr.ts";
import { edgeWeight } from "../graph/csr.ts";

export interface HopBoundedSearchOptions {
  /** Largest number of edges on a path. Default `DEFAULTS.maxHops` (3). */
  readonly maxHops?: number;
  /** Weights below this are raised to it before inverting in the default cost. Default 0.1. */
  readonly minWeight?: number;
  /**
   * Cost of traversing an edge of weight w; must return a finite number > 0.
   * Default `w => 1 / Math.max(w, minWeight)`.
   */
  readonly cost?: (weight: number) => number;
  /**
   * Only these nodes are answered (in this order, duplicates and the source skipped); the last round
   * then scans their in-edges only. Default: every node reached within `maxHops`, by ascending id.
   */
  readonly targets?: readonly number[];
}

export const DEFAULTS = {
  maxHops: 3,
  minWeight: 0.1,
} as const;

/** One cheapest hop-bounded path. */
export interface HopBoundedPath {
  readonly source: number;
  readonly target: number;
  /** Node ids from source to target; `path.length === hops + 1`. */
  readonly path: number[];
  /** Number of edges (a direct edge is 1 hop). */
  readonly hops: number;
  /** Sum of edge costs along `path`. */
  readonly cost: number;
  /** The raw edge weights along `path` (length `hops`). */
  readonly weights: number[];
}

export class PathError extends AlgorithmError {
  constructor(code: string, message: string) {
    super("paths/hop-bounded-search", code, message);
    this.name = "PathError";
  }
}

/** A reusable searcher bound to one CSR (holds its scratch buffers). */
export interface HopBoundedSearch {
  readonly csr: Csr;
  /** Cheapest ≤ maxHops paths from `source`; unreachable targets are absent from the result. */
  search(source: number, options?: HopBoundedSearchOptions): HopBoundedPath[];
}

/** Creates a searcher for `csr`; its scratch grows to (maxHops+1)·n on first use and is then reused. */
export function createHopBoundedSearch(csr: Csr): HopBoundedSearch {
  const n = csr.n;
  let levels = 0; // allocated levels (maxHops + 1)
  let levelCost = new Float64Array(0);
  let levelPred = new Int32Array(0);
  let levelStamp = new Uint32Array(0);
  const best = new Float64Array(n);
  const bestStamp = new Uint32Array(n);
  const targetStamp = new Uint32Array(n);
  let stamp = 0;
  let frontier: number[] = [];
  let next: number[] = [];
  const touched: number[] = []; // nodes given a cost in this search (full mode answers these)

  function ensureLevels(count: number): void {
    if (count <= levels) return;
    levels = count;
    levelCost = new Float64Array(count * n);
    levelPred = new Int32Array(count * n);
    levelStamp = new Uint32Array(count * n);
    stamp = 0;
    bestStamp.fill(0);
    targetStamp.fill(0);
  }

  function nextStamp(): number {
    if (stamp === 0xffffffff) {
      stamp = 0;
      levelStamp.fill(0);
      bestStamp.fill(0);
      targetStamp.fill(0);
    }
    return ++stamp;
  }

  function search(source: number, options: HopBoundedSearchOptions = {}): HopBoundedPath[] {
    const maxHops = options.maxHops ?? DEFAULTS.maxHops;
    const minWeight = options.minWeight ?? DEFAULTS.minWeight;
    if (!Number.isInteger(source) || source < 0 || source >= n) {
      throw new PathError("bad-node", `source ${source} outside 0..${n - 1}`);
    }
    if (!Number.isInteger(maxHops) || maxHops < 0) {
      throw new PathError("bad-max-hops", `maxHops must be a non-negative integer, got ${maxHops}`);
    }
    if (!(minWeight > 0) || !Number.isFinite(minWeight)) {
      throw new PathError("bad-min-weight", `minWeight must be a finite number > 0, got ${minWeight}`);
    }
    const targets = options.targets;
    ensureLevels(maxHops + 1);
    const cur = nextStamp();

    // Targets (validated, deduplicated, source excluded).
    let targetList: number[] | null = null;
    if (targets !== undefined) {
      targetList = [];
      for (const t of targets) {
        if (!Number.isInteger(t) || t < 0 || t >= n) {
          throw new PathError("bad-node", `target ${t} outside 0..${n - 1}`);
        }
        if (t === source || targetStamp[t] === cur) continue;
        targetStamp[t] = cur;
        targetList.push(t);
      }
    }

    const custom = options.cost;
    const edgeCost = (w: number, u: number, v: number): number => {
      // The default cost is finite and > 0 for every finite weight >= 0 (all a CSR holds).
      if (custom === undefined) return 1 / Math.max(w, minWeight);
      const c = custom(w);
      if (!(c > 0) || !Number.isFinite(c)) {
        throw new PathError("bad-cost", `cost of edge ${u}->${v} (weight ${w}) is ${c}, expected a finite number > 0`);
      }
      return c;
    };

    // Level 0: the source alone.
    levelCost[source] = 0;
    levelPred[source] = -1;
    levelStamp[source] = cur;
    best[source] = 0;
    bestStamp[source] = cur;
    frontier.length = 0;
    frontier.push(source);
    touched.length = 0;

    const { offsets, targets: outT, weights: outW, inOffsets, inSources, inWeights } = csr;
    const levelCost_ = levelCost;
    const levelPred_ = levelPred;
    const levelStamp_ = levelStamp;
    const lastForward = targetList === null ? maxHops : maxHops - 1;
    for (let h = 1; h <= lastForward && frontier.length > 0; h++) {
      const prevBase = (h - 1) * n;
      const base = h * n;
      next.length = 0;
      for (let f = 0; f < frontier.length; f++) {
        const u = frontier[f]!;
        const du = levelCost_[prevBase + u]!;
        const end = offsets[u + 1]!;
        for (let e = offsets[u]!; e < end; e++) {
          const v = outT[e]!;
          const dv = du + edgeCost(outW[e]!, u, v);
          if (bestStamp[v] === cur) {
            if (dv >= best[v]!) continue;
          } else {
            bestStamp[v] = cur;
            touched.push(v);
          }
          best[v] = dv;
          const k = base + v;
          if (levelStamp_[k] !== cur) {
            levelStamp_[k] = cur;
            next.push(v);
          }
          levelCost_[k] = dv;
          levelPred_[k] = u;
        }
      }
      const swap = frontier;
      frontier = next;
      next = swap;
    }

    if (targetList !== null && maxHops > 0 && frontier.length > 0) {
      // Last round restricted to the targets: pull over their in-edges from level maxHops-1.
      const prevBase = (maxHops - 1) * n;
      const base = maxHops * n;
      for (const t of targetList) {
        const end = inOffsets[t + 1]!;
        for (let e = inOffsets[t]!; e < end; e++) {
          const u = inSources[e]!;
          if (levelStamp_[prevBase + u] !== cur) continue;
          const dt = levelCost_[prevBase + u]! + edgeCost(inWeights[e]!, u, t);
          if (bestStamp[t] === cur && dt >= best[t]!) continue;
          best[t] = dt;
          bestStamp[t] = cur;
          const k = base + t;
          levelStamp_[k] = cur;
          levelCost_[k] = dt;
          levelPred_[k] = u;
        }
      }
    }

    const answerFor = targetList ?? touched.slice().sort((a, b) => a - b);
    const out: HopBoundedPath[] = [];
    for (const t of answerFor) {
      if (bestStamp[t] !== cur) continue;
      // The latest level holding an entry for t holds its cheapest cost.
      let level = maxHops;
      while (level > 0 && levelStamp[level * n + t] !== cur) level--;
      if (level === 0) continue;
      const path = new Array<number>(level + 1);
      const weights = new Array<number>(level);
      let v = t;
      for (let h = level; h > 0; h--) {
        path[h] = v;
        const u = levelPred[h * n + v]!;
        weights[h - 1] = edgeWeight(csr, u, v);
        v = u;
      }
      path[0] = v;
      out.push({ source, target: t, path, hops: level, cost: levelCost[level * n + t]!, weights });
    }
    return out;
  }

  return { csr, search };
}

/** One-shot convenience: a fresh searcher, one search. Prefer `createHopBoundedSearch` in loops. */
export function hopBoundedShortestPaths(
  csr: Csr,
  source: number,
  options: HopBoundedSearchOptions = {},
): HopBoundedPath[] {
  return createHopBoundedSearch(csr).search(source, options);
}
