/**
 * Data-flow prior: one proposed dependency for a set of tools that no evidence relates at all (issue 6).
 *
 * A workflow of several tools usually passes data between them: every multi-step NESTFUL training trace has
 * at least one dependency, and on the pairs never seen together in training the learned graph is silent.
 * When the candidate edges (learned, declared, schema proposals) among ≥ 2 selected tools are empty, the most
 * plausible single edge A → B is proposed, ranked lexicographically by
 *
 *   key(A → B) = ( schema(A → B),                          output → required-input fit (schema-dependencies.ts)
 *                  consumer(B) − consumer(A),              B reads other tools' output more often than A
 *                  producer(A) − producer(B),              A's output feeds other tools more often than B's
 *                  first(A) − first(B) )                   A tends to come earlier in learned successions
 *   (remaining ties → earlier in `selected`; with distinct keys the answer does not depend on the input order)
 *
 *   consumer(v) = min(1, Σ_u learned dependency count(u → v) / executions(v))
 *   producer(u) = min(1, Σ_v learned dependency count(u → v) / executions(u))
 *   first(u)    = out / (out + in) of u's learned successions (sequence + dependency + contains counts; ½ if none)
 *
 * and kept only when the history shows the roles the edge needs: role = max(consumer(B), producer(A)) ≥
 * minRoleRate (0.2). A project whose tools rarely pass data (Seal-Tools: 94 % of multi-call training traces have
 * no dependency) has rates near 0 and gets no proposal. Strength = strengthScale (0.3) × role ≤ 0.3, below the
 * weakest learned edge (0.5).
 *
 * Chosen on NESTFUL's 150 TRAINING traces only (leave-one-out: each multi-step trace's DAG built from the other
 * 149, gold tool set given, dependency graph; edge F1 on the 128 traces whose tools all occur in the others):
 *   no prior 0.772; this rule 0.804 (the same with `selected` reversed or sorted);
 *   minRoleRate 0 → 0.805, 0.1 → 0.804, 0.2 → 0.804, 0.3 → 0.802 (0.2 kept: a role the history must show);
 *   ranking by schema(A → B) alone 0.817, but 0.787 with the selected tools reversed (its many ties fall to
 *   the input order, which in a benchmark is the gold order); schema then consumer difference only: 0.811 / 0.799;
 *   linking every unrelated component instead of only edgeless sets 0.782 (NESTFUL keeps 14 % of tools isolated);
 *   linking isolated tools of partly related sets when schema ≥ 0.4 … 0.8: 0.793 … 0.805 (no gain).
 * (The grid ran on per-pair features dumped from the same leave-one-out snapshots, bench/tmp.)
 *
 * Source: the "one connected data flow" assumption of nested function calling benchmarks (NESTFUL, Basu et al.
 * 2024, arXiv 2409.03797; TaskBench's tool graphs, Shen et al. 2023) made conditional on learned tool roles;
 * the input/output fit is Paolucci et al.'s plug-in matching (schema-dependencies.ts).
 */

import { DagError } from "./dag-error.ts";
import type { DependencyEdge } from "./dependency-edge.ts";

const MODULE = "dag/data-flow-prior";

export interface DataFlowPriorOptions {
  /** schema(A → B) ∈ [0, 1] with the fields that matched, or undefined (no schemas). Default: none (0). */
  readonly schemaMatch?: (from: number, to: number) => { score: number; output: string; input: string } | undefined;
  /** consumer(v) ∈ [0, 1]. Default 0 for every tool. */
  readonly consumerRate?: (node: number) => number;
  /** producer(u) ∈ [0, 1]. Default 0 for every tool. */
  readonly producerRate?: (node: number) => number;
  /** first(u) ∈ [0, 1]. Default ½ for every tool. */
  readonly firstShare?: (node: number) => number;
  /** Smallest role = max(consumer(B), producer(A)) for a proposal. Default `DEFAULTS.minRoleRate` (0.2). */
  readonly minRoleRate?: number;
  /** Strength of the proposed edge = strengthScale × role. Default `DEFAULTS.strengthScale` (0.3). */
  readonly strengthScale?: number;
}

export const DEFAULTS = {
  minRoleRate: 0.2,
  strengthScale: 0.3,
} as const;

/** The proposed edge: one hop, with what ranked it. */
export interface PriorDependency extends DependencyEdge {
  readonly prior: {
    /** max(consumer(to), producer(from)). */
    readonly role: number;
    readonly consumer: number;
    readonly producer: number;
    /** schema(from → to); 0 with empty field names when no schema matched. */
    readonly schema: { readonly output: string; readonly input: string; readonly score: number };
  };
}

function check(name: string, v: number): void {
  if (!(v >= 0 && v <= 1)) throw new DagError(MODULE, "bad-option", `${name} must be in [0, 1], got ${v}`);
}

/**
 * The data-flow prior's proposal among `selected` (distinct node ids) given the `candidates` already found:
 * an empty list unless `candidates` is empty and `selected` has ≥ 2 tools; at most one edge.
 */
export function dataFlowPrior(selected: readonly number[], candidates: readonly DependencyEdge[], options: DataFlowPriorOptions = {}): PriorDependency[] {
  const minRole = options.minRoleRate ?? DEFAULTS.minRoleRate;
  const scale = options.strengthScale ?? DEFAULTS.strengthScale;
  check("minRoleRate", minRole);
  check("strengthScale", scale);
  if (candidates.length > 0 || selected.length < 2) return [];
  const consumer = options.consumerRate ?? (() => 0);
  const producer = options.producerRate ?? (() => 0);
  const first = options.firstShare ?? (() => 0.5);
  const c = selected.map(consumer);
  const p = selected.map(producer);
  const f = selected.map(first);
  let best: { i: number; j: number; key: number[]; schema: PriorDependency["prior"]["schema"] } | undefined;
  for (let i = 0; i < selected.length; i++) {
    for (let j = 0; j < selected.length; j++) {
      if (i === j) continue;
      const m = options.schemaMatch?.(selected[i]!, selected[j]!);
      const schema = m === undefined || m.output === "" ? { output: "", input: "", score: 0 } : m;
      const key = [schema.score, c[j]! - c[i]!, p[i]! - p[j]!, f[i]! - f[j]!];
      if (best === undefined || greater(key, best.key)) best = { i, j, key, schema };
    }
  }
  if (best === undefined) return [];
  const role = Math.max(c[best.j]!, p[best.i]!);
  if (!(role >= minRole)) return [];
  const from = selected[best.i]!;
  const to = selected[best.j]!;
  const strength = scale * role;
  return [
    {
      from,
      to,
      path: [from, to],
      hops: 1,
      cost: 1 / Math.max(strength, 1e-9),
      meanWeight: strength,
      strength,
      direct: false,
      prior: { role, consumer: c[best.j]!, producer: p[best.i]!, schema: best.schema },
    },
  ];
}

/** Lexicographic x > y (equal keys are not greater: the earlier pair stays). */
function greater(x: readonly number[], y: readonly number[]): boolean {
  for (let k = 0; k < x.length; k++) {
    if (x[k]! > y[k]!) return true;
    if (x[k]! < y[k]!) return false;
  }
  return false;
}
