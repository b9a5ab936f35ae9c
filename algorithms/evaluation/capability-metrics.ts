/**
 * Capability matching (intent → one named capability): accuracy@1, reciprocal rank and Hit@k of the
 * gold capability id in the system's ranking (deduplicated, first occurrence kept).
 *   acc@1 = [ranked[0] = gold];  RR = 1 / rank(gold) (0 if absent);  Hit@k = [rank(gold) ≤ k]
 * Means over queries give accuracy@1, MRR and Recall@k (one relevant item, so Recall@k = Hit@k).
 * Source: Manning et al., IR book §8.4 (MRR); the capability-match task on the converted ToolLinkOS data
 * (bench/convert/README.md).
 */

import { hitAtK, reciprocalRank } from "./retrieval-metrics.ts";

export const DEFAULTS = { ks: [1, 3, 5, 10] as readonly number[] };

export interface CapabilityScore {
  accuracyAt1: number;
  reciprocalRank: number;
  hit: Record<number, number>;
}

export function scoreCapability(
  ranked: readonly string[],
  gold: string,
  ks: readonly number[] = DEFAULTS.ks,
): CapabilityScore {
  const rel = [gold];
  const hit: Record<number, number> = {};
  for (const k of ks) hit[k] = hitAtK(ranked, rel, k);
  return { accuracyAt1: hitAtK(ranked, rel, 1), reciprocalRank: reciprocalRank(ranked, rel), hit };
}

export interface CapabilitySummary {
  queries: number;
  accuracyAt1: number | null;
  mrr: number | null;
  hitAtK: Record<number, number | null>;
  reason?: "no-queries";
}

/** Means over queries (all scores must use the same ks). */
export function summarizeCapability(scores: readonly CapabilityScore[]): CapabilitySummary {
  const n = scores.length;
  const hitAtK: Record<number, number | null> = {};
  const sums: Record<number, number> = {};
  let acc = 0;
  let rr = 0;
  for (const s of scores) {
    acc += s.accuracyAt1;
    rr += s.reciprocalRank;
    for (const [k, h] of Object.entries(s.hit)) sums[Number(k)] = (sums[Number(k)] ?? 0) + h;
  }
  for (const [k, h] of Object.entries(sums)) hitAtK[Number(k)] = n === 0 ? null : h / n;
  if (n === 0) return { queries: 0, accuracyAt1: null, mrr: null, hitAtK, reason: "no-queries" };
  return { queries: n, accuracyAt1: acc / n, mrr: rr / n, hitAtK };
}
