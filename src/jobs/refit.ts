/**
 * Refits as the history grows: the search-weight and next-step-weight fits run in the background when a project
 * has no stored fit, and again each time its recorded steps have grown REFIT_DEFAULTS.growth-fold (2×) since
 * the stored fit saw them — at most one attempt per engine, project, kind and doubling of the history. A fit that
 * was not validated keeps the defaults (its record says why); the next doubling tries again with more evidence.
 * Why (docs/decisions/refit-as-history-grows.md): a gateway that starts empty fitted once, at the first 200
 * steps, and kept that verdict for its lifetime; refitting at every doubling costs at most twice a single fit
 * of the final history (a geometric series) and changes the weights at most log₂(steps / 200) times.
 */
import { derivedKey } from "../view/derived.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import type { ProjectView } from "../view/project-view.ts";
import type { FitKind, FitRecord } from "./learning-log.ts";

export const REFIT_DEFAULTS = {
  /** Refit when the recorded steps reach this multiple of those the stored fit saw. */
  growth: 2,
  /** What a stored record from before records carried `steps` counts as: the fewest steps a fit ran on. */
  legacySteps: 200,
  /**
   * The lowest content weight a background search-weight fit may choose: 1, so a fit nobody asked for never turns
   * the description channel down. A content weight w_c < 1 scales every answer without a memory vote by w_c; the
   * gate's thresholds are absolute, so an uncalibrated gate then abstains on requests the history never saw (the
   * demo after 1,300 traces: "delete an old file from the workspace" 0.900 accepted → 0.460 abstained at
   * w_c = 0.5). `learn-weights` (an explicit fit, shown before it is kept) still may, down to the service's floor.
   */
  contentFloor: 1,
};

/** Weights pinned by the caller (setSearchWeights): never replaced by a background fit. */
export function pinnedFit(fit: FitRecord): boolean {
  return fit.data.pinned === true || fit.reason === "set by the caller";
}

/** The recorded steps of a graph version: derived once per snapshot (every request checks them). */
const RECORDED_STEPS = derivedKey<number>("recorded steps");

/** The project's recorded steps: each tool's recorded uses, summed (the snapshot's counts; no I/O). */
export function recordedSteps(s: GraphSnapshot): number {
  return s.derived(RECORDED_STEPS, () => {
    let n = 0;
    for (let i = 0; i < s.n; i++) n += s.executions[i]!;
    return n;
  });
}

/**
 * Starts `run` in the background (ProjectView.startOnce: never for one-shot CLI engines) when `fit` is absent or
 * the recorded steps have grown `growth`-fold since `fit.data.steps`; never over weights the caller pinned.
 */
export function refitWhenGrown(
  view: ProjectView,
  kind: FitKind,
  fit: FitRecord | undefined,
  run: () => Promise<unknown>,
): void {
  const now = recordedSteps(view.snapshot);
  if (fit) {
    if (pinnedFit(fit)) return;
    const seen = typeof fit.data.steps === "number" ? fit.data.steps : REFIT_DEFAULTS.legacySteps;
    if (now < REFIT_DEFAULTS.growth * Math.max(1, seen)) return;
  }
  view.startOnce(`fit-${kind}@${Math.floor(Math.log2(Math.max(1, now)))}`, run);
}
