/**
 * Edge learning from one execution (hierarchical trace tracking; the weights: docs/decisions/edge-quality.md).
 *
 * From the ordered steps of an execution:
 * - consecutive siblings (steps with the same parent, or both top-level, in step order) → `sequence`
 *   from the earlier sibling's tool to the next sibling's tool;
 * - parent → child → `contains`;
 * - each index d in a step's `dependsOn` → `dependency` from step d's tool to the step's tool.
 * Self-loops (a tool followed by itself) are not edges. An execution yields each (from, to, type)
 * observation at most once, so a loop repeating a pair does not count it twice; counts grow across
 * executions. Capability → member tool `contains` relations live in the bipartite membership
 * (capability_tools), not in this tool → tool graph.
 *
 * Successions (what followed what, the next-step co-occurrence): a pair observed in one execution as a
 * sequence, a dependency and/or a containment is ONE succession — `learnSuccessions` yields each (from, to)
 * once per execution, and the store counts them in their own column (edges.succ_count), so
 * cooc(b | a) = successions(a→b) / Σ_x successions(a→x) is P(b follows a) whatever the types were.
 */
import type { EdgeType } from "./edge-quality.ts";

export interface StepLike {
  readonly tool: string;
  readonly parent?: number | undefined;
  readonly dependsOn?: readonly number[] | undefined;
}

export interface EdgeObservation {
  readonly from: string;
  readonly to: string;
  readonly type: EdgeType;
}

/** The distinct edge observations of one execution, in a deterministic order. */
export function learnEdges(steps: readonly StepLike[]): EdgeObservation[] {
  const seen = new Set<string>();
  const out: EdgeObservation[] = [];
  const add = (from: string, to: string, type: EdgeType): void => {
    if (from === to) return;
    const key = `${type}\u0000${from}\u0000${to}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ from, to, type });
  };
  const lastChildOf = new Map<number, number>(); // parent index (-1 = top level) → last sibling seen
  steps.forEach((step, i) => {
    const parent = step.parent ?? -1;
    const prev = lastChildOf.get(parent);
    if (prev !== undefined) add(steps[prev]!.tool, step.tool, "sequence");
    lastChildOf.set(parent, i);
    if (step.parent !== undefined) {
      const p = steps[step.parent];
      if (p) add(p.tool, step.tool, "contains");
    }
    for (const d of step.dependsOn ?? []) {
      const dep = steps[d];
      if (dep) add(dep.tool, step.tool, "dependency");
    }
  });
  return out;
}

/** Distinct (from, to) successions of one execution: sequence, dependency and contains observations merged. */
export function learnSuccessions(steps: readonly StepLike[]): { readonly from: string; readonly to: string }[] {
  return successionsOf(learnEdges(steps));
}

/** The successions among one execution's edge observations (`learnEdges`): each (from, to) once, `provides` excluded. */
export function successionsOf(
  observations: readonly EdgeObservation[],
): { readonly from: string; readonly to: string }[] {
  const seen = new Set<string>();
  const out: { from: string; to: string }[] = [];
  for (const ob of observations) {
    if (ob.type === "provides") continue;
    const key = `${ob.from}\u0000${ob.to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ from: ob.from, to: ob.to });
  }
  return out;
}
