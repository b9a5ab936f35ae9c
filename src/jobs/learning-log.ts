/**
 * Visible learning: every refit of a project's weights (search weights, next-step weights, the gate's
 * calibration) is one record — what was in force before, what is in force after, the out-of-sample evidence
 * that decided it, and the data it saw. The record is stored in the project's configuration (the latest per
 * kind under `fits`, the last LEARNING_LOG_DEFAULTS.keep in `fitLog`), shown by `stats`, and handed to the
 * engine's `learningLog` listener (the HTTP server logs it as one `refit` line).
 * Why: docs/decisions/search-weight-fitting.md.
 */
import type { ProjectView } from "../view/project-view.ts";

export const LEARNING_LOG_DEFAULTS = {
  /** Refit records kept in the project's `fitLog`. */
  keep: 20,
};

export type FitKind = "search-weights" | "next-step-weights" | "calibration";

export interface FitRecord {
  kind: FitKind;
  project: string;
  /** ISO time of the fit (the engine's clock). */
  fittedAt: string;
  /** Whether the fitted setting replaced the default (false: the default stays, `reason` says why). */
  accepted: boolean;
  reason: string;
  before: unknown;
  after: unknown;
  /** Out-of-sample scores of the default and of the fitted setting, margin and groups required. */
  evidence: Record<string, unknown>;
  /** What the fit saw: executions, distinct intents, intent groups, graph version. */
  data: Record<string, unknown>;
}

/**
 * Stores `record` as the project's latest fit of its kind and in the refit log, with `extra` config fields set.
 * Writes of one engine and project are serialised, so a search fit and a next-step fit finishing together in
 * the background do not overwrite each other's fields.
 */
export function storeFit(view: ProjectView, record: FitRecord, extra: Record<string, unknown>): Promise<void> {
  return view.serialFitWrite(async () => {
    const cfg = await view.storedConfig();
    const fits = { ...((cfg.fits as Record<string, FitRecord> | undefined) ?? {}), [record.kind]: record };
    const log = [...((cfg.fitLog as FitRecord[] | undefined) ?? []), record].slice(-LEARNING_LOG_DEFAULTS.keep);
    await view.storeConfig({ ...cfg, ...extra, fits, fitLog: log });
    view.reportFit(record);
  });
}

/** The latest stored fit of each kind (absent: never fitted by this version). */
export function storedFits(cfg: Record<string, unknown>): Partial<Record<FitKind, FitRecord>> {
  return (cfg.fits as Partial<Record<FitKind, FitRecord>> | undefined) ?? {};
}
