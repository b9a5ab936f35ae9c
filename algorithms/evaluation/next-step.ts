/**
 * Next-step evaluation over every prefix of a gold workflow.
 *
 * For a workflow of n steps and each t = 1..n-1 the system sees the gold prefix steps[0..t-1] and
 * ranks candidate next tools. Correct answers at t: without `edges` (a logged, total order) the tool
 * of steps[t]; with `edges` (a partial order whose linear extension is `steps`) the tools of every
 * not-yet-done step j ≥ t whose predecessors are all in the prefix (a step's identity is its index,
 * so a tool used twice is correct again while one of its later occurrences is eligible).
 *   Hit@k(t) = 1 if a correct tool is in the top k of the deduplicated ranking;  RR(t) = 1 / rank.
 * Case totals are sums over prefixes; `summarizeNextStep` micro-averages over all prefixes of all
 * cases (every prefix weighs the same). Source: the next-step task on the converted NESTFUL / Seal-Tools
 * traces (bench/convert/README.md, datasets in bench/data/README.md); MRR as in Manning et al., IR book §8.4.
 */

import { EvaluationError } from "./errors.ts";
import { hitAtK, reciprocalRank } from "./retrieval-metrics.ts";

export const DEFAULTS = { ks: [1, 3, 5] as readonly number[] };

export interface NextStepGold {
  steps: readonly string[];
  /** Partial order `[i, j]`: step i before step j; needs i < j. Absent: `steps` is the only order. */
  edges?: readonly (readonly [number, number])[];
}

export interface NextStepPrefix {
  /** Length of the prefix (1..n-1). */
  t: number;
  prefix: string[];
  /** Distinct correct next tools. */
  correct: string[];
}

/** The n-1 prefixes of a workflow with their correct next tools (none for n ≤ 1). */
export function nextStepPrefixes(gold: NextStepGold): NextStepPrefix[] {
  const n = gold.steps.length;
  const preds: number[][] = Array.from({ length: n }, () => []);
  for (const [i, j] of gold.edges ?? []) {
    if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j >= n || i >= j) {
      throw new EvaluationError("next-step", "bad-edge", `edge [${i}, ${j}] is not a forward edge inside 0..${n - 1}`);
    }
    preds[j]!.push(i);
  }
  const out: NextStepPrefix[] = [];
  for (let t = 1; t < n; t++) {
    let correct: string[];
    if (gold.edges === undefined) correct = [gold.steps[t]!];
    else {
      const set = new Set<string>();
      for (let j = t; j < n; j++) if (preds[j]!.every((i) => i < t)) set.add(gold.steps[j]!);
      correct = [...set];
    }
    out.push({ t, prefix: gold.steps.slice(0, t), correct });
  }
  return out;
}

export interface NextStepCaseScore {
  prefixes: number;
  /** Number of prefixes with a hit, keyed by k. */
  hits: Record<number, number>;
  reciprocalRankSum: number;
}

/**
 * Scores one workflow: `rankings[t-1]` is the system's ranking after the prefix of length t
 * (one ranking per prefix, in order).
 */
export function scoreNextStepCase(
  gold: NextStepGold,
  rankings: readonly (readonly string[])[],
  ks: readonly number[] = DEFAULTS.ks,
): NextStepCaseScore {
  const prefixes = nextStepPrefixes(gold);
  if (rankings.length !== prefixes.length) {
    throw new EvaluationError(
      "next-step",
      "bad-rankings",
      `expected ${prefixes.length} rankings (one per prefix), got ${rankings.length}`,
    );
  }
  const hits: Record<number, number> = {};
  for (const k of ks) hits[k] = 0;
  let rr = 0;
  prefixes.forEach((p, idx) => {
    const ranking = rankings[idx]!;
    for (const k of ks) hits[k]! += hitAtK(ranking, p.correct, k);
    rr += reciprocalRank(ranking, p.correct);
  });
  return { prefixes: prefixes.length, hits, reciprocalRankSum: rr };
}

export interface NextStepSummary {
  prefixes: number;
  /** Mean Hit@k (accuracy@k) over all prefixes; null when there is no prefix. */
  hitAtK: Record<number, number | null>;
  mrr: number | null;
  reason?: "no-prefixes";
}

/** Micro-average of case scores (all cases must use the same ks). */
export function summarizeNextStep(scores: readonly NextStepCaseScore[]): NextStepSummary {
  let prefixes = 0;
  let rr = 0;
  const hits: Record<number, number> = {};
  for (const s of scores) {
    prefixes += s.prefixes;
    rr += s.reciprocalRankSum;
    for (const [k, h] of Object.entries(s.hits)) hits[Number(k)] = (hits[Number(k)] ?? 0) + h;
  }
  const hitAtK: Record<number, number | null> = {};
  for (const [k, h] of Object.entries(hits)) hitAtK[Number(k)] = prefixes === 0 ? null : h / prefixes;
  if (prefixes === 0) return { prefixes, hitAtK, mrr: null, reason: "no-prefixes" };
  return { prefixes, hitAtK, mrr: rr / prefixes };
}
