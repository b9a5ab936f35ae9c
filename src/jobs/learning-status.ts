/**
 * What a project has learned, for `stats`: the search and next-step weights in force, each with its latest
 * fit (when, accepted or not and why, the evidence; learning-log.ts), and the gate's calibration.
 */
import { DEFAULTS as NEXT_DEFAULTS, type NextStepWeights } from "../../algorithms/prediction/next-step.ts";
import type { ProjectView } from "../view/project-view.ts";
import { inForce, type SearchWeights } from "./fit-search-weights.ts";
import { type FitRecord, storedFits } from "./learning-log.ts";

export interface LearningStatus {
  searchWeights: { inForce: SearchWeights; fit: FitRecord | null };
  nextStepWeights: { inForce: NextStepWeights; fit: FitRecord | null };
  calibration: { kinds: string[]; fit: FitRecord | null };
}

export async function learningStatus(view: ProjectView): Promise<LearningStatus> {
  const cfg = await view.storedConfig();
  const fits = storedFits(cfg);
  const next = fits["next-step-weights"];
  return {
    searchWeights: { inForce: inForce(cfg), fit: fits["search-weights"] ?? null },
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
