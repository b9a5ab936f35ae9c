/**
 * What a project has learned, for `stats`: the search and next-step weights in force, each with its latest
 * fit (when, accepted or not and why, the evidence; learning-log.ts), and the gate's calibration.
 */
import { DEFAULTS as NEXT_DEFAULTS, type NextStepWeights } from "../../algorithms/prediction/next-step.ts";
import type { ProjectView } from "../view/project-view.ts";
import { inForce, type SearchWeights } from "./fit-search-weights.ts";
import type { GuardPrior } from "../../algorithms/search/guard-prior.ts";
import { guardPriorFor } from "./guard-prior.ts";
import { type FitRecord, storedFits } from "./learning-log.ts";

export interface LearningStatus {
  /** `guardPrior`: the history guard's default strength measured on the history (guard-prior.ts) and its evidence. */
  searchWeights: { inForce: SearchWeights; fit: FitRecord | null; guardPrior: GuardPrior };
  nextStepWeights: { inForce: NextStepWeights; fit: FitRecord | null };
  calibration: { kinds: string[]; fit: FitRecord | null };
}

export async function learningStatus(view: ProjectView): Promise<LearningStatus> {
  const cfg = await view.storedConfig();
  const fits = storedFits(cfg);
  const next = fits["next-step-weights"];
  const prior = await guardPriorFor(view);
  return {
    searchWeights: { inForce: inForce(cfg, prior.strength), fit: fits["search-weights"] ?? null, guardPrior: prior },
    // Weights stored without a validated fit (an earlier version) are not used: the fixed ones answer until one runs.
    nextStepWeights: {
      inForce: next
        ? ((cfg.nextStepWeights as NextStepWeights | undefined) ?? NEXT_DEFAULTS.weights)
        : NEXT_DEFAULTS.weights,
      fit: next ?? null,
    },
    calibration: {
      kinds: Object.keys((cfg.calibration as Record<string, unknown> | undefined) ?? {}),
      fit: fits.calibration ?? null,
    },
  };
}
