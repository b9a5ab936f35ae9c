/**
 * The accuracy harness: a project in toolgraph's formats (catalog, training traces, declared edges) plus
 * evaluation cases (JSONL kinds retrieval / next-step / dag / capability) → metric tables with toolgraph
 * beside its baselines and ablations, all in one run. Evaluation cases are never added to the history.
 */

import { scoreCapability, summarizeCapability } from "../algorithms/evaluation/capability-metrics.ts";
import {
  edgeScores,
  goldToolEdges,
  kendallTau,
  nodeScores,
  orderConsistency,
} from "../algorithms/evaluation/dag-metrics.ts";
import { gatingCurve } from "../algorithms/evaluation/gating-curve.ts";
import { type NextStepCaseScore, scoreNextStepCase, summarizeNextStep } from "../algorithms/evaluation/next-step.ts";
import { precedenceChain, precedenceCounts } from "../algorithms/evaluation/precedence-chain.ts";
import { retrievalScores } from "../algorithms/evaluation/retrieval-metrics.ts";
import { nextAfter } from "../algorithms/memory/knn-vote.ts";
import { learnWeights } from "../algorithms/prediction/learned-weights.ts";
import { markovBaseline, type NextStepWeights, suggestNextSteps } from "../algorithms/prediction/next-step.ts";
import { topNextStep } from "../algorithms/prediction/next-step-memory.ts";
import { mulberry32 } from "../algorithms/random/rng.ts";
import { calibrate, fitCalibration } from "../algorithms/thresholds/calibration.ts";
import { rankCandidates, type SearchAblation, type SearchOptions } from "../algorithms/search/rank-candidates.ts";
import {
  type EvalCase,
  openToolgraph,
  type RecallAnswer,
  type RequestOf,
  type SearchModel,
  type Toolgraph,
} from "../src/index.ts";
import { projectTools } from "./lib/project-tools.ts";
import { progress } from "./lib/report.ts";

/**
 * The project's search weights in force (`stats().learning`). The harness project always stores a fit first
 * (openHarnessProject), so no background fit is pending: the weights the search job uses.
 */
async function weightsInForce(tg: Toolgraph, project: string) {
  return (await tg.stats({ project })).learning.searchWeights.inForce;
}

/** The intent memory's tool votes keyed by the ranking core's tool index (undefined when the memory is silent). */
function votesOf(model: SearchModel, r: RecallAnswer): Map<number, number> | undefined {
  if (r.similarity === null) return undefined;
  const index = new Map(model.tools.map((t, i) => [t, i]));
  return new Map(r.tools.map((t) => [index.get(t.tool)!, t.vote]));
}

export interface HarnessInput {
  name: string;
  catalog: object;
  traces: object[];
  edges?: object[];
  /** Cases by split name. */
  evaluation: Record<string, EvalCase[]>;
}

export interface HarnessOptions {
  embeddings: string;
  /** Embedded data directory reused across runs (stored embeddings are not recomputed). */
  home: string;
  /** Evaluation time (recency reference): the end of the training history. */
  now?: number;
  /** Use declared edges (catalog knowledge) as a separate configuration. */
  withEdges?: boolean;
  seed?: number;
}

export type Row = (string | number | null)[];
export interface Table {
  title: string;
  headers: string[];
  rows: Row[];
}

const mean = (xs: number[]) => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

export async function openHarnessProject(
  input: HarnessInput,
  options: HarnessOptions,
  variant: string,
): Promise<{ tg: Toolgraph; project: string }> {
  const project = `${input.name}-${variant}`;
  const tg = await openToolgraph({
    home: options.home,
    database: "",
    project,
    embeddings: options.embeddings,
    detection: true,
    queryCacheSize: 5000,
    now: options.now ? () => options.now! : undefined,
  });
  await tg.importCatalog(input.catalog, { onProgress: (d, t) => progress(`${input.name}: embedding tools`, d, t) });
  if (variant.includes("edges") && input.edges && input.edges.length > 0)
    await tg.importEdges(input.edges.map((e) => JSON.stringify(e)).join("\n"));
  await tg.importTraces(input.traces);
  // Fit the project's search weights on its training executions (leave-one-out), as `learn-weights` does.
  await tg.fitSearchWeights();
  return { tg, project };
}

/** Retrieval: toolgraph and its baselines; returns one table per split. */
export async function evalRetrieval(
  tg: Toolgraph,
  project: string,
  split: string,
  cases: EvalCase[],
  withPlan: boolean,
  gating?: GatingData,
): Promise<Table | undefined> {
  const rc = cases.filter((c): c is Extract<EvalCase, { kind: "retrieval" }> => c.kind === "retrieval");
  if (rc.length === 0) return undefined;
  const model = await tg.searchModel({ project });
  const queries = rc.map((c) => c.query);
  const vectors: Float32Array[] = [];
  for (let i = 0; i < queries.length; i += 64) {
    vectors.push(...(await model.embed(queries.slice(i, i + 64))));
    progress(`${project}/${split}: embedding queries`, Math.min(i + 64, queries.length), queries.length);
  }
  const ex = model.data.executions;
  const popular = Array.from({ length: model.data.n }, (_, i) => i)
    .sort((x, y) => ex[y]! - ex[x]! || x - y)
    .slice(0, 10)
    .map((i) => model.tools[i]!);
  const w = await weightsInForce(tg, project);
  // The intent memory's answer for a query is the same for every method: compute it once.
  const memo = new Map<string, { toolVotes: Map<number, number> | undefined }>();
  const recalled = async (q: string, v: Float32Array) => {
    let m = memo.get(q);
    if (!m) {
      m = { toolVotes: votesOf(model, await tg.recall(q, { project, vector: v })) };
      memo.set(q, m);
    }
    return m;
  };
  const methods: Record<string, (q: string, v: Float32Array) => Promise<string[]>> = {
    "most-popular": async () => popular,
    bm25: async (q, v) => rank(q, v, {}, { channel: "bm25", noGraph: true }),
    embedding: async (q, v) => rank(q, v, {}, { channel: "embedding", noGraph: true }),
    "fused semantic (β 0.5)": async (q, v) => rank(q, v, {}, { channel: "semantic", noGraph: true }),
    [`fused semantic (fitted β ${w.beta})`]: async (q, v) =>
      rank(q, v, { beta: w.beta }, { channel: "semantic", noGraph: true }),
    "hybrid (graph weight 1, no memory)": async (q, v) => rank(q, v, { beta: w.beta }),
    "memory only (kNN-traces)": async (q, v) => {
      const m = await recalled(q, v);
      return [...(m.toolVotes ?? new Map()).entries()]
        .sort((x, y) => y[1] - x[1] || x[0] - y[0])
        .slice(0, 10)
        .map(([i]) => model.tools[i]!);
    },
    "toolgraph − graph (semantic + memory)": async (q, v) => {
      const m = await recalled(q, v);
      return rank(
        q,
        v,
        { memory: m.toolVotes, beta: w.beta, memoryWeight: w.memoryWeight, contentWeight: w.contentWeight },
        { channel: "semantic", noGraph: true },
      );
    },
    "toolgraph with fixed weights (β 0.7, μ 0.8)": async (q, v) => {
      const m = await recalled(q, v);
      return rank(q, v, { memory: m.toolVotes, beta: 0.7, memoryWeight: 0.8 });
    },
    [`toolgraph (fitted β ${w.beta}, μ ${w.memoryWeight}, content ${w.contentWeight}, graph ${w.graphWeight})`]: async (
      q,
    ) => {
      // The default row: the library's search job (the one every door calls), not the scoring internals.
      const r = await tg.search({ project, intent: q, limit: 10 });
      const first = r.results[0];
      if (gating && first) gating.pairs.push({ score: first.score, correct: currentRelevant.has(first.tool) });
      return r.results.map((x) => x.tool);
    },
  };
  if (withPlan) {
    methods["toolgraph plan (+ prerequisite closure)"] = async (q) =>
      (await tg.plan({ project, intent: q, limit: 3 })).ranked.slice(0, 10);
  }
  function rank(q: string, v: Float32Array, o: SearchOptions, ablation: SearchAblation = {}): string[] {
    return rankCandidates(model.data, q, v, { ...o, channelTopN: 100 }, ablation)
      .slice(0, 10)
      .map((h) => model.tools[h.index]!);
  }
  let currentRelevant = new Set<string>();
  const rows: Row[] = [];
  for (const [name, fn] of Object.entries(methods)) {
    const per = {
      r1: [] as number[],
      r5: [] as number[],
      r10: [] as number[],
      ndcg: [] as number[],
      map: [] as number[],
      comp: [] as number[],
    };
    for (let i = 0; i < rc.length; i++) {
      currentRelevant = new Set(rc[i]!.relevant);
      const ranked = await fn(rc[i]!.query, vectors[i]!);
      const sc = retrievalScores(ranked, rc[i]!.relevant, [1, 5, 10]);
      per.r1.push(sc.recall[1]!);
      per.r5.push(sc.recall[5]!);
      per.r10.push(sc.recall[10]!);
      per.ndcg.push(sc.ndcg[10]!);
      per.map.push(sc.ap[10]!);
      per.comp.push(sc.comp[10]!);
    }
    rows.push([name, mean(per.r1), mean(per.r5), mean(per.r10), mean(per.ndcg), mean(per.map), mean(per.comp)]);
  }
  return {
    title: `Retrieval — ${project} / ${split} (${rc.length} queries)`,
    headers: ["method", "Recall@1", "Recall@5", "Recall@10", "NDCG@10", "mAP@10", "COMP@10"],
    rows,
  };
}

/** Next step over every prefix of every test workflow: toolgraph, baselines and ablations. */
export async function evalNextStep(
  tg: Toolgraph,
  project: string,
  split: string,
  cases: EvalCase[],
  now: number,
): Promise<{ table: Table; gating: GatingData } | undefined> {
  const nc = cases.filter((c): c is Extract<EvalCase, { kind: "next-step" }> => c.kind === "next-step");
  if (nc.length === 0) return undefined;
  // The next-step core's read model, with the weights the suggestNext job uses (auto, a pending fit awaited).
  const m = await tg.nextStepModel({ project });
  // Learned weights: fitted on the training traces only.
  const seqs = await tg.executionSequences({ project, limit: 5000 });
  // Fitted once per project (the training history is the same for every split).
  let learned = learnedCache.get(project);
  if (!learned) {
    learned = learnWeights(m.trainingExamples(seqs), { rng: mulberry32(1) }).weights;
    learnedCache.set(project, learned);
  }
  const W = (w: Partial<NextStepWeights>): NextStepWeights => ({
    cooc: 0.6,
    community: 0.3,
    recency: 0.1,
    pagerank: 0.1,
    ...w,
  });
  const variants: Record<string, NextStepWeights | "markov" | "popular" | "memory" | "job"> = {
    "most-popular": "popular",
    "first-order Markov": "markov",
    "seed formula 0.6/0.3/0.1/0.1": W({}),
    "− Louvain": W({ community: 0 }),
    "− recency": W({ recency: 0 }),
    "− PageRank": W({ pagerank: 0 }),
    "cooc only (context decay)": (await tg.nextStepModel({ project, mode: "markov" })).weights,
    "learned weights": learned,
    "learned + intent memory": "memory",
    // The default row: the library's suggestNext job (auto weights, intent memory, the doors' path), ranked
    // to its request limit (100).
    "toolgraph (suggestNext job)": "job",
  };
  const n = m.tools.length;
  const popular = Array.from({ length: n }, (_, i) => i)
    .sort((x, y) => m.executions[y]! - m.executions[x]! || x - y)
    .map((i) => m.tools[i]!);
  const rows: Row[] = [];
  const gating: GatingData = { pairs: [], trainPairs: [] };
  const libraryWeights = m.weights;
  const qv = new Map<string, Float32Array>();
  const distinctQueries = [...new Set(nc.map((c) => c.query).filter((q): q is string => typeof q === "string"))];
  for (let i = 0; i < distinctQueries.length; i += 64) {
    const batch = distinctQueries.slice(i, i + 64);
    const vs = await m.embed(batch);
    for (let j = 0; j < batch.length; j++) qv.set(batch[j]!, vs[j]!);
  }
  for (const [name, w] of Object.entries(variants)) {
    const scores: NextStepCaseScore[] = [];
    const scoresAt5: NextStepCaseScore[] = [];
    for (const c of nc) {
      const rankings: string[][] = [];
      let mem: RecallAnswer | undefined;
      if (w === "memory" && c.query) mem = await tg.recall(c.query, { project, vector: qv.get(c.query)! });
      for (let t = 1; t < c.steps.length; t++) {
        const ctx = c.steps.slice(0, t).filter((x) => m.index.has(x));
        // Full rankings (every tool the method scores), so MRR is over the whole ranking; MRR@5 cuts them.
        if (ctx.length === 0) {
          rankings.push(popular);
          continue;
        }
        if (w === "popular") rankings.push(popular.filter((x) => x !== ctx[ctx.length - 1]));
        else if (w === "job")
          rankings.push(
            (
              await tg.suggestNext({ project, context: ctx, ...(c.query ? { intent: c.query } : {}), limit: 100 })
            ).suggestions.map((x) => x.tool),
          );
        else if (w === "markov") {
          const r = markovBaseline(m.transitions, [m.index.get(ctx[ctx.length - 1]!)!], { limit: n });
          rankings.push(r.suggestions.map((x) => m.tools[x.tool]!));
        } else {
          const weights = w === "memory" ? learned : w;
          const r = suggestNextSteps(m.model, { context: ctx.map((x) => m.index.get(x)!), now }, { weights, limit: n });
          let list = r.suggestions.map((x) => ({ tool: m.tools[x.tool]!, conf: x.confidence }));
          if (mem && mem.past.length > 0) {
            const votes = new Map(nextAfter(mem.past, ctx, now, { limit: 20 }).votes.map((v) => [v.key, v.vote]));
            for (const tool of votes.keys())
              if (!list.some((x) => x.tool === tool) && tool !== ctx[ctx.length - 1]) list.push({ tool, conf: 0 });
            list = list
              .map((x) => ({ tool: x.tool, conf: 1 - (1 - x.conf) * (1 - 0.8 * (votes.get(x.tool) ?? 0)) }))
              .sort((p, q) => q.conf - p.conf);
          }
          rankings.push(list.map((x) => x.tool));
        }
      }
      scores.push(scoreNextStepCase({ steps: c.steps, edges: c.edges }, rankings, [1, 3, 5]));
      scoresAt5.push(
        scoreNextStepCase(
          { steps: c.steps, edges: c.edges },
          rankings.map((r) => r.slice(0, 5)),
          [1, 3, 5],
        ),
      );
    }
    const sum = summarizeNextStep(scores);
    const at5 = summarizeNextStep(scoresAt5);
    rows.push([
      name,
      sum.hitAtK[1] ?? null,
      sum.hitAtK[3] ?? null,
      sum.hitAtK[5] ?? null,
      at5.mrr ?? null,
      sum.mrr ?? null,
    ]);
  }
  gating.pairs = await nextStepGatedPairs(tg, project, nc, now, libraryWeights, qv);
  gating.trainPairs = (await trainPairs(tg, project)).nextStep;
  const prefixes = nc.reduce((t, c) => t + c.steps.length - 1, 0);
  return {
    table: {
      title: `Next step — ${project} / ${split} (${nc.length} workflows, ${prefixes} prefixes)`,
      headers: ["method", "acc@1 (P@1)", "Hit@3", "Hit@5", "MRR@5", "MRR (full ranking)"],
      rows,
    },
    gating,
  };
}

/**
 * Next-step gating: the library's top-1 answer for each prefix (default `auto` weights, the intent memory's
 * lift when the case has a request) and the real gate's decision for that request (calibration, adaptive
 * threshold). Also used alone by the order stress rows (bench/accuracy.ts).
 */
export async function nextStepGatedPairs(
  tg: Toolgraph,
  project: string,
  cases: EvalCase[],
  now: number,
  weights?: NextStepWeights,
  vectors?: Map<string, Float32Array>,
): Promise<GatedPair[]> {
  const nc = cases.filter((c): c is Extract<EvalCase, { kind: "next-step" }> => c.kind === "next-step");
  const m = await tg.nextStepModel({ project });
  const libraryWeights = weights ?? m.weights;
  const qv = vectors ?? new Map<string, Float32Array>();
  const missing = [...new Set(nc.map((c) => c.query).filter((q): q is string => typeof q === "string" && !qv.has(q)))];
  for (let i = 0; i < missing.length; i += 64) {
    const batch = missing.slice(i, i + 64);
    const vs = await m.embed(batch);
    for (let j = 0; j < batch.length; j++) qv.set(batch[j]!, vs[j]!);
  }
  const tools = { ids: m.tools, index: m.index };
  const out: GatedPair[] = [];
  for (const c of nc) {
    const mem = c.query ? await tg.recall(c.query, { project, vector: qv.get(c.query)! }) : undefined;
    for (let t = 1; t < c.steps.length; t++) {
      const ctx = c.steps.slice(0, t).filter((x) => m.index.has(x));
      const top = topNextStep(tools, m.model, ctx, now, libraryWeights, mem?.past);
      if (!top) continue;
      const d = await tg.gateDecision("next-step", top.confidence, {
        project,
        text: c.query ?? "",
        workflow: { steps: ctx.map((tool) => ({ tool, success: true })), replans: 0 },
        similarPastSuccess: mem?.similarSuccess ?? undefined,
        workflowId: c.id,
      });
      out.push({
        score: top.confidence,
        correct: eligibleNext(c, t).has(top.tool),
        probability: d.score,
        threshold: d.threshold,
        rules: d.appliedRules,
        decision: d.decision,
      });
    }
  }
  return out;
}

function eligibleNext(c: { steps: string[]; edges?: [number, number][] | undefined }, t: number): Set<string> {
  if (!c.edges) return new Set([c.steps[t]!]);
  const done = new Set(Array.from({ length: t }, (_, i) => i));
  const out = new Set<string>();
  for (let j = 0; j < c.steps.length; j++) {
    if (done.has(j)) continue;
    if (c.edges.filter(([, b]) => b === j).every(([x]) => done.has(x))) out.add(c.steps[j]!);
  }
  return out;
}

export interface GatedPair {
  /** The answer's raw score (confidence / hybrid score). */
  score: number;
  correct: boolean;
  /** What the gate compared with its thresholds: the calibrated P(success) (the raw score without calibration). */
  probability?: number | undefined;
  /** The adjusted threshold the AdaptiveThresholdManager set for this request. */
  threshold?: number | undefined;
  rules?: readonly string[] | undefined;
  /** The gate's decision for the answer. */
  decision?: "accepted" | "accepted-with-caution" | "abstained" | undefined;
}

export interface GatingData {
  /** Held-out answers, gated. */
  pairs: GatedPair[];
  /** Out-of-sample calibration pairs on the training executions (rolling time split, jobs/fit-calibration.ts). */
  trainPairs: { score: number; correct: boolean }[];
}

/** Score from which an answer is accepted with high confidence; such answers must succeed ≥ 80 % of the time
 * (docs/decisions/gate-thresholds.md). */
export const HIGH_CONFIDENCE = 0.85;
export const HIGH_CONFIDENCE_MIN_SUCCESS = 0.8;

/**
 * Precision/coverage of accepted top-1 answers: across fixed thresholds (raw score and calibrated
 * probability), at each answer's own adaptive threshold (the real gate's) versus a fixed 0.70, and the success
 * rate of high-confidence answers (calibrated ≥ 0.85) against the 0.80 target (docs/decisions/gate-thresholds.md).
 */
export function gatingTable(title: string, g: GatingData): Table {
  const cal = fitCalibration(
    g.trainPairs.map((p) => p.score),
    g.trainPairs.map((p) => p.correct),
  );
  const prob = (p: GatedPair) => p.probability ?? calibrate(cal, p.score);
  const rows: Row[] = [];
  const at = (keep: (p: GatedPair) => boolean) => {
    const kept = g.pairs.filter(keep);
    return [
      kept.length / Math.max(1, g.pairs.length),
      kept.length === 0 ? null : kept.filter((p) => p.correct).length / kept.length,
      kept.length,
    ] as const;
  };
  for (const tau of [0.5, 0.6, 0.62, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9]) {
    const [c1, p1] = at((p) => p.score >= tau - 1e-9);
    const [c2, p2] = at((p) => prob(p) >= tau - 1e-9);
    rows.push([tau, c1, p1, c2, p2, ""]);
  }
  const ts = g.pairs.map((p) => p.threshold).filter((t): t is number => t !== undefined);
  if (ts.length > 0) {
    const thr = (p: GatedPair) => p.threshold ?? 0.7;
    const [c1, p1] = at((p) => p.score >= thr(p) - 1e-9);
    const [c2, p2] = at((p) => prob(p) >= thr(p) - 1e-9);
    const rules = new Map<string, number>();
    for (const p of g.pairs) for (const r of p.rules ?? []) rules.set(r, (rules.get(r) ?? 0) + 1);
    const ruleText =
      [...rules]
        .sort((x, y) => y[1] - x[1])
        .map(([r, n]) => `${r} ×${n}`)
        .join(", ") || "no rule";
    const f2 = (x: number) => x.toFixed(2);
    rows.push([
      "adaptive (per answer)",
      c1,
      p1,
      c2,
      p2,
      `thresholds ${f2(Math.min(...ts))}–${f2(Math.max(...ts))}, mean ${f2(ts.reduce((x, y) => x + y, 0) / ts.length)}; ${ruleText}`,
    ]);
    const [f1, q1] = at((p) => p.score >= 0.7 - 1e-9);
    const [f3, q3] = at((p) => prob(p) >= 0.7 - 1e-9);
    rows.push(["fixed 0.70", f1, q1, f3, q3, ""]);
  }
  const verdict = (rate: number | null, n: number) =>
    rate === null
      ? "no answer reaches 0.85 (vacuous)"
      : `${rate >= HIGH_CONFIDENCE_MIN_SUCCESS ? "PASS" : "FAIL"} (${rate.toFixed(3)} over ${n} answers, needs ≥ ${HIGH_CONFIDENCE_MIN_SUCCESS.toFixed(2)})`;
  const [hc1, hp1, hn1] = at((p) => p.score >= HIGH_CONFIDENCE - 1e-9);
  const [hc2, hp2, hn2] = at((p) => prob(p) >= HIGH_CONFIDENCE - 1e-9);
  rows.push([
    `high confidence ≥ ${HIGH_CONFIDENCE}`,
    hc1,
    hp1,
    hc2,
    hp2,
    `raw: ${verdict(hp1, hn1)}; calibrated: ${verdict(hp2, hn2)}`,
  ]);
  return {
    title: `Gating — ${title} (top-1 answers, ${g.pairs.length} held out; calibration out of sample on ${g.trainPairs.length} training answers, tg.calibrate(), Wilson bound)`,
    headers: [
      "threshold",
      "coverage (raw)",
      "precision (raw)",
      "coverage (calibrated)",
      "precision (calibrated)",
      "note",
    ],
    rows,
  };
}

/**
 * The gate's own decisions on held-out answers: coverage (share of all answers) and precision (share
 * of those correct) of `accepted` and `accepted-with-caution`, the abstention rate, then the risk–coverage
 * curve of the probability the gate compared (answers sorted by it, best first; risk = 1 − precision of the
 * answers kept, at 10 %, 20 %, …, 100 % coverage; Geifman & El-Yaniv 2017, algorithms/evaluation/gating-curve.ts).
 */
export function gateDecisionTable(title: string, g: GatingData): Table {
  const n = g.pairs.length;
  const rows: Row[] = [];
  const tier = (d: string) => {
    const kept = g.pairs.filter((p) => p.decision === d);
    return [
      kept.length / Math.max(1, n),
      kept.length === 0 ? null : kept.filter((p) => p.correct).length / kept.length,
      kept.length,
    ] as const;
  };
  for (const d of ["accepted", "accepted-with-caution", "abstained"] as const) {
    const [c, p, k] = tier(d);
    rows.push([d, c, p, String(k)]);
  }
  const [ca, pa, ka] = (() => {
    const kept = g.pairs.filter((p) => p.decision === "accepted" || p.decision === "accepted-with-caution");
    return [
      kept.length / Math.max(1, n),
      kept.length === 0 ? null : kept.filter((p) => p.correct).length / kept.length,
      kept.length,
    ] as const;
  })();
  rows.push(["accepted or with caution", ca, pa, String(ka)]);
  const curve = gatingCurve(g.pairs.map((p) => ({ score: p.probability ?? p.score, correct: p.correct })));
  for (let q = 1; q <= 10; q++) {
    const point = curve.find((x) => x.coverage >= q / 10 - 1e-9);
    if (!point) continue;
    rows.push([
      `risk at coverage ≥ ${(q / 10).toFixed(1)} (P ≥ ${point.threshold.toFixed(3)})`,
      point.coverage,
      point.precision === null ? null : 1 - point.precision,
      String(point.kept),
    ]);
  }
  return {
    title: `Gate decisions — ${title} (${n} held-out top-1 answers; then the risk–coverage curve)`,
    headers: ["decision / point", "coverage", "precision (risk on curve rows)", "answers"],
    rows,
  };
}

/**
 * Search gating on held-out retrieval cases: each case asked through the library's search (`tg.search`, limit 1:
 * the path every door takes, with the project's weights in force, the history guard and the intent memory) — its
 * top-1 hit, and the real gate's decision for that score (the project's calibration, the adaptive threshold).
 */
export async function evalSearchGating(
  tg: Toolgraph,
  project: string,
  cases: EvalCase[],
): Promise<GatingData | undefined> {
  const rc = cases.filter((c): c is Extract<EvalCase, { kind: "retrieval" }> => c.kind === "retrieval");
  if (rc.length === 0) return undefined;
  const out: GatingData = { pairs: [], trainPairs: (await trainPairs(tg, project)).search };
  for (const c of rc) {
    const r = (await tg.search({ project, intent: c.query, limit: 1 })) as {
      results: { tool: string; score: number; gate: { decision: GatedPair["decision"]; threshold: number } }[];
      threshold?: { appliedRules?: string[] };
    };
    const top = r.results[0];
    if (!top) continue;
    // The calibrated P(success) the gate compared is not part of the answer's item: the gate gives it for the
    // score (it depends on the project's calibration only, not on the request's threshold adjustment).
    const calibrated = (await tg.gateDecision("search", top.score, { project, text: c.query })).score;
    out.pairs.push({
      score: top.score,
      correct: c.relevant.includes(top.tool),
      probability: calibrated,
      threshold: top.gate.threshold,
      rules: r.threshold?.appliedRules ?? [],
      decision: top.gate.decision,
    });
  }
  return out;
}

/** DAG edges given the gold tool set: toolgraph (history / dependency graph) vs the listed-order chain. */
export async function evalDag(
  tg: Toolgraph,
  project: string,
  split: string,
  cases: EvalCase[],
  traces?: readonly { steps: readonly { tool: string }[] }[],
): Promise<Table | undefined> {
  const dc = cases.filter((c): c is Extract<EvalCase, { kind: "dag" }> => c.kind === "dag");
  if (dc.length === 0) return undefined;
  const known = await projectTools(tg, project);
  type Predicted = { edges: [string, string][]; order: string[]; rank: Map<string, number> };
  const chain = (order: string[]): Predicted => ({
    edges: order.slice(1).map((t, i) => [order[i]!, t] as [string, string]),
    order,
    rank: new Map(order.map((t, i) => [t, i])),
  });
  // Full within-execution precedence of the training executions (the precedence-sorted chain baseline).
  const before = traces ? precedenceCounts(traces.map((t) => t.steps.map((st) => st.tool))) : undefined;
  const rng = mulberry32(20);
  // Each method gets the case's tools and its request text (the default rows pass it to the job as `intent`, as a
  // user would; the baselines ignore it).
  const methods: Record<string, (tools: string[], intent?: string) => Predicted | Promise<Predicted>> = {
    "listed-order chain": (tools) => chain(tools),
    ...(before
      ? { "precedence-sorted chain (training order)": (tools: string[]) => chain(precedenceChain(tools, before).order) }
      : {}),
    "no edges": (tools) => ({ edges: [], order: tools, rank: new Map() }),
    "toolgraph (history graph)": (tools, intent) => viaJob(tools, "history", false, intent),
    "toolgraph (default graph)": (tools, intent) => viaJob(tools, "auto", false, intent),
    "toolgraph (dependency graph)": (tools, intent) => viaJob(tools, "dependency", false, intent),
    "toolgraph (dependency graph), tools given shuffled": (tools, intent) => {
      const u = tools.slice();
      for (let i = u.length - 1; i > 0; i--) {
        const j = Math.floor(rng() * (i + 1));
        [u[i], u[j]] = [u[j]!, u[i]!];
      }
      return viaJob(u, "dependency", false, intent);
    },
    "toolgraph (dependency graph, no precedence)": (tools, intent) =>
      viaDag(tools, "dependency", 3, false, true, false, { intent }),
    "toolgraph (dependency graph, no data-flow prior)": (tools, intent) =>
      viaDag(tools, "dependency", 3, false, false, true, { intent }),
    "toolgraph (dependency graph, 1 hop)": (tools, intent) =>
      viaDag(tools, "dependency", 1, false, true, true, { intent }),
    "toolgraph (dependency graph, no direct-first)": (tools, intent) =>
      viaDag(tools, "dependency", 3, false, true, true, { directFirst: false, intent }),
    "toolgraph (dependency graph, direct edges reduced)": (tools, intent) =>
      viaDag(tools, "dependency", 3, false, true, true, { keepDirect: false, intent }),
    "toolgraph (dependency graph + role orientation)": (tools, intent) =>
      viaDag(tools, "dependency", 3, false, true, true, { roles: true, intent }),
    "toolgraph (blended graph)": (tools, intent) => viaJob(tools, "blended", false, intent),
    "toolgraph (dependency graph + schema edges)": (tools, intent) => viaJob(tools, "dependency", true, intent),
    "toolgraph (dependency graph, no intent)": (tools) => viaJob(tools, "dependency"),
    "toolgraph (dependency graph, intent, no mention chain)": (tools, intent) =>
      viaDag(tools, "dependency", 3, false, true, true, { intent, mentionChain: 0 }),
  };
  // Default rows go through the library's buildDag job (the doors' path: data-flow prior, precedence and the
  // request's intent on); the ablation rows (no intent, no precedence, no data-flow prior, 1 hop, no direct-first,
  // direct edges reduced, + role orientation) switch them off (or on) through buildDag's library-only `ablation`.
  async function viaJob(
    tools: string[],
    graph: "history" | "dependency" | "blended" | "auto",
    schemaEdges = false,
    intent?: string,
  ): Promise<Predicted> {
    const uniq = [...new Set(tools)].filter((t) => known.has(t));
    if (uniq.length === 0) return { edges: [], order: [], rank: new Map() };
    const dag = await tg.buildDag({ project, tools: uniq, graph, schemaEdges, ...(intent ? { intent } : {}) });
    const rank = new Map<string, number>();
    dag.layers.forEach((l, k) => {
      for (const t of l) rank.set(t, k);
    });
    return { edges: dag.edges.map((e) => [e.from, e.to] as [string, string]), order: dag.layers.flat(), rank };
  }
  async function viaDag(
    tools: string[],
    graph: "history" | "dependency" | "blended",
    hops = 3,
    schemaEdges = false,
    dataFlowPrior = true,
    precedence = true,
    more: NonNullable<RequestOf<"buildDag">["ablation"]> & { intent?: string | undefined } = {},
  ): Promise<Predicted> {
    const { intent, ...switches } = more;
    const uniq = [...new Set(tools)].filter((t) => known.has(t));
    if (uniq.length === 0) return { edges: [], order: [], rank: new Map() };
    const dag = await tg.buildDag({
      project,
      tools: uniq,
      graph,
      schemaEdges,
      ...(intent ? { intent } : {}),
      ablation: { hops, dataFlowPrior, precedence, ...switches },
    });
    const rank = new Map<string, number>();
    dag.layers.forEach((l, k) => {
      for (const t of l) rank.set(t, k);
    });
    return { edges: dag.edges.map((e) => [e.from, e.to] as [string, string]), order: dag.layers.flat(), rank };
  }
  const rows: Row[] = [];
  const withEdges = dc.filter((c) => goldToolEdges(c).length > 0);
  const covered = dc.filter((c) => c.tools.every((t) => (known.get(t) ?? 0) > 0));
  for (const [subset, list] of [
    ["all", dc],
    ["covered by training", covered],
  ] as const)
    for (const [name, fn] of Object.entries(methods)) {
      if (list.length === 0) continue;
      let tp = 0;
      let fp = 0;
      let fn_ = 0;
      let exact = 0;
      const oc: number[] = [];
      const tau: number[] = [];
      let fpOnNoEdge = 0;
      for (const c of list) {
        const p = await fn(c.tools, c.query);
        const sc = edgeScores(c, p.edges);
        tp += sc.tp;
        fp += sc.fp;
        fn_ += sc.fn;
        if (sc.exact) exact++;
        const o = orderConsistency(c, p.order);
        if (o.value !== null) oc.push(o.value);
        const k = kendallTau(c, p.rank);
        if (k.value !== null) tau.push(k.value);
        if (goldToolEdges(c).length === 0) fpOnNoEdge += sc.fp;
      }
      const P = tp + fp === 0 ? 0 : tp / (tp + fp);
      const R = tp + fn_ === 0 ? 0 : tp / (tp + fn_);
      rows.push([
        `${name} [${subset}]`,
        list.length,
        P,
        R,
        P + R === 0 ? 0 : (2 * P * R) / (P + R),
        exact / list.length,
        mean(oc),
        mean(tau),
        fpOnNoEdge,
      ]);
    }
  return {
    title: `DAG edges, gold tool set given — ${project} / ${split} (${dc.length} cases, ${withEdges.length} with gold edges, ${covered.length} whose tools all occur in training; micro-averaged)`,
    headers: [
      "method [cases]",
      "n",
      "edge P",
      "edge R",
      "edge F1",
      "exact DAG",
      "order consistency",
      "Kendall τ-b (gold layers)",
      "false edges on no-edge cases",
    ],
    rows,
  };
}

/** Intent → plan: node F1 and edge F1 with toolgraph picking the tools. */
export async function evalPlan(
  tg: Toolgraph,
  project: string,
  split: string,
  cases: EvalCase[],
  limit = Number.POSITIVE_INFINITY,
): Promise<Table | undefined> {
  const dc = cases
    .filter((c): c is Extract<EvalCase, { kind: "dag" }> => c.kind === "dag" && typeof c.query === "string")
    .slice(0, limit);
  if (dc.length === 0) return undefined;
  const nodeF: number[] = [];
  const edgeF: number[] = [];
  for (const c of dc) {
    const r = await tg.plan({ project, intent: c.query!, limit: 3 });
    nodeF.push(
      nodeScores(
        c.tools,
        r.tools.map((t) => t.tool),
      ).f1,
    );
    edgeF.push(
      edgeScores(
        c,
        r.edges.map((e) => [e.from, e.to] as [string, string]),
      ).f1,
    );
  }
  return {
    title: `Intent → plan — ${project} / ${split} (${dc.length} cases)`,
    headers: ["method", "node F1", "edge F1"],
    rows: [["toolgraph plan", mean(nodeF), mean(edgeF)]],
  };
}

export async function evalCapability(
  tg: Toolgraph,
  project: string,
  split: string,
  cases: EvalCase[],
): Promise<Table | undefined> {
  const cc = cases.filter((c): c is Extract<EvalCase, { kind: "capability" }> => c.kind === "capability");
  if (cc.length === 0) return undefined;
  const out: Row[] = [];
  const scores = [];
  for (const c of cc) {
    const r = await tg.matchCapabilities({ project, intent: c.query, limit: 10 });
    scores.push(
      scoreCapability(
        r.results.map((x) => x.capability),
        c.capability,
        [1, 5, 10],
      ),
    );
  }
  const sum = summarizeCapability(scores);
  out.push([
    "toolgraph match (semantic × reliability + memory + patterns)",
    sum.accuracyAt1,
    sum.mrr,
    sum.hitAtK[5] ?? null,
  ]);
  // Baseline: the capability vote of the nearest past requests alone (intent memory, 20 neighbours,
  // similarity × outcome × recency), ties by capability id.
  const nearest = [];
  for (let i = 0; i < cc.length; i += 64) {
    const batch = cc.slice(i, i + 64);
    const vs = await (await tg.searchModel({ project })).embed(batch.map((c) => c.query));
    for (let j = 0; j < batch.length; j++) {
      const m = await tg.recall(batch[j]!.query, { project, vector: vs[j]! });
      // Best vote first, ties by capability id (as the recall answers them).
      const ranked = m.capabilities.map((x) => x.capability);
      nearest.push(scoreCapability(ranked.slice(0, 10), batch[j]!.capability, [1, 5, 10]));
    }
  }
  const ns = summarizeCapability(nearest);
  out.push([
    "capability of the nearest past requests (memory vote only)",
    ns.accuracyAt1,
    ns.mrr,
    ns.hitAtK[5] ?? null,
  ]);
  return {
    title: `Capability match — ${project} / ${split} (${cc.length} queries)`,
    headers: ["method", "accuracy@1 (P@1)", "MRR@10", "Hit@5"],
    rows: out,
  };
}

/**
 * Capability discovery on workflows: given the first two tools of a test workflow as the context, rank
 * capabilities by overlap × spectral boost; the gold capability is the workflow's (ToolLinkOS bundles).
 */
export async function evalDiscovery(
  tg: Toolgraph,
  project: string,
  split: string,
  cases: EvalCase[],
): Promise<Table | undefined> {
  const caps = new Map(
    cases
      .filter((c): c is Extract<EvalCase, { kind: "capability" }> => c.kind === "capability")
      .map((c) => [c.id, c.capability]),
  );
  const wf = cases.filter(
    (c): c is Extract<EvalCase, { kind: "dag" }> => c.kind === "dag" && caps.has(c.id) && c.tools.length >= 3,
  );
  if (wf.length === 0) return undefined;
  const known = await projectTools(tg, project);
  const rows: Row[] = [];
  for (const boost of [0.5, 0]) {
    const scores = [];
    for (const c of wf) {
      const context = [...new Set(c.tools)].filter((t) => known.has(t)).slice(0, 2);
      if (context.length === 0) continue;
      const r = await tg.discoverCapabilities({
        project,
        context,
        limit: 10,
        ...(boost === 0 ? { ablation: { clusterBoost: 0 } } : {}),
      });
      scores.push(
        scoreCapability(
          r.results.map((x) => x.capability),
          caps.get(c.id)!,
          [1, 5, 10],
        ),
      );
    }
    const sum = summarizeCapability(scores);
    rows.push([
      boost === 0.5 ? "overlap × (1 + 0.5 spectral boost)" : "overlap only (no spectral boost)",
      sum.accuracyAt1,
      sum.mrr,
      sum.hitAtK[5] ?? null,
    ]);
  }
  return {
    title: `Capability discovery from the first two tools — ${project} / ${split} (${wf.length} workflows)`,
    headers: ["method", "accuracy@1 (P@1)", "MRR@10", "Hit@5"],
    rows,
  };
}

const learnedCache = new Map<string, NextStepWeights>();
const trainPairsCache = new Map<
  string,
  Promise<{ nextStep: { score: number; correct: boolean }[]; search: { score: number; correct: boolean }[] }>
>();

/**
 * Calibration pairs of the training executions, out of sample: the calibrate service's rolling time split
 * (each execution answered by a model fitted on the executions before its block), computed once per project.
 */
export function trainPairs(tg: Toolgraph, project: string) {
  let p = trainPairsCache.get(project);
  if (!p) {
    p = computeTrainPairs(tg, project);
    trainPairsCache.set(project, p);
  }
  return p;
}

/** Top-1 search hits of the training intents (out of sample) against the tools those executions used. */
export async function trainSearchPairs(tg: Toolgraph, project: string): Promise<{ score: number; correct: boolean }[]> {
  return (await trainPairs(tg, project)).search;
}

async function computeTrainPairs(tg: Toolgraph, project: string) {
  const p = await tg.calibrationPairs({ project });
  const map = (xs: { score: number; ok: boolean }[]) => xs.map((x) => ({ score: x.score, correct: x.ok }));
  return { nextStep: map(p.nextStep), search: map(p.search) };
}
