/**
 * The calibration's pairs (score, outcome) on the project's own traces, out of sample: cross-fit (each fold scored by
 * a model of the other folds) or a rolling time split; the defaults and the report's types (fit-calibration.ts fits
 * the map from them).
 */
import { fnv1a, groupFolds } from "../../algorithms/evaluation/intent-groups.ts";
import { buildCsr } from "../../algorithms/graph/csr.ts";
import { learnSuccessions } from "../../algorithms/graph/edge-learning.ts";
import { nextAfter, type PastExecution } from "../../algorithms/memory/knn-vote.ts";
import {
  buildNextStepModel,
  type NextStepModel,
  type NextStepWeights,
  suggestNextSteps,
} from "../../algorithms/prediction/next-step.ts";
import { topNextStep } from "../../algorithms/prediction/next-step-memory.ts";
import type { ExecutionSequenceRow } from "../store/reads.ts";
import { drainInSlices, slicer, yieldToEventLoop } from "../view/background.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import { intentsOfSteps, recentSequences } from "../view/history.ts";
import type { ProjectView } from "../view/project-view.ts";
import { searchWeightsFor } from "./fit-search-weights.ts";
import { executionGroupsSteps, weightsFor } from "./next.ts";
import { toolIdsOf } from "./next-scoring.ts";
import { readyToolCoherence, searchCandidates } from "./search-scoring.ts";

export const CALIBRATION_DEFAULTS = {
  /** Executions scored. */
  maxExecutions: 1000,
  /** Folds (cross-fit) or time blocks (time). */
  folds: 10,
  /** Executions loaded (training history). */
  historyLimit: 20000,
  split: "cross-fit" as "cross-fit" | "time",
  /**
   * Fewest pairs of a kind for a calibration map: with fewer, the gate stays uncalibrated (raw scores), since
   * a map fitted on a handful of answers is mostly its Wilson floor.
   */
  minPairs: 30,
  /** Fewest pairs per isotonic block (algorithms/thresholds/calibration.ts minBlock). */
  minBlock: 10,
  /**
   * An execution's pairs from an earlier calibration are reused while the history they were scored against
   * holds at least this share of today's (same weights and catalog): docs/decisions/ingestion-first-answer.md.
   */
  reuseWhileShare: 0.8,
};

export interface CalibrationOptions {
  /** Executions scored out of sample. Default 1,000. */
  maxExecutions?: number | undefined;
  /** Folds (cross-fit) or consecutive time blocks (time). Default 10. */
  folds?: number | undefined;
  /** "cross-fit" (default: folds by id hash, order-independent) or "time" (rolling-origin time split). */
  split?: "cross-fit" | "time" | undefined;
  /**
   * Reuse the pairs an earlier cross-fit calibration of this engine computed for an execution, while they are
   * fresh (`CALIBRATION_DEFAULTS.reuseWhileShare`). Default true; false scores every sampled execution again.
   */
  reuse?: boolean | undefined;
}

export interface CalibrationPair {
  score: number;
  ok: boolean;
}

export interface CalibrationPairs {
  nextStep: CalibrationPair[];
  search: CalibrationPair[];
  /** Blocks scored (a first block without older history is training only). */
  foldsScored: number;
  /** Executions scored out of sample. */
  executionsScored: number;
  /**
   * Of those, the executions whose pairs an earlier calibration of this engine computed and this one reused
   * (cross-fit only; see `crossFitPairs`). 0 on a first calibration.
   */
  executionsReused?: number;
}

export interface CalibrationReport {
  kind: string;
  pairs: number;
  /** "rolling time split: k of K blocks scored, N executions". */
  method: string;
  /** Success rate of the pairs whose raw score is ≥ 0.85 (before calibration). */
  rawHighPrecision: number | null;
  /** Success rate of the pairs whose calibrated probability is ≥ 0.85 (on the fitting pairs). */
  calibratedHighPrecision: number | null;
  blocks: number;
}

/**
 * Tools that may run after steps 0..t−1 of an execution that declares its dependencies: the later steps
 * whose `dependsOn` are all among the first t (the same rule the bench applies to its held-out workflows).
 */
export function eligibleAt(
  steps: readonly { tool: string; dependsOn?: readonly number[] | null | undefined }[],
  t: number,
): Set<string> {
  const out = new Set<string>();
  for (let j = t; j < steps.length; j++) if ((steps[j]!.dependsOn ?? []).every((d) => d < t)) out.add(steps[j]!.tool);
  return out;
}

/** Out-of-sample calibration pairs (cross-fitted folds or the rolling-origin time split, see the header). */
export async function calibrationPairs(view: ProjectView, opts: CalibrationOptions = {}): Promise<CalibrationPairs> {
  const maxExecutions = opts.maxExecutions ?? CALIBRATION_DEFAULTS.maxExecutions;
  const folds = opts.folds ?? CALIBRATION_DEFAULTS.folds;
  const split = opts.split ?? CALIBRATION_DEFAULTS.split;
  if (!Number.isInteger(maxExecutions) || maxExecutions < 1)
    throw new RangeError(`calibrate: maxExecutions must be a positive integer, got ${maxExecutions}`);
  if (!Number.isInteger(folds) || folds < 2)
    throw new RangeError(`calibrate: folds must be an integer ≥ 2, got ${folds}`);
  if (split !== "cross-fit" && split !== "time")
    throw new RangeError(`calibrate: split must be "cross-fit" or "time", got ${JSON.stringify(split)}`);
  return split === "time"
    ? timeSplitPairs(view, maxExecutions, folds)
    : crossFitPairs(view, maxExecutions, folds, opts.reuse ?? true);
}

/** Transition counts (from·n + to → count) an execution adds, as the time split counts them (learnSuccessions). */
export function transitionsOf(s: GraphSnapshot, e: ExecutionSequenceRow): Map<number, number> {
  const out = new Map<number, number>();
  for (const ob of learnSuccessions(e.steps.map((st) => ({ tool: st.tool, dependsOn: st.dependsOn })))) {
    const f = s.index.get(ob.from);
    const t = s.index.get(ob.to);
    if (f === undefined || t === undefined) continue;
    const k = f * s.n + t;
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

/** The pairs of one execution answered by `model` (next step at each prefix; search when it has an intent). */
export async function scoreExecution(
  view: ProjectView,
  ctxObj: {
    s: GraphSnapshot;
    a: ReturnType<ProjectView["analytics"]>;
    idx: Awaited<ReturnType<ProjectView["searchIndex"]>>;
    sw: Awaited<ReturnType<typeof searchWeightsFor>>;
    weights: NextStepWeights;
  },
  model: NextStepModel,
  e: ExecutionSequenceRow,
  intent: string | undefined,
  qv: Float32Array | undefined,
  exclude: ReadonlySet<string>,
  now: number,
  out: CalibrationPairs,
): Promise<void> {
  const { s, a, idx, sw, weights } = ctxObj;
  out.executionsScored++;
  let past: PastExecution<string, string>[] | undefined;
  if (intent !== undefined && qv) {
    const m = await view.recall(intent, qv, { excludeIds: exclude });
    past = m.past;
    const top = searchCandidates(s, a, idx, intent, qv, {
      memory: sw.memoryWeight > 0 ? m.toolVotes : undefined,
      beta: sw.beta,
      memoryWeight: sw.memoryWeight,
      contentWeight: sw.contentWeight,
      graphWeight: sw.graphWeight,
      historySimilarity: m.similarity,
      historyGuard: sw.historyGuard,
      repeatRecordedAt: m.repeatRecordedAt,
    })[0];
    if (top) out.search.push({ score: top.final, ok: e.steps.some((st) => st.tool === s.tools[top.index]!.id) });
  }
  const tools = toolIdsOf(s);
  const ctx: string[] = [];
  const partialOrder = e.steps.some((st) => (st.dependsOn ?? []).length > 0);
  e.steps.forEach((st, t) => {
    if (ctx.length > 0) {
      const top = topNextStep(tools, model, ctx, now, weights, past);
      if (top)
        out.nextStep.push({
          score: top.confidence,
          ok: partialOrder ? eligibleAt(e.steps, t).has(top.tool) : top.tool === st.tool,
        });
    }
    if (st.success && s.index.has(st.tool)) ctx.push(st.tool);
  });
}

/**
 * The intents' vectors: the ones the intent memory stored (by text hash and model, search-index.ts
 * `ensureEmbeddings`) are read back, only texts never embedded go to the model (and are stored). Before, every
 * scored intent was embedded again (≈ 1,000 model calls per calibration): docs/decisions/ingestion-first-answer.md.
 */
export async function intentVectors(view: ProjectView, texts: readonly string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  return view.storedEmbeddings(texts);
}

/** The pairs one execution gave, and the size of the history its model was built from. */
interface ScoredPairs {
  nextStep: CalibrationPair[];
  search: CalibrationPair[];
  historySize: number;
}

/** What a cross-fit calibration keeps for the next one (ProjectView.projectMemo): pairs by execution id. */
interface PairMemo {
  /** What every pair depends on besides the history: weights, catalog, folds, sample size. */
  key: string;
  byId: Map<string, ScoredPairs>;
}

/** The key of a PairMemo: the in-force weights, the catalog's tool ids, the folds and the sample size. */
function pairMemoKey(s: GraphSnapshot, weights: unknown, sw: unknown, folds: number, maxExecutions: number): string {
  let h = 0x811c9dc5;
  for (const t of s.tools) h = Math.imul(h ^ fnv1a(t.id), 0x01000193) >>> 0;
  return JSON.stringify([weights, sw, folds, maxExecutions, s.n, h]);
}

/**
 * Cross-fitted pairs: folds by id hash, each scored by a model of the other folds (header).
 *
 * Reuse (`reuse`, default on): a sampled execution scored by an earlier calibration of this engine keeps its
 * pairs while the history it was scored against holds ≥ `reuseWhileShare` (0.8) of today's, under the same
 * weights, catalog, folds and sample size; only the others are scored. Each reused pair is still an answer to a
 * request its model had never seen, from a model that knew at least 80 % of today's history; a batch of new
 * traces then costs the scoring of its own sampled executions, and every execution is rescored at the latest
 * when the history has grown by a quarter. The pairs come out in the order a full run gives them.
 */
export async function crossFitPairs(
  view: ProjectView,
  maxExecutions: number,
  folds: number,
  reuse = true,
): Promise<CalibrationPairs> {
  const s = view.snapshot;
  const a = view.analytics();
  const all = await view.executionHistory();
  const history = recentSequences(all, CALIBRATION_DEFAULTS.historyLimit);
  const out: CalibrationPairs = { nextStep: [], search: [], foldsScored: 0, executionsScored: 0, executionsReused: 0 };
  const H = history.length;
  if (H < 2 || s.n === 0) return out;
  const intents = await drainInSlices(intentsOfSteps(all));
  // Folds by near-duplicate group (executionGroups: intent, else tool set), whole groups dealt to the
  // least-filled fold: a scored execution's twins are never in its model. Scored: the executions of lowest
  // id hash (ties by id), the same whatever order the history is in.
  const groups = await drainInSlices(executionGroupsSteps(history, intents));
  const K = Math.min(folds, groups.count);
  if (K < 2) return out;
  const fold = groupFolds(groups, K);
  await yieldToEventLoop();
  const order = history
    .map((e, i) => ({ i, h: fnv1a(e.id), id: e.id }))
    .sort((x, y) => x.h - y.h || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  await yieldToEventLoop();
  const scored = new Uint8Array(H);
  order.forEach((o, r) => {
    if (r < maxExecutions) scored[o.i] = 1;
  });
  const weights = await weightsFor(view, "auto", { awaitFit: true });
  const sw = await searchWeightsFor(view);
  const idx = await view.searchIndex();
  await readyToolCoherence(s, a, idx);
  const now = Math.max(...history.map((e) => e.startedAt.getTime())) + 3_600_000;
  const memo = view.projectMemo<PairMemo>("calibration pairs");
  const key = pairMemoKey(s, weights, sw, folds, maxExecutions);
  const kept = reuse ? memo.get() : undefined;
  const previous = kept?.key === key ? kept.byId : new Map<string, ScoredPairs>();
  const byId = new Map<string, ScoredPairs>();
  const reusable = (i: number): ScoredPairs | undefined => {
    const p = previous.get(history[i]!.id);
    return p && p.historySize >= CALIBRATION_DEFAULTS.reuseWhileShare * H ? p : undefined;
  };
  const needsModel = new Uint8Array(K);
  for (let i = 0; i < H; i++) if (scored[i] === 1 && !reusable(i)) needsModel[fold[i]!] = 1;
  // Every loop over the history (17k executions) and the scoring (seconds for a thousand executions) yields
  // to the event loop every few milliseconds (the result does not depend on where it yields).
  const slice = slicer();
  const perExec: Map<number, number>[] = [];
  const total = new Map<number, number>();
  // Each fold's last use of each tool (fold·n + tool; NaN where the fold never used it): one pass, not one per fold.
  const foldLastUse = new Float64Array(needsModel.includes(1) ? K * s.n : 0).fill(Number.NaN);
  if (needsModel.includes(1))
    for (let i = 0; i < H; i++) {
      const e = history[i]!;
      const m = transitionsOf(s, e);
      perExec.push(m);
      for (const [k, c] of m) total.set(k, (total.get(k) ?? 0) + c);
      const at = e.startedAt.getTime();
      const base = fold[i]! * s.n;
      for (const st of e.steps) {
        const v = s.index.get(st.tool);
        if (v !== undefined && !(foldLastUse[base + v]! >= at)) foldLastUse[base + v] = at;
      }
      await slice();
    }
  for (let f = 0; f < K; f++) {
    const members = history.map((_, i) => i).filter((i) => fold[i] === f);
    const toScore = members.filter((i) => scored[i] === 1);
    if (toScore.length === 0) continue;
    out.foldsScored++;
    let model: NextStepModel | undefined;
    let vectors = new Map<number, Float32Array>();
    if (needsModel[f] === 1) {
      // Each stage of the fold's model is ~10 ms at 17k executions: a turn of the event loop between them.
      await yieldToEventLoop();
      const counts = new Map(total);
      for (const i of members) {
        for (const [k, c] of perExec[i]!) counts.set(k, counts.get(k)! - c);
        await slice();
      }
      // The tools' last use in the other folds: the latest of their folds' (NaN where none used it).
      const lastUsedAt = new Float64Array(s.n).fill(Number.NaN);
      for (let g = 0; g < K; g++) {
        if (g === f) continue;
        for (let v = 0; v < s.n; v++) {
          const at = foldLastUse[g * s.n + v]!;
          if (!Number.isNaN(at) && !(lastUsedAt[v]! >= at)) lastUsedAt[v] = at;
        }
      }
      await yieldToEventLoop();
      const transitions = buildCsr(
        s.n,
        [...counts].filter(([, w]) => w > 0).map(([k, w]) => ({ from: Math.floor(k / s.n), to: k % s.n, weight: w })),
      );
      await yieldToEventLoop();
      model = buildNextStepModel({
        graph: s.csr,
        transitions,
        community: a.analytics.community,
        pagerank: a.analytics.pagerank,
        lastUsedAt,
      });
      const withIntent = toScore.filter((i) => !reusable(i) && intents.has(history[i]!.id));
      const vs = await intentVectors(
        view,
        withIntent.map((i) => intents.get(history[i]!.id)!),
      );
      vectors = new Map(withIntent.map((i, k) => [i, vs[k]!] as const));
    }
    const exclude = new Set(members.map((i) => history[i]!.id));
    for (const i of toScore) {
      const e = history[i]!;
      let p = reusable(i);
      if (p) out.executionsReused!++;
      else {
        const one: CalibrationPairs = { nextStep: [], search: [], foldsScored: 0, executionsScored: 0 };
        await scoreExecution(
          view,
          { s, a, idx, sw, weights },
          model!,
          e,
          intents.get(e.id),
          vectors.get(i),
          exclude,
          now,
          one,
        );
        p = { nextStep: one.nextStep, search: one.search, historySize: H };
        await slice();
      }
      byId.set(e.id, p);
      out.executionsScored++;
      for (const x of p.nextStep) out.nextStep.push(x);
      for (const x of p.search) out.search.push(x);
    }
  }
  memo.set({ key, byId });
  return out;
}

/** Rolling-origin time split (the former default; see the header). */
export async function timeSplitPairs(
  view: ProjectView,
  maxExecutions: number,
  folds: number,
): Promise<CalibrationPairs> {
  const s = view.snapshot;
  const a = view.analytics();
  const all = await view.executionHistory();
  const history = recentSequences(all, Math.max(CALIBRATION_DEFAULTS.historyLimit, maxExecutions));
  const out: CalibrationPairs = { nextStep: [], search: [], foldsScored: 0, executionsScored: 0 };
  const H = history.length;
  if (H === 0 || s.n === 0) return out;
  const start = Math.max(0, H - maxExecutions);
  const cuts = Array.from({ length: folds + 1 }, (_, b) => start + Math.floor((b * (H - start)) / folds));
  const weights = await weightsFor(view, "auto", { awaitFit: true });
  const sw = await searchWeightsFor(view);
  const idx = await view.searchIndex();
  const intents = await drainInSlices(intentsOfSteps(all));
  // Running training state: transition counts and last use of the executions before the current cut.
  const counts = new Map<number, number>(); // from·n + to → count
  const lastUsedAt = new Float64Array(s.n).fill(Number.NaN);
  const absorb = (e: ExecutionSequenceRow) => {
    for (const ob of learnSuccessions(e.steps.map((st) => ({ tool: st.tool, dependsOn: st.dependsOn })))) {
      const f = s.index.get(ob.from);
      const t = s.index.get(ob.to);
      if (f === undefined || t === undefined) continue;
      const k = f * s.n + t;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    const at = e.startedAt.getTime();
    for (const st of e.steps) {
      const i = s.index.get(st.tool);
      if (i !== undefined && !(lastUsedAt[i]! >= at)) lastUsedAt[i] = at;
    }
  };
  let absorbed = 0;
  const sctx = { s, a, idx, sw, weights };
  const slice = slicer();
  for (let b = 0; b < folds; b++) {
    const [lo, hi] = [cuts[b]!, cuts[b + 1]!];
    while (absorbed < lo) absorb(history[absorbed++]!);
    if (lo === 0 || hi <= lo) continue;
    out.foldsScored++;
    const transitions = buildCsr(
      s.n,
      [...counts].map(([k, w]) => ({ from: Math.floor(k / s.n), to: k % s.n, weight: w })),
    );
    const model = buildNextStepModel({
      graph: s.csr,
      transitions,
      community: a.analytics.community,
      pagerank: a.analytics.pagerank,
      lastUsedAt: Float64Array.from(lastUsedAt),
    });
    const unseen = new Set(history.slice(lo).map((e) => e.id));
    const block = history.slice(lo, hi);
    const withIntent = block.filter((e) => intents.has(e.id));
    const vs = await intentVectors(
      view,
      withIntent.map((e) => intents.get(e.id)!),
    );
    const vectors = new Map(withIntent.map((e, j) => [e.id, vs[j]!] as const));
    for (const e of block) {
      await scoreExecution(
        view,
        sctx,
        model,
        e,
        intents.get(e.id),
        vectors.get(e.id),
        unseen,
        e.startedAt.getTime(),
        out,
      );
      await slice();
    }
  }
  return out;
}
