/**
 * Direction of a relation the history never observed in either order: a candidate edge A → B that
 * is not a direct dependency edge (a multi-hop path, a schema or data-flow prior proposal) between two tools
 * never seen in succession either way (n(A→B) = n(B→A) = 0, precedence.ts) says that the two are related, not
 * which one runs first — a path A → X → B over other workflows' edges points whichever way those workflows
 * happened to go. Such a pair is oriented by the two tools' learned roles:
 *
 *   lean(A → B) = ( consumer(B) − consumer(A),        B reads other tools' output more often than A
 *                   schema(A → B) − schema(B → A),    A's outputs fit B's required inputs better than the reverse
 *                   first(A) − first(B) )             A tends to come first in its learned successions
 *   compared lexicographically with 0 (a component within ±1e-12 counts as 0):
 *     lean > 0  ⇒ A → B kept;   lean = 0 ⇒ kept as found;
 *     lean < 0  ⇒ reversed to a one-hop B → A with the same strength, cost and mean weight, its
 *                 `orientation.evidence` being the relating path as found (A ⇝ B).
 *   Both A → B and B → A among the candidates of one unobserved pair: the edge against a non-zero lean is
 *   dropped (reason "orientation"), the other kept as found; with lean = 0 both stay for cycle breaking, which
 *   drops exact ties together. A pair with a direct edge either way is left as it is.
 *
 * consumer(v) = the shrunk share of v's runs that read another tool's output (data-flow-prior.ts shrunkRate),
 * schema = schema-dependencies.ts score (0 without schemas), first = rates.ts firstShare (½ without successions).
 *
 * Chosen on training traces only (NESTFUL's 150 training traces, leave-one-out: for each gold dependency
 * A → B of a trace whose pair the other 149 traces never show in succession — 49 pairs — which signal points
 * the right way): consumer difference 43 right / 6 wrong; schema difference 30 / 7 (12 ties); producer
 * difference 38 / 11; first-share difference 33 / 13 (3 ties); the direction of the existing ≤ 3-hop path over
 * the other traces' dependency edges 10 / 1 (38 pairs without a path), every one of those 11 also right by
 * consumer. Observed pairs keep their observed order (right 115 / 121 in the same leave-one-out).
 * ToolLinkOS training traces have no unobserved gold pair (4,127 observed, all in the observed order).
 *
 * Source: the producer/consumer roles of a data-flow graph (a consumer's inputs come from earlier steps;
 * NESTFUL, Basu et al. 2024, arXiv 2409.03797), estimated from the learned dependency counts.
 *
 * Invariants: an edge of an observed pair, or of a pair with a direct edge, is returned unchanged; no output
 * edge points against a non-zero lean; the output has no duplicate (from, to) and never more edges per pair
 * than the input; each edge's fate depends only on its pair, not on the order of the input edges; pure.
 */

import { DagError } from "./dag-error.ts";
import type { DependencyEdge, DroppedArc } from "./dependency-edge.ts";
import { mentionLean } from "./mention-order.ts";

const MODULE = "dag/role-orientation";

export const DEFAULTS = {
  /** Components of lean within ±epsilon count as 0. */
  epsilon: 1e-12,
  minHops: 2,
} as const;

/** What oriented a reversed edge. */
export interface Orientation {
  /** The relating evidence as found: a path from the new `to` to the new `from` (a proposal: the two ends). */
  readonly evidence: readonly number[];
  /** consumer(from), consumer(to) of the final direction (oriented by roles). */
  readonly consumerFrom?: number;
  readonly consumerTo?: number;
  /** The intent token positions naming from and to (oriented by mention order, mention-order.ts). */
  readonly mention?: { readonly from: number; readonly to: number };
}

/** An edge reversed by its learned roles: one hop between its ends, with the evidence that related them. */
export interface OrientedDependency extends DependencyEdge {
  readonly orientation: Orientation;
}

export interface RoleOrientationOptions {
  /** True when from and to were observed in succession, in either order. Default: never (every pair unobserved). */
  readonly observed?: (a: number, b: number) => boolean;
  /** consumer(v) ∈ [0, 1]. Required unless `mentions` or `lean` is given. */
  readonly consumerRate?: (v: number) => number;
  /**
   * Intent mention positions (mention-order.ts): when given (and no `lean`), the lean is mentionLean of the two
   * positions instead of the roles', and a reversed edge records the positions. Default: none.
   */
  readonly mentions?: (v: number) => number | undefined;
  /** schema(a → b) ∈ [0, 1]. Default 0. */
  readonly schemaScore?: (a: number, b: number) => number;
  /** first(v) ∈ [0, 1]. Default ½. */
  readonly firstShare?: (v: number) => number;
  /** Smallest number of hops of an edge to orient (1: proposals too; 2: multi-hop paths only). Default `DEFAULTS.minHops`. */
  readonly minHops?: number;
  /** Replaces roleLean (sign of the lean of a → b), e.g. to compare other role orders. Default: roleLean. */
  readonly lean?: (a: number, b: number) => number;
}

export interface RoleOrientationResult<E extends DependencyEdge> {
  /** Edges in input order (a reversed edge at its original position). */
  readonly edges: (E | OrientedDependency)[];
  /** Edges dropped because the other direction of the same unobserved pair leans the right way. */
  readonly dropped: DroppedArc<E>[];
}

/** sign(lean(a → b)) of the header: 1, −1 or 0. */
export function roleLean(a: number, b: number, options: RoleOrientationOptions): number {
  const c = options.consumerRate;
  if (!c) throw new DagError(MODULE, "bad-rate", "consumerRate is required to orient by roles");
  const components = [
    c(b) - c(a),
    (options.schemaScore?.(a, b) ?? 0) - (options.schemaScore?.(b, a) ?? 0),
    (options.firstShare?.(a) ?? 0.5) - (options.firstShare?.(b) ?? 0.5),
  ];
  for (const x of components) {
    if (!Number.isFinite(x))
      throw new DagError(MODULE, "bad-rate", `role rates must be finite, got lean component ${x} for ${a}→${b}`);
    if (x > DEFAULTS.epsilon) return 1;
    if (x < -DEFAULTS.epsilon) return -1;
  }
  return 0;
}

/** Orients the non-direct candidate edges of unobserved pairs by the learned roles of their ends. */
export function orientByRoles<E extends DependencyEdge>(
  edges: readonly E[],
  options: RoleOrientationOptions,
): RoleOrientationResult<E> {
  const observed = options.observed ?? (() => false);
  // Edges by tail, then head (numeric keys: no string per lookup).
  const byPair = new Map<number, Map<number, E>>();
  for (const e of edges) {
    let heads = byPair.get(e.from);
    if (heads === undefined) {
      heads = new Map();
      byPair.set(e.from, heads);
    }
    if (heads.has(e.to)) throw new DagError(MODULE, "duplicate-edge", `edge ${e.from}->${e.to} appears twice`);
    heads.set(e.to, e);
  }
  const out: (E | OrientedDependency)[] = [];
  const dropped: DroppedArc<E>[] = [];
  for (const e of edges) {
    const back = byPair.get(e.to)?.get(e.from);
    // A pair with a direct edge, or observed in either order, keeps what it has.
    const minHops = options.minHops ?? DEFAULTS.minHops;
    if (
      e.from === e.to ||
      e.direct ||
      e.hops < minHops ||
      back?.direct === true ||
      observed(e.from, e.to) ||
      observed(e.to, e.from)
    ) {
      out.push(e);
      continue;
    }
    const mentions = options.lean ? undefined : options.mentions;
    const lean = options.lean
      ? options.lean(e.from, e.to)
      : mentions
        ? mentionLean(mentions(e.from), mentions(e.to))
        : roleLean(e.from, e.to, options);
    if (lean >= 0) {
      out.push(e);
      continue;
    }
    if (back !== undefined) {
      dropped.push({
        edge: e,
        reason: "orientation",
        witness: [e.to, e.from],
        explanation: `dropped ${e.from}→${e.to}: never observed in either order; ${mentions ? "the intent mentions" : "the learned roles point"} ${e.to}→${e.from}, also a candidate`,
      });
      continue;
    }
    out.push({
      from: e.to,
      to: e.from,
      path: [e.to, e.from],
      hops: 1,
      cost: e.cost,
      meanWeight: e.meanWeight,
      strength: e.strength,
      direct: false,
      orientation: mentions
        ? { evidence: e.path, mention: { from: mentions(e.to)!, to: mentions(e.from)! } }
        : {
            evidence: e.path,
            ...(options.consumerRate
              ? { consumerFrom: options.consumerRate(e.to), consumerTo: options.consumerRate(e.from) }
              : {}),
          },
    });
  }
  return { edges: out, dropped };
}
