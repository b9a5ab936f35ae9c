/**
 * "Precedence-sorted chain" baseline for execution DAGs: order the given tools by how often each
 * ran before the others in the training executions, and chain them.
 *
 *   before(a, b) = Σ over training executions of [a occurs at an earlier step than b] (every pair of
 *                  positions i < j with tools a ≠ b counts once per execution and ordered pair)
 *   score(t)     = Σ_{o ≠ t} share(t before o),  share = (before(t,o) + 1) / (before(t,o) + before(o,t) + 2)
 *                  (dag/precedence.ts with its default prior w = 2)
 *   order        = tools by score descending; ties by tool id (never the order the tools were given in)
 *   edges        = consecutive pairs of that order (a chain)
 *
 * Invariants: the result does not depend on the order of `tools`; with no training evidence every score is
 * (k − 1)/2 and the order is by id.
 */

import { precedenceShare } from "../dag/precedence.ts";

export type PrecedenceCounts = ReadonlyMap<string, number>;

const SEP = "\u0000";

/** before(a, b) of the header from executions given as tool lists in step order. */
export function precedenceCounts(executions: Iterable<readonly string[]>): Map<string, number> {
  const out = new Map<string, number>();
  for (const steps of executions) {
    const seen = new Set<string>();
    for (let i = 0; i < steps.length; i++) {
      for (let j = i + 1; j < steps.length; j++) {
        if (steps[i] === steps[j]) continue;
        const k = steps[i]! + SEP + steps[j]!;
        if (seen.has(k)) continue;
        seen.add(k);
        out.set(k, (out.get(k) ?? 0) + 1);
      }
    }
  }
  return out;
}

/** The precedence-sorted chain over the distinct `tools`. */
export function precedenceChain(
  tools: readonly string[],
  counts: PrecedenceCounts,
): { order: string[]; edges: [string, string][] } {
  // Sorted by id first so every score sums its terms in the same order (floating point) for any input order.
  const uniq = [...new Set(tools)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const before = (a: string, b: string) => counts.get(a + SEP + b) ?? 0;
  const score = new Map(
    uniq.map((t) => [t, uniq.reduce((z, o) => (o === t ? z : z + precedenceShare(before(t, o), before(o, t))), 0)]),
  );
  const order = uniq.sort((x, y) => score.get(y)! - score.get(x)! || (x < y ? -1 : x > y ? 1 : 0));
  return { order, edges: order.slice(1).map((t, i) => [order[i]!, t]) };
}
