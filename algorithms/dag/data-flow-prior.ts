/**
 * Data-flow prior: one proposed dependency for a set of tools that no evidence relates at all.
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
 *   (remaining ties → the smaller node id pair (from, then to): the answer never depends on the input order)
 *
 *   consumer(v) = shrunk(Σ_u learned dependency count(u → v), executions(v))
 *   producer(u) = shrunk(Σ_v learned dependency count(u → v), executions(u))
 *   shrunk(k, n) = min(1, (k + w·base) / (n + w)),  base = Σ all dependency counts / Σ all executions
 *                  (the project's share of steps that read another step's output), w = priorWeight (5)
 *   — an empirical-Bayes estimate: a tool seen once keeps mostly the project's base rate, so one nested call
 *   in a project where data rarely flows (Seal-Tools: base 34 / 1,804 = 0.019) does not make a "consumer".
 *   first(u)    = out / (out + in) of u's learned successions (sequence + dependency + contains counts; ½ if none)
 *
 * and kept only when the history shows the roles the edge needs: role = max(consumer(B), producer(A)) ≥
 * minRoleRate (0.2). A project whose tools rarely pass data (Seal-Tools: 94 % of multi-call training traces have
 * no dependency) has rates near 0 and gets no proposal. Strength = strengthScale (0.3) × role ≤ 0.3, below the
 * weakest learned edge (0.5).
 *
 * Parameters (priorWeight 5, minRoleRate 0.2) were chosen by leave-one-out on training traces only; the
 * measurements are in the commit that chose them and in bench/README.md "Decisions".
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
  priorWeight: 5,
} as const;

/**
 * shrunk(k, n) of the header: min(1, (k + w·base) / (n + w)); base when n = 0 (and w > 0); 0 when n = w = 0.
 */
export function shrunkRate(count: number, runs: number, base: number, weight: number = DEFAULTS.priorWeight): number {
  const d = runs + weight;
  return d <= 0 ? 0 : Math.min(1, (count + weight * base) / d);
}

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
export function dataFlowPrior(
  selected: readonly number[],
  candidates: readonly DependencyEdge[],
  options: DataFlowPriorOptions = {},
): PriorDependency[] {
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
      const a = selected[i]!;
      const b = selected[j]!;
      if (
        best === undefined ||
        greater(key, best.key) ||
        (!greater(best.key, key) && (a < selected[best.i]! || (a === selected[best.i]! && b < selected[best.j]!)))
      ) {
        best = { i, j, key, schema };
      }
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

/** Lexicographic x > y. */
function greater(x: readonly number[], y: readonly number[]): boolean {
  for (let k = 0; k < x.length; k++) {
    if (x[k]! > y[k]!) return true;
    if (x[k]! < y[k]!) return false;
  }
  return false;
}
