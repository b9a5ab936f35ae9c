/**
 * Calibration of the gated scores on the project's own traces (high confidence must mean a success rate
 * above 0.8, docs/decisions/gate-thresholds.md), fitted
 * out of sample.
 *
 * Default split "cross-fit": the executions are dealt into `folds` (10) folds by near-duplicate group — the
 * same or nearly the same intent (and tool set), or without an intent the same tool set
 * (algorithms/evaluation/intent-groups.ts; docs/decisions/search-weight-fitting.md) — whole groups to the
 * least-filled fold, so the folds do not depend on the order in which the history was collected or stored and
 * a scored execution's twins are never in its model; each fold is scored by a model that knows every
 * execution of the other folds (transition counts, tools' last use, intent memory without the fold's
 * executions), at one clock (the latest start + 1 h, as a new request would be answered). At most
 * `maxExecutions` (1,000) executions are scored: those of lowest FNV-1a hash of their id. Why: the rolling time split
 * below learned from the *latest* executions only, so a history grouped by scenario (its last blocks new tool sets)
 * taught the gate that nothing succeeds and it abstained on everything (ToolLinkOS traces sorted by capability;
 * bench/accuracy.ts stress row). Split "time" (the previous default) is kept:
 *
 * The last `maxExecutions` executions (default 1,000) are cut by start time into `folds` consecutive blocks
 * (default 10). Each block is scored by a model that only knows the executions that started before the
 * block: the next-step transition counts (learnSuccessions over those executions: each succession once
 * per execution, as the snapshot counts them) and the tools' last use are rebuilt from them, and the intent
 * memory excludes every execution from the block's start on. When the project has no history older than the
 * window, the first block is only training data (it is never scored). So each calibration pair is an answer
 * the gate would have given at that time, to a request it had never seen — what the map is used for: new
 * requests that may differ from the history (in-sample replay was over-confident: on Seal-Tools next step,
 * answers calibrated ≥ 0.85 succeeded 0.7 % of the time).
 *
 * What still sees the whole history (cheap, structural, documented rather than refitted per fold): the tool
 * graph's edges used to generate next-step candidates, Louvain communities, PageRank, the search's
 * popularity prior and BM25/embedding index, the fitted search weights (β, μ, graph weight) and next-step
 * weights. Steps are read without their parent, so nested siblings count as consecutive.
 *
 * Pairs, each the top-1 answer as the service ranks it (`auto` next-step weights with the intent memory's
 * "what followed" lift when the execution has an intent; search with the fitted weights and memory):
 * next-step — at each prefix of successful steps, whether the suggestion was the tool that came next (or,
 * when the execution declares `dependsOn`, any later step whose dependencies had all run: a partial order);
 * search — for executions with an intent, whether the execution used the top hit. Each kind gets an isotonic
 * map score → P(success) with a Wilson lower bound per block (algorithms/thresholds/calibration.ts), stored in
 * the project config and applied by the gate. Cost: one query embedding and one memory recall per scored
 * execution with an intent, one CSR build per fold.
 */
import { type Calibration, calibrate, fitCalibration } from "../../algorithms/thresholds/calibration.ts";
import type { ProjectConfig } from "../store/projects.ts";
import type { ProjectView } from "../view/project-view.ts";
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
  transitionsOf,
} from "./calibration-pairs.ts";

export async function calibrateProject(view: ProjectView, opts: CalibrationOptions = {}): Promise<CalibrationReport[]> {
  const pairs = await calibrationPairs(view, opts);
  const folds = opts.folds ?? CALIBRATION_DEFAULTS.folds;
  const method =
    (opts.split ?? CALIBRATION_DEFAULTS.split) === "time"
      ? `rolling time split: ${pairs.foldsScored} of ${folds} blocks scored, ${pairs.executionsScored} executions`
      : `cross-fit: ${pairs.foldsScored} folds by near-duplicate request group, ${pairs.executionsScored} executions${
          pairs.executionsReused ? ` (${pairs.executionsReused} of them scored by an earlier calibration)` : ""
        }`;
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
    view.gate.setCalibration(view.project, kind, cal.blocks.length > 0 ? cal : undefined);
  }
  // The refit record (learning-log.ts): a kind's map is used only with ≥ minPairs out-of-sample pairs.
  const cfg = await view.storedConfig();
  const kinds = Object.keys(stored);
  await storeFit(
    view,
    {
      kind: "calibration",
      project: view.project,
      fittedAt: new Date(view.now()).toISOString(),
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
      data: {
        executionsScored: pairs.executionsScored,
        executionsReused: pairs.executionsReused ?? 0,
        foldsScored: pairs.foldsScored,
      },
    },
    { calibration: stored },
  );
  return out;
}

/** Loads a project's stored calibrations into the gate (once per engine and project: ProjectView.calibrationLoaded). */
export async function ensureCalibrationLoaded(view: ProjectView): Promise<void> {
  if (view.calibrationLoaded()) return;
  view.calibrationLoaded(true);
  let cfg: ProjectConfig;
  try {
    cfg = await view.storedConfig();
  } catch (err) {
    // Not loaded (the database did not answer): try again on the next request instead of never.
    view.calibrationLoaded(false);
    throw err;
  }
  const cal = cfg.calibration as Record<string, Calibration> | undefined;
  for (const [kind, c] of Object.entries(cal ?? {})) view.gate.setCalibration(view.project, kind, c);
}
