/**
 * Calibration of the gated scores on the project's own traces (issue 7, seed 002 success criterion).
 *
 * next-step: replay the most recent executions; at each prefix, the top-1 suggestion's confidence and
 * whether it was the tool that actually came next. search: for executions with an intent, the top-1 hit's
 * score and whether the execution used that tool. Each kind gets an isotonic (pool-adjacent-violators)
 * map score → P(success), stored in the project config and applied by the gate, which then compares the
 * estimated success probability with its thresholds. Executions used for calibration are the project's
 * own history: the map describes how often answers of a given score turned out right here.
 */
import { type Calibration, fitCalibration } from "../../algorithms/thresholds/calibration.ts";
import { projectConfig, setProjectConfig } from "../store/projects.ts";
import { loadExecutionMemory, loadExecutionSequences } from "../store/reads.ts";
import type { Engine } from "./engine.ts";
import { weightsFor } from "./recommend-next.ts";
import { forgetProjectConfig } from "./filters.ts";
import { searchWeightsFor } from "./search-weights.ts";
import { searchCandidates } from "./search.ts";
import { rawSuggestions } from "./suggest.ts";

export interface CalibrationReport {
  kind: string;
  pairs: number;
  /** Success rate of the pairs whose raw score is ≥ 0.85 (before calibration). */
  rawHighPrecision: number | null;
  blocks: number;
}

export async function calibrateProject(engine: Engine, project: string, opts: { maxExecutions?: number } = {}): Promise<CalibrationReport[]> {
  const s = await engine.snapshot(project);
  const a = await engine.analytics(project);
  const seqs = await loadExecutionSequences(engine.db, project, opts.maxExecutions ?? 1000);
  const weights = await weightsFor(engine, project, "seed");
  const next: { score: number; ok: boolean }[] = [];
  for (const seq of seqs) {
    const ctx: string[] = [];
    for (let t = 0; t < seq.steps.length; t++) {
      const st = seq.steps[t]!;
      if (ctx.length > 0) {
        const top = rawSuggestions(s, a, { context: ctx, limit: 1 }, seq.startedAt.getTime(), weights).suggestions[0];
        if (top) next.push({ score: top.confidence, ok: top.tool === st.tool });
      }
      if (st.success && s.index.has(st.tool)) ctx.push(st.tool);
    }
  }
  const search: { score: number; ok: boolean }[] = [];
  const mem = (await loadExecutionMemory(engine.db, project)).slice(-(opts.maxExecutions ?? 1000));
  if (mem.length > 0) {
    const idx = await engine.searchIndex(project);
    const w = await searchWeightsFor(engine, project);
    for (let i = 0; i < mem.length; i += 64) {
      const batch = mem.slice(i, i + 64);
      const vs = await engine.embedder.embed(batch.map((m) => m.intent));
      batch.forEach((m, j) => {
        const top = searchCandidates(s, a, idx, m.intent, vs[j]!, { beta: w.beta })[0];
        if (top) search.push({ score: top.final, ok: m.steps.some((st) => st.tool === s.tools[top.index]!.id) });
      });
    }
  }
  const out: CalibrationReport[] = [];
  const stored: Record<string, Calibration> = {};
  for (const [kind, pairs] of [["next-step", next], ["search", search]] as const) {
    const cal = fitCalibration(pairs.map((p) => p.score), pairs.map((p) => p.ok));
    const high = pairs.filter((p) => p.score >= 0.85);
    out.push({ kind, pairs: pairs.length, rawHighPrecision: high.length ? high.filter((p) => p.ok).length / high.length : null, blocks: cal.blocks.length });
    if (cal.blocks.length > 0) {
      stored[kind] = cal;
      engine.gatekeeper.setCalibration(project, kind, cal);
    }
  }
  const cfg = await projectConfig(engine.db, project);
  await setProjectConfig(engine.db, project, { ...cfg, calibration: stored });
  forgetProjectConfig(engine, project);
  return out;
}

/** Loads a project's stored calibrations into the gate (once per engine and project). */
const loaded = new WeakMap<Engine, Set<string>>();
export async function ensureCalibrationLoaded(engine: Engine, project: string): Promise<void> {
  let set = loaded.get(engine);
  if (!set) {
    set = new Set();
    loaded.set(engine, set);
  }
  if (set.has(project)) return;
  set.add(project);
  const cfg = await projectConfig(engine.db, project);
  const cal = cfg.calibration as Record<string, Calibration> | undefined;
  for (const [kind, c] of Object.entries(cal ?? {})) engine.gatekeeper.setCalibration(project, kind, c);
}
