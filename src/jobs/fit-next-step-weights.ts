/**
 * The next-step weights of a project: the fixed defaults, Markov, or weights learned on the project's own traces
 * (fitNextStepWeights: grouped held-out executions, kept only when better; docs/decisions/next-step-weights.md),
 * and the intent memory's vote that joins the next-step score. The next-step job (next.ts) reads them.
 */
import { groupFolds, type IntentGroups, intentGroupsSteps } from "../../algorithms/evaluation/intent-groups.ts";
import { buildCsr } from "../../algorithms/graph/csr.ts";
import { learnSuccessions } from "../../algorithms/graph/edge-learning.ts";
import {
  learnWeightsSteps,
  rankingMetrics,
  type TrainingExample,
} from "../../algorithms/prediction/learned-weights.ts";
import {
  buildNextStepModel,
  DEFAULTS as NEXT_DEFAULTS,
  type NextStepModel,
  type NextStepWeights,
  nextStepTerms,
  suggestNextSteps,
  weighNextStepTerms,
} from "../../algorithms/prediction/next-step.ts";
import { mulberry32 } from "../../algorithms/random/rng.ts";
import type { ExecutionSequenceRow } from "../store/reads.ts";
import type { AnalyticsView } from "../view/analytics.ts";
import { drainInSlices, slicer, yieldToEventLoop } from "../view/background.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import { intentsOfSteps, recentSequences } from "../view/history.ts";
import type { ProjectView } from "../view/project-view.ts";
import { type FitRecord, storedFits, storeFit } from "./learning-log.ts";
import { recordedSteps, refitWhenGrown } from "./refit.ts";
import { nextStepModel, type RawSuggestion } from "./next-scoring.ts";

export const MARKOV_WEIGHTS: NextStepWeights = { cooc: 1, community: 0, recency: 0, pagerank: 0 };
/** Recorded steps a project needs before the default mode fits learned weights. */
export const AUTO_FIT_MIN_STEPS = 200;

/**
 * Weights per mode. "auto" (the default): the project's learned weights when a fit validated them — they
 * beat the fixed weights on grouped held-out executions by the margin (fitNextStepWeights) — else the fixed
 * weights 0.6 / 0.3 / 0.1 / 0.1. The
 * fit runs in the background when the project has at least 200 recorded steps and no stored fit, and again
 * each time its recorded steps have doubled since (refit.ts); `learn-weights` refits on request. A request never waits for that fit (`awaitFit` waits instead, for batch callers
 * such as calibration and the bench). "learned": the learned weights whether or not they were accepted.
 */
export async function weightsFor(
  view: ProjectView,
  mode: "seed" | "learned" | "markov" | "auto" | undefined,
  opts: { awaitFit?: boolean } = {},
): Promise<NextStepWeights> {
  const now = weightsNow(view, mode);
  if (now) return now;
  const cfg = await view.config();
  const fit = storedFits(cfg)["next-step-weights"];
  if (fit) refitWhenGrown(view, "next-step-weights", fit, () => refitNextStepWeights(view));
  if (mode === "learned")
    return (fit?.evidence.candidate as NextStepWeights | undefined) ?? (await fitNextStepWeights(view)).candidate;
  if (fit) return (cfg.nextStepWeights as NextStepWeights | undefined) ?? NEXT_DEFAULTS.weights;
  const executions = recordedSteps(view.snapshot);
  if (executions >= AUTO_FIT_MIN_STEPS && opts.awaitFit) return (await fitNextStepWeights(view)).weights;
  if (executions >= AUTO_FIT_MIN_STEPS) {
    // Fitted off the request path, once per engine and project: a request never waits seconds for it; the
    // fixed weights answer until a validated fit is stored.
    view.startOnce("fit-next-step-weights", async () => fitNextStepWeights(await view.latest()));
  }
  return NEXT_DEFAULTS.weights;
}

/** A background refit on the project's latest view (refit.ts decides when). */
async function refitNextStepWeights(view: ProjectView): Promise<unknown> {
  return fitNextStepWeights(await view.latest());
}

/** The weights `weightsFor` answers without I/O (a fixed mode, or stored weights in the cached configuration), else undefined. */
export function weightsNow(
  view: ProjectView,
  mode: "seed" | "learned" | "markov" | "auto" | undefined,
): NextStepWeights | undefined {
  if (mode === "markov") return MARKOV_WEIGHTS;
  if (mode === "seed") return NEXT_DEFAULTS.weights;
  const cfg = view.configNow();
  const fit = cfg && storedFits(cfg)["next-step-weights"];
  if (!cfg || !fit) return undefined;
  refitWhenGrown(view, "next-step-weights", fit, () => refitNextStepWeights(view));
  if (mode === "learned") return fit.evidence.candidate as NextStepWeights | undefined;
  return (cfg.nextStepWeights as NextStepWeights | undefined) ?? NEXT_DEFAULTS.weights;
}

/** Training examples from executions: each prefix's true next tool vs the other top candidates. */
export function trainingExamples(
  s: GraphSnapshot,
  a: AnalyticsView,
  sequences: { steps: { tool: string; success: boolean }[]; startedAt: Date }[],
  negatives = 10,
  model: NextStepModel = nextStepModel(s, a),
): TrainingExample[] {
  const steps = trainingExamplesSteps(s, a, sequences, negatives, model);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `trainingExamples` one execution at a time: yields after each, returns the same examples. A caller on the
 * event loop drains it in slices (17k executions are seconds of next-step scoring).
 */
export function* trainingExamplesSteps(
  s: GraphSnapshot,
  a: AnalyticsView,
  sequences: { steps: { tool: string; success: boolean }[]; startedAt: Date }[],
  negatives = 10,
  model: NextStepModel = nextStepModel(s, a),
): Generator<void, TrainingExample[], void> {
  const out: TrainingExample[] = [];
  for (const seq of sequences) {
    const ctx: number[] = [];
    const now = seq.startedAt.getTime();
    for (const st of seq.steps) {
      const i = s.index.get(st.tool);
      if (i === undefined) break;
      if (ctx.length > 0) {
        const r = suggestNextSteps(model, { context: ctx, now }, { limit: negatives + 1 });
        const negs = r.suggestions
          .filter((x) => x.tool !== i)
          .slice(0, negatives)
          .map((x) => ({ ...mapTerms(x.terms) }));
        if (negs.length > 0) out.push({ positive: nextStepTerms(model, { context: ctx, now }, i), negatives: negs });
      }
      if (st.success) ctx.push(i);
    }
    yield;
  }
  return out;
}

function mapTerms(
  t:
    | RawSuggestion["terms"]
    | {
        cooc: { value: number };
        community: { value: number };
        recency: { value: number };
        pagerank: { value: number };
      },
) {
  return { cooc: t.cooc.value, community: t.community.value, recency: t.recency.value, pagerank: t.pagerank.value };
}

/** Fitting and acceptance defaults of the learned next-step weights (docs/decisions/search-weight-fitting.md). */
export const NEXT_FIT_DEFAULTS = {
  /** Most recent executions used. */
  maxExecutions: 2000,
  /** Grouped folds. */
  folds: 5,
  /** Fewest distinct execution groups for learned weights to replace the fixed ones. */
  minGroups: 10,
  /** Out-of-sample Hit@1 gain over the fixed weights the learned ones need. */
  margin: 0.01,
};

/**
 * Groups of executions for validation: executions with an intent by near-duplicate intent (and tool set,
 * algorithms/evaluation/intent-groups.ts); an execution without one is a group of its own (nothing ties it to
 * a request; a workflow run again is what the next-step model is for, not a leak).
 */
export function executionGroups(
  sequences: readonly { id: string; steps: readonly { tool: string }[] }[],
  intents: ReadonlyMap<string, string>,
): IntentGroups {
  const steps = executionGroupsSteps(sequences, intents);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Executions between two yields of `executionGroupsSteps`. */
const GROUP_STEP = 1000;

/** `executionGroups` in steps (drained in slices by the fit and the calibration: 17k executions). */
export function* executionGroupsSteps(
  sequences: readonly { id: string; steps: readonly { tool: string }[] }[],
  intents: ReadonlyMap<string, string>,
): Generator<void, IntentGroups, void> {
  const withIntent: number[] = [];
  const items: { intent: string; tools: string[] }[] = [];
  for (let i = 0; i < sequences.length; i++) {
    if (i > 0 && i % GROUP_STEP === 0) yield;
    const e = sequences[i]!;
    const intent = intents.get(e.id);
    if (intent !== undefined) {
      withIntent.push(i);
      items.push({ intent, tools: e.steps.map((st) => st.tool) });
    }
  }
  yield;
  const g = yield* intentGroupsSteps(items);
  const group = new Int32Array(sequences.length);
  const keys = [...g.keys];
  withIntent.forEach((i, k) => {
    group[i] = g.group[k]!;
  });
  for (let i = 0; i < sequences.length; i++) {
    if (i > 0 && i % GROUP_STEP === 0) yield;
    const e = sequences[i]!;
    if (intents.has(e.id)) continue;
    group[i] = keys.length;
    keys.push(`\u0002${e.id}`);
  }
  return { group, count: keys.length, keys };
}

/** The next-step model without the transitions of `heldOut` executions (the validation folds' training model). */
async function modelWithout(
  s: GraphSnapshot,
  a: AnalyticsView,
  sequences: readonly ExecutionSequenceRow[],
  heldOut: (i: number) => boolean,
): Promise<NextStepModel> {
  const slice = slicer();
  const counts = new Map<number, number>();
  const tr = s.transitions;
  for (let from = 0; from < tr.n; from++) {
    for (let e = tr.offsets[from]!; e < tr.offsets[from + 1]!; e++)
      counts.set(from * s.n + tr.targets[e]!, tr.weights[e]!);
    await slice();
  }
  for (let i = 0; i < sequences.length; i++) {
    const e = sequences[i]!;
    await slice();
    if (!heldOut(i)) continue;
    for (const ob of learnSuccessions(e.steps.map((st) => ({ tool: st.tool, dependsOn: st.dependsOn })))) {
      const f = s.index.get(ob.from);
      const t = s.index.get(ob.to);
      if (f === undefined || t === undefined) continue;
      const k = f * s.n + t;
      counts.set(k, (counts.get(k) ?? 0) - 1);
    }
  }
  await yieldToEventLoop();
  const transitions = buildCsr(
    s.n,
    [...counts].filter(([, w]) => w > 0).map(([k, w]) => ({ from: Math.floor(k / s.n), to: k % s.n, weight: w })),
  );
  await yieldToEventLoop();
  return buildNextStepModel({
    graph: s.csr,
    transitions,
    community: a.analytics.community,
    pagerank: a.analytics.pagerank,
    lastUsedAt: s.lastUsedAt,
  });
}

/**
 * Fits the four weights on the project's own recent traces; they replace the fixed ones only when they beat them
 * out of sample: grouped k-fold (executionGroups, groupFolds), each fold's weights learned on the other folds'
 * examples and scored on the fold's, both under a model whose transition counts leave the fold out. Accepted
 * when the held-out executions span ≥ minGroups groups and Hit@1 (mean over groups) gains ≥ margin; the fit
 * is stored with its evidence either way (learning-log.ts) unless `dryRun`.
 */
export async function fitNextStepWeights(
  view: ProjectView,
  opts: { maxExecutions?: number | undefined; seed?: number | undefined; dryRun?: boolean | undefined } = {},
) {
  const s = view.snapshot;
  const a = view.analytics();
  const history = await view.executionHistory();
  const seqs = recentSequences(history, opts.maxExecutions ?? NEXT_FIT_DEFAULTS.maxExecutions);
  const examples = await drainInSlices(trainingExamplesSteps(s, a, seqs));
  const r = await drainInSlices(learnWeightsSteps(examples, { rng: mulberry32(opts.seed ?? 1) }));
  const candidate = r.weights;
  const intents = await drainInSlices(intentsOfSteps(history));
  const groups = await drainInSlices(executionGroupsSteps(seqs, intents));
  const seenGroups = new Set(groups.group).size;
  const cfg = await view.config();
  const before = storedFits(cfg)["next-step-weights"]
    ? ((cfg.nextStepWeights as NextStepWeights | undefined) ?? NEXT_DEFAULTS.weights)
    : NEXT_DEFAULTS.weights;
  const data = {
    executions: seqs.length,
    examples: examples.length,
    groups: seenGroups,
    graphVersion: s.version,
    steps: recordedSteps(s),
  };
  const evidenceBase = {
    metric: "Hit@1 among the model's top candidates, mean over execution groups",
    margin: NEXT_FIT_DEFAULTS.margin,
    minGroups: NEXT_FIT_DEFAULTS.minGroups,
    candidate,
  };
  let accepted = false;
  let reason: string;
  let evidence: Record<string, unknown> = evidenceBase;
  if (r.reason) reason = `nothing learned: ${r.reason}`;
  else if (seenGroups < NEXT_FIT_DEFAULTS.minGroups)
    reason = `only ${seenGroups} distinct execution groups (fewer than ${NEXT_FIT_DEFAULTS.minGroups}): too little evidence to replace the seed's weights`;
  else {
    const K = Math.min(NEXT_FIT_DEFAULTS.folds, seenGroups);
    const fold = groupFolds(groups, K);
    const perGroup = new Map<number, { seed: number; learned: number; n: number }>();
    for (let f = 0; f < K; f++) {
      const model = await modelWithout(s, a, seqs, (i) => fold[i] === f);
      const trainIdx = seqs.map((_, i) => i).filter((i) => fold[i] !== f);
      const trainExamples = await drainInSlices(
        trainingExamplesSteps(
          s,
          a,
          trainIdx.map((i) => seqs[i]!),
          10,
          model,
        ),
      );
      const learned = await drainInSlices(learnWeightsSteps(trainExamples, { rng: mulberry32(opts.seed ?? 1) }));
      const slice = slicer();
      for (let i = 0; i < seqs.length; i++) {
        if (fold[i] !== f) continue;
        await slice();
        const held = trainingExamples(s, a, [seqs[i]!], 10, model);
        if (held.length === 0) continue;
        const g = perGroup.get(groups.group[i]!) ?? { seed: 0, learned: 0, n: 0 };
        g.seed += rankingMetrics(held, NEXT_DEFAULTS.weights).hitAt1 * held.length;
        g.learned +=
          rankingMetrics(held, learned.reason ? NEXT_DEFAULTS.weights : learned.weights).hitAt1 * held.length;
        g.n += held.length;
        perGroup.set(groups.group[i]!, g);
      }
      await yieldToEventLoop();
    }
    let seedHit = 0;
    let learnedHit = 0;
    for (const g of perGroup.values()) {
      seedHit += g.seed / g.n;
      learnedHit += g.learned / g.n;
    }
    const G = Math.max(1, perGroup.size);
    seedHit /= G;
    learnedHit /= G;
    const gain = learnedHit - seedHit;
    evidence = {
      ...evidenceBase,
      folds: K,
      groupsScored: perGroup.size,
      default: { hitAt1: seedHit },
      fitted: { hitAt1: learnedHit },
      gain,
    };
    if (perGroup.size < NEXT_FIT_DEFAULTS.minGroups)
      reason = `only ${perGroup.size} execution groups with a next step to score (fewer than ${NEXT_FIT_DEFAULTS.minGroups})`;
    else if (gain >= NEXT_FIT_DEFAULTS.margin) {
      accepted = true;
      reason = `out-of-sample Hit@1 gain ${gain.toFixed(3)} ≥ margin ${NEXT_FIT_DEFAULTS.margin} on ${perGroup.size} groups (seed ${seedHit.toFixed(3)}, learned ${learnedHit.toFixed(3)})`;
    } else
      reason = `out-of-sample Hit@1 gain ${gain.toFixed(3)} is below the margin ${NEXT_FIT_DEFAULTS.margin} (seed ${seedHit.toFixed(3)}, learned ${learnedHit.toFixed(3)}): the seed's weights stay`;
  }
  const weights = accepted ? candidate : NEXT_DEFAULTS.weights;
  const record: FitRecord = {
    kind: "next-step-weights",
    project: view.project,
    fittedAt: new Date(view.now()).toISOString(),
    accepted,
    reason,
    before,
    after: weights,
    evidence,
    data,
  };
  if (!opts.dryRun) await storeFit(view, record, { nextStepWeights: accepted ? candidate : undefined });
  return {
    weights,
    candidate,
    accepted,
    examples: examples.length,
    report: r.report,
    reason,
    dryRun: opts.dryRun ?? false,
    record,
  };
}
