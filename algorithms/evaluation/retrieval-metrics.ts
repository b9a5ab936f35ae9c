/**
 * Ranked-retrieval metrics with binary relevance, for one query.
 *
 * With the ranking deduplicated (first occurrence kept), rel_i ∈ {0,1} the relevance of rank i, R the
 * relevant set and k ≥ 1:
 *   Recall@k = |R ∩ top-k| / |R|
 *   DCG@k    = Σ_{i=1..k} rel_i / log2(i + 1);  NDCG@k = DCG@k / IDCG@k, IDCG@k = Σ_{i=1..min(|R|,k)} 1/log2(i+1)
 *   AP@k     = (1 / min(|R|, k)) · Σ_{i=1..k} P@i · rel_i,  P@i = |R ∩ top-i| / i
 *              (the min(|R|, k) denominator makes a perfect top-k score 1 even when |R| > k; mAP@k is
 *              the mean of AP@k over queries — the ToolLinkOS paper's mAP@10)
 *   COMP@k   = 1 if R ⊆ top-k else 0 (completeness: every gold tool retrieved)
 *   Hit@k    = 1 if R ∩ top-k ≠ ∅ else 0;  RR = 1 / rank of the first relevant item (0 if none)
 * Sources: Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR techniques" (TOIS 2002) for
 * NDCG; Manning, Raghavan & Schütze, "Introduction to Information Retrieval" §8.4 for AP/MRR; COMP@k
 * as in ToolRet/COLT ("Completeness"). An empty relevant set is misuse (throws `empty-relevant`).
 */

import { EvaluationError } from "./errors.ts";

export const DEFAULTS = { ks: [1, 3, 5, 10] as readonly number[] };

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1)
    throw new EvaluationError("retrieval-metrics", "bad-k", `k must be a positive integer, got ${k}`);
}

function relevantSet<T>(relevant: Iterable<T>): ReadonlySet<T> {
  const set = relevant instanceof Set ? (relevant as ReadonlySet<T>) : new Set(relevant);
  if (set.size === 0) throw new EvaluationError("retrieval-metrics", "empty-relevant", "the relevant set is empty");
  return set;
}

/** First occurrence of each item, in order. */
export function dedupeRanking<T>(ranked: readonly T[]): T[] {
  return [...new Set(ranked)];
}

/** 0/1 relevance of the first k distinct ranked items. */
function gains<T>(ranked: readonly T[], rel: ReadonlySet<T>, k: number): number[] {
  return dedupeRanking(ranked)
    .slice(0, k)
    .map((x) => (rel.has(x) ? 1 : 0));
}

export function recallAtK<T>(ranked: readonly T[], relevant: Iterable<T>, k: number): number {
  checkK(k);
  const rel = relevantSet(relevant);
  return gains(ranked, rel, k).reduce((s: number, g) => s + g, 0) / rel.size;
}

export function ndcgAtK<T>(ranked: readonly T[], relevant: Iterable<T>, k: number): number {
  checkK(k);
  const rel = relevantSet(relevant);
  let dcg = 0;
  gains(ranked, rel, k).forEach((g, i) => {
    dcg += g / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(rel.size, k); i++) idcg += 1 / Math.log2(i + 2);
  return dcg / idcg;
}

export function averagePrecisionAtK<T>(ranked: readonly T[], relevant: Iterable<T>, k: number): number {
  checkK(k);
  const rel = relevantSet(relevant);
  let hits = 0;
  let sum = 0;
  gains(ranked, rel, k).forEach((g, i) => {
    if (g === 1) {
      hits++;
      sum += hits / (i + 1);
    }
  });
  return sum / Math.min(rel.size, k);
}

export function completenessAtK<T>(ranked: readonly T[], relevant: Iterable<T>, k: number): number {
  checkK(k);
  const rel = relevantSet(relevant);
  const top = new Set(dedupeRanking(ranked).slice(0, k));
  for (const r of rel) if (!top.has(r)) return 0;
  return 1;
}

export function hitAtK<T>(ranked: readonly T[], relevant: Iterable<T>, k: number): number {
  checkK(k);
  const rel = relevantSet(relevant);
  return gains(ranked, rel, k).some((g) => g === 1) ? 1 : 0;
}

export function reciprocalRank<T>(ranked: readonly T[], relevant: Iterable<T>): number {
  const rel = relevantSet(relevant);
  const list = dedupeRanking(ranked);
  for (let i = 0; i < list.length; i++) if (rel.has(list[i]!)) return 1 / (i + 1);
  return 0;
}

export interface RetrievalScores {
  /** Keyed by k. */
  recall: Record<number, number>;
  ndcg: Record<number, number>;
  ap: Record<number, number>;
  comp: Record<number, number>;
  hit: Record<number, number>;
  reciprocalRank: number;
}

/** Every metric above for one query at each k (default `DEFAULTS.ks` = 1, 3, 5, 10). */
export function retrievalScores<T>(
  ranked: readonly T[],
  relevant: Iterable<T>,
  ks: readonly number[] = DEFAULTS.ks,
): RetrievalScores {
  const rel = relevantSet(relevant);
  const out: RetrievalScores = {
    recall: {},
    ndcg: {},
    ap: {},
    comp: {},
    hit: {},
    reciprocalRank: reciprocalRank(ranked, rel),
  };
  for (const k of ks) {
    out.recall[k] = recallAtK(ranked, rel, k);
    out.ndcg[k] = ndcgAtK(ranked, rel, k);
    out.ap[k] = averagePrecisionAtK(ranked, rel, k);
    out.comp[k] = completenessAtK(ranked, rel, k);
    out.hit[k] = hitAtK(ranked, rel, k);
  }
  return out;
}
