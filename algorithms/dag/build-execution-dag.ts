/**
 * Execution DAG for selected tools (algorithms/README.md "DAG", docs/decisions/edge-quality.md), in four passes:
 *
 *   1. candidates: B depends on A ⇔ cheapest A → B path with ≤ maxHops (3) edges, cost 1/max(w, 0.1);
 *      strength = (1 / hops) × mean edge weight; a direct `dependency` edge wins; multi-hop paths run
 *      over `pathCsr` only (the learned edges), an edge only in `csr` (declared) is a 1-hop relation
 *      on its own, never a hop of a longer path                                  (infer-dependencies.ts)
 *      plus, optionally, edges `propose`d for the rest (schema-dependencies.ts: unrelated pairs whose
 *      output and input fields match, weaker than any learned edge)
 *      then, with `mentions` given (the intent's mention positions, mention-order.ts), a non-direct candidate
 *      between two tools with no precedence evidence (n(A→B) + n(B→A) < mentionMinObserved, 1 = never seen
 *      in succession either way) is oriented by the order the intent mentions them — observed precedence
 *      and direct edges always win;
 *      then, with `roles` given, a multi-hop candidate between two tools never observed in succession
 *      either way (the `precedence` counts; every pair when none are given) is oriented by the tools'
 *      learned roles — the consumer goes second (role-orientation.ts);
 *      then, with `directFirst`, a tool with a direct dependency edge keeps no other kind of prerequisite
 *      (direct-first.ts)
 *   2. cycles of any length broken by dropping the weakest edge of each, until acyclic (break-cycles.ts);
 *      weakest = lowest strength × observed precedence share when `precedence` counts are given
 *      (precedence.ts: the direction seen less often goes first), exact ties dropped together — never
 *      decided by node id or input order
 *   3. transitive reduction (transitive-reduction.ts); with `keepDirect`, direct dependency edges are kept
 *   4. longest-path layers — one layer runs in parallel (topological-layers.ts) — and, with latencies,
 *      the critical path: wall time = Σ latency on it vs sequential = Σ all latencies (critical-path.ts)
 *
 * Every kept edge carries its justifying path, hops, cost, strength and `direct` flag; every dropped
 * edge its reason and witness; every node why it sits where it is (a tool with no relation to the
 * others is its own root and says so), naming the other nodes by `label` (the caller's tool ids).
 */

import type { Csr } from "../graph/csr.ts";
import { breakCycles } from "./break-cycles.ts";
import type { CriticalPathResult } from "./critical-path.ts";
import { criticalPath } from "./critical-path.ts";
import type { DependencyEdge, DroppedArc } from "./dependency-edge.ts";
import { directFirst } from "./direct-first.ts";
import type { InferDependenciesOptions } from "./infer-dependencies.ts";
import { DEFAULTS as INFER_DEFAULTS, inferDependencies } from "./infer-dependencies.ts";
import { DEFAULTS as MENTION_DEFAULTS } from "./mention-order.ts";
import { DEFAULTS as PRECEDENCE_DEFAULTS, type Precedence, precedenceShare } from "./precedence.ts";
import { type OrientedDependency, orientByRoles, type RoleOrientationOptions } from "./role-orientation.ts";
import { topologicalLayers } from "./topological-layers.ts";
import { transitiveReduction } from "./transitive-reduction.ts";

export interface BuildExecutionDagOptions extends InferDependenciesOptions {
  /** Latency of a tool in ms (undefined = unknown). Default: none, and `timing` says so. */
  readonly latencyMs?: (node: number) => number | undefined;
  /** Latency counted for tools whose latency is unknown. Default `DEFAULTS.unknownLatencyMs` (0). */
  readonly unknownLatencyMs?: number;
  /**
   * Further candidate edges given the inferred ones (e.g. schema-dependencies.ts for unrelated pairs); they
   * go through cycle breaking and transitive reduction with the rest. Default: none.
   */
  readonly propose?: (inferred: readonly DependencyEdge[]) => readonly DependencyEdge[];
  /**
   * Times `from` was observed before `to` (e.g. learned succession counts of the edge from→to). When given,
   * every candidate carries its `precedence` and cycles are broken by strength × share (precedence.ts).
   * Default: none (strength alone).
   */
  readonly precedence?: (from: number, to: number) => number;
  /**
   * Learned roles orienting the non-direct candidates of pairs never observed in either order (role-orientation.ts;
   * "observed" = a `precedence` count > 0 either way). Default: none (the direction the evidence was found in).
   */
  readonly roles?: Omit<RoleOrientationOptions, "observed">;
  /**
   * Intent mention positions of the selected tools (mention-order.ts mentionPositions; undefined = not
   * mentioned): orient the non-direct candidates of pairs without precedence evidence by mention order
   * (role-orientation.ts's pass, proposals included). Default: none.
   */
  readonly mentions?: (node: number) => number | undefined;
  /** Pairs observed fewer times than this (both orders together) count as without evidence. Default mention-order.ts DEFAULTS.minObserved (1). */
  readonly mentionMinObserved?: number;
  /** Drop the non-direct candidates into a tool that has a direct prerequisite (direct-first.ts). Default false. */
  readonly directFirst?: boolean;
  /** Transitive reduction never drops a direct dependency edge (transitive-reduction.ts `keep`). Default false. */
  readonly keepDirect?: boolean;
  /** Pseudo-observations of the "either order" prior. Default `precedence.ts` DEFAULTS.priorWeight (2). */
  readonly precedencePrior?: number;
  /**
   * How a node is named in the nodes' reasons ("runs after …", "required by …"): the caller's names (tool ids),
   * never its internal indices. Default `String(node)` (the algorithm knows no other name).
   */
  readonly label?: (node: number) => string;
}

/** A candidate edge with the observed order of its two ends (when `precedence` counts were given). */
export type OrderedEdge = DependencyEdge & {
  readonly precedence?: Precedence;
  readonly orientation?: OrientedDependency["orientation"];
};

export const DEFAULTS = {
  ...INFER_DEFAULTS,
  unknownLatencyMs: 0,
} as const;

export interface DagNode {
  readonly node: number;
  /** Index into `layers`. */
  readonly layer: number;
  /** Kept prerequisites (edge tails), in input order. */
  readonly prerequisites: number[];
  /** Kept dependents (edge heads), in input order. */
  readonly dependents: number[];
  /** True when the node has no kept prerequisite (layer 0). */
  readonly root: boolean;
  /** Why the node is where it is. */
  readonly reason: string;
}

export interface ExecutionDag {
  /** One entry per selected tool, in input order. */
  readonly nodes: DagNode[];
  /** Kept edges (acyclic, transitively reduced but for direct edges under `keepDirect`), ordered by input position of from, then to (a reversed edge keeps its candidate's place). */
  readonly edges: OrderedEdge[];
  /** Edges dropped by role orientation, then direct-first, then cycle breaking (in drop order), then transitive reduction. */
  readonly dropped: DroppedArc<OrderedEdge>[];
  /** Parallel layers of node ids; every kept edge goes from a lower layer to a higher one. */
  readonly layers: number[][];
  /** Critical path and wall time; empty with a reason when no latencyMs was given. */
  readonly timing: CriticalPathResult;
}

/**
 * `{ ...e, precedence }`. An edge with exactly the eight DependencyEdge fields (inferDependencies' edges) is
 * copied by a literal of those fields in their order: in V8 a spread here gives every copy a hidden class of
 * its own (thousands of shapes per DAG batch), which makes each later field read of every pass slow.
 */
function withPrecedence(e: OrderedEdge, precedence: Precedence): OrderedEdge {
  let keys = 0;
  for (const _ in e) keys++;
  if (keys === 8) {
    return {
      from: e.from,
      to: e.to,
      path: e.path,
      hops: e.hops,
      cost: e.cost,
      meanWeight: e.meanWeight,
      strength: e.strength,
      direct: e.direct,
      precedence,
    };
  }
  return { ...e, precedence };
}

export function buildExecutionDag(
  csr: Csr,
  selected: readonly number[],
  options: BuildExecutionDagOptions = {},
): ExecutionDag {
  const maxHops = options.maxHops ?? DEFAULTS.maxHops;
  const inferred = inferDependencies(csr, selected, options);
  const position = new Map<number, number>(selected.map((v, i) => [v, i]));
  const proposed = options.propose
    ? [...inferred, ...options.propose(inferred)].sort(
        (x, y) => position.get(x.from)! - position.get(y.from)! || position.get(x.to)! - position.get(y.to)!,
      )
    : inferred;
  const count = options.precedence;
  const minSeen = options.mentionMinObserved ?? MENTION_DEFAULTS.minObserved;
  const mentioned = options.mentions
    ? orientByRoles(proposed, {
        mentions: options.mentions,
        minHops: 1,
        ...(count ? { observed: (a: number, b: number) => count(a, b) + count(b, a) >= minSeen } : {}),
      })
    : undefined;
  const afterMentions: readonly OrderedEdge[] = mentioned ? mentioned.edges : proposed;
  const oriented = options.roles
    ? orientByRoles(afterMentions, {
        ...options.roles,
        ...(count ? { observed: (a: number, b: number) => count(a, b) > 0 } : {}),
      })
    : undefined;
  const orientedEdges: readonly OrderedEdge[] = oriented ? oriented.edges : afterMentions;
  const screened = options.directFirst ? directFirst(orientedEdges) : undefined;
  const found: readonly OrderedEdge[] = screened ? screened.kept : orientedEdges;
  const prior = options.precedencePrior ?? PRECEDENCE_DEFAULTS.priorWeight;
  const candidates: OrderedEdge[] = count
    ? found.map((e) => {
        const before = count(e.from, e.to);
        const after = count(e.to, e.from);
        return withPrecedence(e, { before, after, share: precedenceShare(before, after, prior) });
      })
    : found.slice();
  const acyclic = breakCycles(
    selected,
    candidates,
    count ? { orderWeight: (e: OrderedEdge) => e.strength * e.precedence!.share } : {},
  );
  const reduced = transitiveReduction(
    selected,
    acyclic.kept,
    options.keepDirect ? { keep: (e: OrderedEdge) => e.direct } : {},
  );
  const { layers, layerOf } = topologicalLayers(selected, reduced.kept);

  // Related = any candidate before the screening passes (a tool whose path was dropped by direct-first is not "own root").
  const related = new Set<number>();
  for (const e of proposed) {
    related.add(e.from);
    related.add(e.to);
  }
  const cycleDroppedInto = new Map<number, number[]>();
  for (const d of acyclic.dropped) {
    const list = cycleDroppedInto.get(d.edge.to) ?? [];
    list.push(d.edge.from);
    cycleDroppedInto.set(d.edge.to, list);
  }
  const byPosition = (a: number, b: number) => position.get(a)! - position.get(b)!;
  const label = options.label ?? String;
  const names = (xs: readonly number[]) => xs.map((x) => label(x)).join(", ");
  const prerequisites = new Map<number, number[]>(selected.map((v) => [v, []]));
  const dependents = new Map<number, number[]>(selected.map((v) => [v, []]));
  for (const e of reduced.kept) {
    prerequisites.get(e.to)!.push(e.from);
    dependents.get(e.from)!.push(e.to);
  }

  const nodes: DagNode[] = selected.map((v) => {
    const pre = prerequisites.get(v)!.sort(byPosition);
    const dep = dependents.get(v)!.sort(byPosition);
    const layer = layerOf.get(v)!;
    const root = pre.length === 0;
    let reason: string;
    if (!related.has(v)) {
      reason = `own root: no path of at most ${maxHops} hops to or from any other selected tool`;
    } else if (root) {
      const parts = ["root: no prerequisite among the selected tools"];
      const cut = cycleDroppedInto.get(v);
      if (cut !== undefined) parts.push(`incoming edges from ${names(cut)} dropped to break cycles`);
      if (dep.length > 0) parts.push(`required by ${names(dep)}`);
      reason = parts.join("; ");
    } else {
      reason = `layer ${layer}: runs after ${names(pre)}`;
    }
    return { node: v, layer, prerequisites: pre, dependents: dep, root, reason };
  });

  const timing: CriticalPathResult =
    options.latencyMs === undefined
      ? {
          path: [],
          wallTimeMs: 0,
          sequentialMs: 0,
          speedup: 1,
          unknownLatency: [],
          reason: "no latencyMs given",
        }
      : criticalPath(selected, reduced.kept, options.latencyMs, {
          unknownLatencyMs: options.unknownLatencyMs ?? DEFAULTS.unknownLatencyMs,
        });

  return {
    nodes,
    edges: reduced.kept,
    dropped: [
      ...(mentioned?.dropped ?? []),
      ...(oriented?.dropped ?? []),
      ...(screened?.dropped ?? []),
      ...acyclic.dropped,
      ...reduced.dropped,
    ],
    layers,
    timing,
  };
}
