/**
 * The history guard's default strength before any fit: how much a project's past requests say about the
 * requests it has not seen yet, judged on the history itself. For each sampled past request i (one per
 * near-duplicate intent group, algorithms/evaluation/intent-groups.ts), two leave-group-out answers are scored
 * against the tools it used: the catalog's own (the content channel alone: its descriptions) and the intent
 * memory's (the votes of the past requests of *other* groups alone) — the two signals the guard trades off
 * (history-guard.ts) on a request unlike every past one:
 *
 *   d_i     = AP@10(memory_i) − AP@10(content_i)            (per sampled group)
 *   d̄, se   = mean and standard error of d_i over the n sampled groups
 *   lower   = d̄ − z·se                                      (a one-sided lower confidence bound, z = 1.645)
 *   γ₀      = 1                                   when n < minGroups or lower ≤ 0
 *           = clamp(1 − lower / span, 0, 1)       otherwise
 *
 * So the guard stays full (γ₀ = 1) unless the history's other intents answer its requests better than the
 * descriptions do, by more than their sampling noise; it is lifted completely (γ₀ = 0) when they do so by
 * `span` mAP@10 or more. The breadth of the history enters through n and se: a few intent groups give a
 * wide bound (few groups → lower ≤ 0 → full guard), and below minGroups nothing is judged.
 *
 * Invariants: γ₀ ∈ [0, 1]; γ₀ = 1 when n < minGroups or mean(memory) ≤ mean(content); raising every d_i by
 * the same amount never raises γ₀ (se is shift-invariant, so lower rises by that amount); more noise at the
 * same mean (a larger se) never lowers γ₀; the answer does not depend on the order of the groups.
 *
 * Why and constants (minGroups 30, z 1.645, span 0.2): docs/decisions/history-guard.md — the strength that
 * serves unseen requests best differs between projects of the same breadth (descriptions that carry the
 * answer want the full guard at any breadth, weak descriptions want none), so breadth alone cannot set it.
 *
 * Source: a paired comparison of two rankers on the same queries with a one-sided normal bound on the mean
 * difference (Smucker, Allan & Carterette, "A comparison of statistical significance tests for information
 * retrieval evaluation", CIKM 2007: the paired t / normal test on per-query AP differences).
 */
import { SearchError } from "./search-error.ts";

export const DEFAULTS = {
  /** Fewest sampled intent groups for the history to be judged at all. */
  minGroups: 30,
  /** One-sided normal quantile of the lower bound (95 %). */
  z: 1.645,
  /** Lower-bound advantage of the memory (mAP@10) at which the guard is lifted completely. */
  span: 0.2,
} as const;

export interface GuardPriorOptions {
  readonly minGroups?: number;
  readonly z?: number;
  readonly span?: number;
}

export interface GuardPrior {
  /** The default strength γ₀ ∈ [0, 1]. */
  strength: number;
  /** Sampled groups. */
  groups: number;
  /** Mean AP@10 of the memory alone and of the content alone over the sampled groups (NaN when none). */
  memory: number;
  content: number;
  /** Lower confidence bound of the memory's advantage (NaN when not judged). */
  lower: number;
}

const MODULE = "guard-prior";

/**
 * γ₀ from paired per-group scores: `memory[i]` and `content[i]` are AP@10 ∈ [0, 1] of the same sampled past
 * request answered by the other groups' memory alone and by the content channel alone.
 */
export function guardPrior(
  memory: readonly number[],
  content: readonly number[],
  options: GuardPriorOptions = {},
): GuardPrior {
  const minGroups = options.minGroups ?? DEFAULTS.minGroups;
  const z = options.z ?? DEFAULTS.z;
  const span = options.span ?? DEFAULTS.span;
  if (!(minGroups >= 2 && Number.isInteger(minGroups)))
    throw new SearchError(MODULE, "bad-option", `minGroups must be a whole number ≥ 2, got ${minGroups}`);
  if (!(z >= 0)) throw new SearchError(MODULE, "bad-option", `z must be ≥ 0, got ${z}`);
  if (!(span > 0)) throw new SearchError(MODULE, "bad-option", `span must be > 0, got ${span}`);
  if (memory.length !== content.length)
    throw new SearchError(
      MODULE,
      "bad-score",
      `memory and content need one score per group each, got ${memory.length} and ${content.length}`,
    );
  for (const [name, xs] of [
    ["memory", memory],
    ["content", content],
  ] as const)
    for (const x of xs)
      if (!(x >= 0 && x <= 1)) throw new SearchError(MODULE, "bad-score", `${name} scores must be in [0, 1], got ${x}`);
  const n = memory.length;
  const mean = (xs: readonly number[]) => (n === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / n);
  const m = mean(memory);
  const c = mean(content);
  if (n < minGroups) return { strength: 1, groups: n, memory: m, content: c, lower: Number.NaN };
  const d = memory.map((x, i) => x - content[i]!);
  const dMean = mean(d);
  const variance = d.reduce((a, x) => a + (x - dMean) ** 2, 0) / (n - 1);
  const lower = dMean - z * Math.sqrt(variance / n);
  const strength = lower <= 0 ? 1 : Math.min(1, Math.max(0, 1 - lower / span));
  return { strength, groups: n, memory: m, content: c, lower };
}
