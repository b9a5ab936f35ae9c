/**
 * `gateDecision`: the gate's decision for one answer's score, as a job gates it — the project's stored
 * calibration loaded, the request's threshold adjustment prepared (user, text, workflow, similar past success),
 * then accepted / accepted with caution / abstained. A library-only read for measurements
 * (docs/decisions/layout.md): the calibrated P(success) the gate compared is `score` of the decision.
 */
import type { GateDecision } from "../../algorithms/thresholds/gate-decision.ts";
import type { GateRequestContext } from "../gate/gatekeeper.ts";
import type { ProjectView } from "../view/project-view.ts";
import { ensureCalibrationLoaded } from "./fit-calibration.ts";

/** What the gate reads of a request besides its project. */
export type GateQuery = Omit<GateRequestContext, "project" | "requestWorkflow">;

export async function gateDecision(
  view: ProjectView,
  kind: string,
  score: number,
  req: GateQuery,
): Promise<GateDecision<string>> {
  if (typeof kind !== "string" || kind === "") throw new RangeError("gateDecision: kind must be a non-empty string");
  if (!Number.isFinite(score)) throw new RangeError(`gateDecision: score must be a finite number, got ${score}`);
  if (typeof req?.text !== "string") throw new RangeError("gateDecision: text must be a string");
  await ensureCalibrationLoaded(view);
  return view.gate.gate(kind, score, await view.gate.prepare({ ...req, project: view.project }));
}
