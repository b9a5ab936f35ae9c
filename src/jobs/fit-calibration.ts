import { type Calibration, calibrate, fitCalibration } from "../../algorithms/thresholds/calibration.ts";
import { projectConfig } from "../store/projects.ts";
import type { Engine } from "../view/engine.ts";
import {
  CALIBRATION_DEFAULTS,
  type CalibrationOptions,
  type CalibrationPair,
  type CalibrationReport,
  calibrationPairs,
} from "./calibration-pairs.ts";
import { storeFit } from "./learning-log.ts";

export {
  CALIBRATION_DEFAULTS,
  type CalibrationOptions,
  type CalibrationPair,
  type CalibrationPairs,
  type CalibrationReport,
  calibrationPairs,
  crossFitPairs,
  eligibleAt,
  intentVectors,
  scoreExecution,
  timeSplitPairs,
  topNextStep,
  transitionsOf,
} from "./calibration-pairs.ts";

export async function calibrateProject(
  engine: Engine,
  project: string,
  opts: CalibrationOptions = {},
): Promise<CalibrationReport[]> {
  const pairs = await calibrationPairs(engine, project, opts);
  const folds = opts.folds ?? CALIBRATION_DEFAULTS.folds;
  const method =
    (opts.split ?? CALIBRATION_DEFAULTS.split) === "time"
      ? `rolling time split: ${pairs.foldsScored} of ${folds} blocks scored, ${pairs.executionsScored} executions`
      : `cross-fit: ${pairs.foldsScored} folds by near-duplicate request group, ${pairs.executionsScored} executions`;
  const out: CalibrationReport[] = [];
  const stored: Record<string, Calibration> = {};
  for (const [kind, list] of [
    ["next-step", pairs.nextStep],
    ["search", pairs.search],
  ] as const) {
    // Too little evidence: no map (the gate compares raw scores), and the report says so.
    const cal =
      list.length < CALIBRATION_DEFAULTS.minPairs
        ? { blocks: [], reason: "no-data" as const }
        : fitCalibration(
            list.map((p) => p.score),
            list.map((p) => p.ok),
            { minBlock: CALIBRATION_DEFAULTS.minBlock },
          );
    const rate = (keep: (p: CalibrationPair) => boolean) => {
      const kept = list.filter(keep);
      return kept.length ? kept.filter((p) => p.ok).length / kept.length : null;
    };
    out.push({
      kind,
      pairs: list.length,
      method:
        list.length < CALIBRATION_DEFAULTS.minPairs
          ? `${method}; fewer than ${CALIBRATION_DEFAULTS.minPairs} pairs: uncalibrated gate`
          : method,
      rawHighPrecision: rate((p) => p.score >= 0.85),
      calibratedHighPrecision: rate((p) => calibrate(cal, p.score) >= 0.85),
      blocks: cal.blocks.length,
    });
    if (cal.blocks.length > 0) stored[kind] = cal;
    engine.gatekeeper.setCalibration(project, kind, cal.blocks.length > 0 ? cal : undefined);
  }
  // The refit record (learning-log.ts): a kind's map is used only with ≥ minPairs out-of-sample pairs.
  const cfg = await projectConfig(engine.db, project);
  const kinds = Object.keys(stored);
  await storeFit(
    engine,
    {
      kind: "calibration",
      project,
      fittedAt: new Date(engine.now()).toISOString(),
      accepted: kinds.length > 0,
      reason:
        kinds.length > 0
          ? `calibrated ${kinds.join(", ")} on out-of-sample answers (${method})`
          : `fewer than ${CALIBRATION_DEFAULTS.minPairs} out-of-sample pairs of each kind: uncalibrated gate`,
      before: Object.keys((cfg.calibration as Record<string, unknown> | undefined) ?? {}),
      after: kinds,
      evidence: Object.fromEntries(
        out.map((r) => [
          r.kind,
          {
            pairs: r.pairs,
            blocks: r.blocks,
            rawHighPrecision: r.rawHighPrecision,
            calibratedHighPrecision: r.calibratedHighPrecision,
          },
        ]),
      ),
      data: { executionsScored: pairs.executionsScored, foldsScored: pairs.foldsScored },
    },
    { calibration: stored },
  );
  return out;
}

/** Loads a project's stored calibrations into the gate (once per engine and project: Engine.calibrationsLoaded). */
export async function ensureCalibrationLoaded(engine: Engine, project: string): Promise<void> {
  const set = engine.calibrationsLoaded;
  if (set.has(project)) return;
  set.add(project);
  let cfg: Awaited<ReturnType<typeof projectConfig>>;
  try {
    cfg = await projectConfig(engine.db, project);
  } catch (err) {
    // Not loaded (the database did not answer): try again on the next request instead of never.
    set.delete(project);
    throw err;
  }
  const cal = cfg.calibration as Record<string, Calibration> | undefined;
  for (const [kind, c] of Object.entries(cal ?? {})) engine.gatekeeper.setCalibration(project, kind, c);
}
