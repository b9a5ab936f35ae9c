/**
 * Learned data-flow rates used by the DAG proposals (dependencies are learned from execution history,
 * algorithms/README.md "DAG"; shrinkage to the base rate lives in data-flow-prior.ts's shrunkRate):
 *
 *   consumerRate(v) = min(1, consumed(v) / executions(v))   share of v's runs that read another tool's
 *                     output; 0 when v never ran
 *   baseRate        = Σ dependency counts / Σ executions      the project's share of steps reading an
 *                     output; 0 without runs
 *   firstShare(u)   = out(u) / (out(u) + in(u))              share of u's learned successions in which u came
 *                     first; ½ when u has none
 *   blendedWeight   = max(dependency quality, 0.5 · learned quality over every edge type)
 *                     the "blended" DAG graph's weight of an edge with declared evidence
 *
 * Invariants: consumerRate, firstShare ∈ [0,1]; blendedWeight ≥ dependency quality; baseRate ≥ 0; no division by zero.
 * Pure: the caller counts from its loaded graph and passes the counts in.
 */

export function consumerRate(consumed: number, executions: number): number {
  if (executions === 0) return 0;
  return Math.min(1, consumed / executions);
}

export function baseRate(dependencies: number, executions: number): number {
  return executions === 0 ? 0 : dependencies / executions;
}

export function firstShare(out: number, inn: number): number {
  return out + inn === 0 ? 0.5 : out / (out + inn);
}

export function blendedWeight(dependencyQuality: number, historyQuality: number): number {
  return Math.max(dependencyQuality, 0.5 * historyQuality);
}
