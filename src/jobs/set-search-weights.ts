/**
 * Pins a project's search weights (fusion β, memory μ, content, graph, history guard γ): stored as the project's
 * search-weights fit, accepted, so the weights answer every search from now on and no background fit replaces
 * them (refit.ts never refits pinned weights; a fit already running when they are set still stores its own when
 * it ends). `fitSearchWeights` replaces them.
 * Library-only: docs/decisions/layout.md.
 */
import { ToolgraphError } from "../contract/errors.ts";
import type { ProjectView } from "../view/project-view.ts";
import { guardPriorFor } from "./guard-prior.ts";
import { storeFit } from "./learning-log.ts";
import { inForce, type SearchWeights } from "./search-weights.ts";

/** Each weight's bounds (β and γ are shares; the others multipliers). */
const BOUNDS: Record<keyof SearchWeights, [number, number]> = {
  beta: [0, 1],
  memoryWeight: [0, Number.POSITIVE_INFINITY],
  contentWeight: [0, Number.POSITIVE_INFINITY],
  graphWeight: [0, Number.POSITIVE_INFINITY],
  historyGuard: [0, 1],
};

export async function setSearchWeights(view: ProjectView, weights: Partial<SearchWeights>): Promise<SearchWeights> {
  for (const [key, value] of Object.entries(weights)) {
    const bounds = BOUNDS[key as keyof SearchWeights];
    if (!bounds) throw new ToolgraphError("invalid-input", `${key}: not a search weight`, { field: key });
    if (typeof value !== "number" || !Number.isFinite(value) || value < bounds[0] || value > bounds[1])
      throw new ToolgraphError("invalid-input", `${key}: a number in [${bounds[0]}, ${bounds[1]}] is required`, {
        field: key,
      });
  }
  // The weights in force (not searchWeightsFor: it would start the background fit this replaces); the guard's
  // prior is measured only when γ is not given.
  const guard = weights.historyGuard ?? (await guardPriorFor(view)).strength;
  const before = inForce(await view.config(), guard);
  const after: SearchWeights = { ...before, ...weights };
  await storeFit(
    view,
    {
      kind: "search-weights",
      project: view.project,
      fittedAt: new Date(view.now()).toISOString(),
      accepted: true,
      reason: "set by the caller",
      before,
      after,
      evidence: {},
      data: { pinned: true },
    },
    { searchWeights: after },
  );
  return after;
}
