/**
 * The search weights (fusion β, memory μ, content, graph, history guard): their defaults, the fit's options and
 * result types, and the weights in force for a project (fit-search-weights.ts fits them).
 */
import { DEFAULTS as CHANNEL_DEFAULTS } from "../../algorithms/search/channel-fusion.ts";
import { globalSignal } from "../../algorithms/search/global-signal.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import type { FitRecord } from "./learning-log.ts";

export interface SearchWeights {
  beta: number;
  memoryWeight: number;
  /** Weight of the content channel against the memory (channel-fusion.ts; 1 = the plain memory lift). */
  contentWeight: number;
  /** Multiplier of the graph term (0 turns it off). */
  graphWeight: number;
  /**
   * Strength γ of the history guard (algorithms/search/history-guard.ts): 1 scales memory and usage fully by
   * the query's similarity to the past, 0 turns the guard off.
   */
  historyGuard: number;
}

export const DEFAULT_SEARCH_WEIGHTS: SearchWeights = {
  beta: 0.5,
  memoryWeight: 0.8,
  contentWeight: 1,
  graphWeight: 1,
  historyGuard: 1,
};

/** Fitting and acceptance defaults (docs/decisions/search-weight-fitting.md). */
export const SEARCH_FIT_DEFAULTS = {
  /** Fewest past executions with an intent for a fit at all. */
  minIntents: 30,
  /** Cases scored (executions). */
  maxIntents: 200,
  /** Grouped folds. */
  folds: 5,
  /** Fewest distinct intent groups among the cases for a fitted setting to replace the default. */
  minGroups: 10,
  /** Out-of-sample mAP@10 gain over the default a fitted setting needs. */
  margin: 0.02,
  /**
   * Most mAP@10 a fitted setting may lose against the defaults on unseen intents (the held-out groups answered
   * without their own history): 0, learning must never make a new request's answer worse.
   */
  unseenLoss: 0,
  /** History-guard strengths the fit tries (preferred first: the full guard). */
  guardGrid: [1, 0.5, 0],
  /**
   * Fewest distinct intent groups among the cases for the fit to try lowering the guard: a narrow history (a few
   * intents repeated) cannot show how it serves requests unlike all of them (docs/decisions/history-guard.md).
   */
  guardMinGroups: 100,
  /** Lowest content weight a fit may choose or a stored setting may hold. */
  contentFloor: CHANNEL_DEFAULTS.contentFloor,
};
export const SEARCH_FIT_MIN_INTENTS = SEARCH_FIT_DEFAULTS.minIntents;

export interface SearchFitOptions {
  /** Cases scored. Default 200. */
  maxIntents?: number | undefined;
  /** Seed of the case order. Default 1. */
  seed?: number | undefined;
  /** Report what the fit would change without storing it. Default false. */
  dryRun?: boolean | undefined;
  /** Lowest content weight (measurements only; the service uses SEARCH_FIT_DEFAULTS.contentFloor). */
  contentFloor?: number | undefined;
}

export interface SearchWeightsFit extends SearchWeights {
  /** Cases scored. */
  intents: number;
  /** Distinct intent groups among the cases. */
  groups: number;
  /** Whether the fitted weights are (or, in a dry run, would be) in force. */
  accepted: boolean;
  /** The weights the fit on every case chose (in force only when accepted). */
  candidate?: SearchWeights;
  /** Out-of-sample (grouped folds) score of the defaults and of the fitting procedure: mean, unseen, repeat. */
  outOfSample?: { default: CaseScore; fitted: CaseScore; folds: number; gainStdErr: number };
  /** In-sample mAP@10 on every case: per β (μ = 0), then per μ, per w_c, per graph weight, per guard strength. */
  betaCurve: { beta: number; map: number }[];
  memoryCurve: { memoryWeight: number; map: number }[];
  contentCurve: { contentWeight: number; map: number }[];
  graphCurve: { graphWeight: number; map: number }[];
  guardCurve: { historyGuard: number; map: number }[];
  /** In-sample score of the candidate and of each channel alone (content, memory, graph) on the same cases. */
  map?: number;
  channels?: { content: number; memory: number; graph: number };
  reason?: string;
  dryRun: boolean;
  record?: FitRecord;
}

export interface CaseScore {
  /** ½·unseen + ½·repeat, averaged per group then over groups. */
  score: number;
  unseen: number;
  repeat: number;
}

export interface Case {
  intent: string;
  v: Float32Array;
  relevant: Set<string>;
  group: number;
  unseen: CaseMode;
  /** Absent: the case's group is itself alone, repeat = unseen. */
  repeat?: CaseMode;
}

/** What a case is answered with in one mode: the memory's votes and the history guard's similarity without the held-out executions, and the held-out usage. */
export interface CaseMode {
  memory: Map<number, number> | undefined;
  similarity: number | undefined;
  /** RecallResult.repeatRecordedAt without the held-out executions (the never-run anchor's repeat rule). */
  repeatRecordedAt?: number | undefined;
  held: HeldOutSignals;
}

/**
 * The weights in force for a stored configuration: the stored ones with w_c raised to the floor, else the
 * defaults; the history guard's strength, unless a fit stored one, is the project's prior `guard` (guard-prior.ts).
 */
export function inForce(cfg: Record<string, unknown>, guard = DEFAULT_SEARCH_WEIGHTS.historyGuard): SearchWeights {
  const stored = cfg.searchWeights as Partial<SearchWeights> | undefined;
  const base = { ...DEFAULT_SEARCH_WEIGHTS, historyGuard: guard };
  if (!stored) return base;
  const w = { ...base, ...stored };
  return w.contentWeight >= SEARCH_FIT_DEFAULTS.contentFloor
    ? w
    : { ...w, contentWeight: SEARCH_FIT_DEFAULTS.contentFloor };
}

export interface HeldOutSignals {
  /** The no-context graph signal with the execution's successful steps removed from the usage counts. */
  global: Float64Array;
  /** Executions (steps) per tool with the execution's own steps removed: α's cold start sees them as not run. */
  executions: Uint32Array;
}

/**
 * The per-tool history a held-out past execution is scored with (leave-one-out): its own steps removed from
 * the counts. Without it the fit scores every one of the execution's tools as a tool with history — one that
 * ran only there keeps α < 1 (cold start at n = 1 instead of α = 1 at n = 0) and is lifted by the graph —
 * while a new request's tools have often never run; the fit then overrates the graph (Seal-Tools,
 * hash:512: graph 0.5 fitted, out-of-domain mAP@10 0.794 against BM25's 0.803). Not removed:
 * the execution's edges, so PageRank and coherence still include it (a second-order effect: both only act
 * through α < 1, which a tool that ran nowhere else no longer has).
 */
export function heldOutSignals(
  s: Pick<GraphSnapshot, "n" | "index" | "executions" | "successes">,
  pagerank: ArrayLike<number>,
  steps: readonly { tool: string; success: boolean }[],
  maxSuccesses: number,
): HeldOutSignals {
  const executions = new Uint32Array(s.executions);
  const successes = new Float64Array(s.n);
  for (let i = 0; i < s.n; i++) successes[i] = s.successes[i]!;
  for (const st of steps) {
    const k = s.index.get(st.tool);
    if (k === undefined) continue;
    if (executions[k]! > 0) executions[k]!--;
    if (st.success && successes[k]! > 0) successes[k]!--;
  }
  return { global: globalSignal(pagerank, successes, s.n, maxSuccesses), executions };
}
