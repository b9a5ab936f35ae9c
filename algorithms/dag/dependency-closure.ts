/**
 * Dependency closure for intent → plan: starting from seed tools, add their prerequisites
 * (declared/learned dependency edges prerequisite → dependent) transitively, breadth first:
 *
 *   level 0 = seeds;  level d = { p ∉ earlier levels : p → v for some v ∈ level d-1 },  d ≤ maxDepth (3)
 *
 * so a prerequisite is added at its smallest depth. Within a level, candidates are added by
 * descending edge weight (the strongest requirement wins when several nodes require the same one),
 * ties in discovery order (frontier order, then the order `prerequisitesOf` lists them), until
 * `maxAdded` additions. Each addition names the node that required it, its depth and the edge weight.
 * Source: bounded breadth-first search (Moore, "The shortest path through a maze", 1959).
 */

import { DagError } from "./dag-error.ts";

const MODULE = "dag/dependency-closure";

export interface Prerequisite<T> {
  /** The prerequisite node (tail of the edge prerequisite → dependent). */
  readonly node: T;
  /** Edge weight in [0, ∞), normally an edge quality in (0, 1]. */
  readonly weight: number;
}

export interface DependencyClosureOptions {
  /** Largest depth of an added prerequisite (seeds are depth 0). Default `DEFAULTS.maxDepth` (3). */
  readonly maxDepth?: number;
  /** Largest number of added prerequisites. Default `DEFAULTS.maxAdded` (Infinity). */
  readonly maxAdded?: number;
}

export const DEFAULTS = {
  maxDepth: 3,
  maxAdded: Number.POSITIVE_INFINITY,
} as const;

export interface ClosureAddition<T> {
  readonly node: T;
  /** The node (seed or earlier addition) whose prerequisite this is. */
  readonly requiredBy: T;
  /** 1 = prerequisite of a seed, 2 = of a depth-1 addition, ... */
  readonly depth: number;
  /** Weight of the edge node → requiredBy. */
  readonly weight: number;
  readonly explanation: string;
}

export interface DependencyClosureResult<T> {
  /** Seeds (deduplicated, in order) followed by the additions in the order they were added. */
  readonly nodes: T[];
  readonly added: ClosureAddition<T>[];
  /** True when prerequisites were left out because of maxDepth or maxAdded. */
  readonly truncated: boolean;
  /** Why the closure stopped early, else null. */
  readonly reason: string | null;
}

export function dependencyClosure<T>(
  seeds: readonly T[],
  prerequisitesOf: (node: T) => Iterable<Prerequisite<T>>,
  options: DependencyClosureOptions = {},
): DependencyClosureResult<T> {
  const maxDepth = options.maxDepth ?? DEFAULTS.maxDepth;
  const maxAdded = options.maxAdded ?? DEFAULTS.maxAdded;
  if (!Number.isInteger(maxDepth) || maxDepth < 0) {
    throw new DagError(MODULE, "bad-max-depth", `maxDepth must be a non-negative integer, got ${maxDepth}`);
  }
  if (!(maxAdded >= 0) || (Number.isFinite(maxAdded) && !Number.isInteger(maxAdded))) {
    throw new DagError(MODULE, "bad-max-added", `maxAdded must be a non-negative integer or Infinity, got ${maxAdded}`);
  }
  const included = new Set<T>();
  const nodes: T[] = [];
  for (const s of seeds) {
    if (included.has(s)) continue;
    included.add(s);
    nodes.push(s);
  }
  const added: ClosureAddition<T>[] = [];
  const requirements = (v: T): Prerequisite<T>[] => {
    const list = Array.from(prerequisitesOf(v));
    for (const p of list) {
      if (!(p.weight >= 0) || !Number.isFinite(p.weight)) {
        throw new DagError(
          MODULE,
          "bad-weight",
          `prerequisite ${String(p.node)} of ${String(v)} has weight ${p.weight}`,
        );
      }
    }
    return list;
  };

  let frontier = nodes.slice();
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const candidates = new Map<T, { requiredBy: T; weight: number; order: number }>();
    for (const v of frontier) {
      for (const p of requirements(v)) {
        if (included.has(p.node)) continue;
        const prev = candidates.get(p.node);
        if (prev === undefined) candidates.set(p.node, { requiredBy: v, weight: p.weight, order: candidates.size });
        else if (p.weight > prev.weight) candidates.set(p.node, { requiredBy: v, weight: p.weight, order: prev.order });
      }
    }
    const ranked = Array.from(candidates).sort((a, b) => b[1].weight - a[1].weight || a[1].order - b[1].order);
    const next: T[] = [];
    for (const [node, c] of ranked) {
      if (added.length >= maxAdded) {
        return {
          nodes,
          added,
          truncated: true,
          reason: `stopped at maxAdded = ${maxAdded}: ${ranked.length - next.length} prerequisite(s) at depth ${depth} left out`,
        };
      }
      included.add(node);
      nodes.push(node);
      next.push(node);
      added.push({
        node,
        requiredBy: c.requiredBy,
        depth,
        weight: c.weight,
        explanation: `${String(node)} added: prerequisite of ${String(c.requiredBy)} (depth ${depth}, edge weight ${c.weight})`,
      });
    }
    frontier = next;
  }
  // Anything still missing beyond the depth bound?
  if (frontier.length > 0) {
    const beyond = new Set<T>();
    for (const v of frontier) for (const p of requirements(v)) if (!included.has(p.node)) beyond.add(p.node);
    if (beyond.size > 0) {
      return {
        nodes,
        added,
        truncated: true,
        reason: `stopped at maxDepth = ${maxDepth}: ${beyond.size} prerequisite(s) at depth ${maxDepth + 1} left out`,
      };
    }
  }
  return { nodes, added, truncated: false, reason: null };
}
