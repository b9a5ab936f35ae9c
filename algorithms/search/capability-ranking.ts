/**
 * Capability match ranking (capability match with the pattern triggers): one ordered list in which
 * reliability multiplies whatever evidence selected a capability.
 *
 *   evidence = max(semantic, pattern confidence when the pattern activated)
 *   score    = clamp(evidence × reliability, 0, 1)            (capability-match.ts: 0.1 / 1 / 1.2)
 *   order    = score desc, unclamped product desc, tie-breaker desc (hypergraph PageRank), id asc
 *   trigger  = pickTrigger over the activated patterns of capabilities that are not disqualified
 *              (reliability < 1: "it must not be proposed"); when it resolves an ambiguity (two or more
 *              contenders inside the 0.15 band), the winner takes the best place any contender holds and
 *              the others keep their relative order behind it.
 *
 * Reliability applies to pattern evidence as to semantic evidence, so a failing capability cannot come back
 * through its trigger; priority decides only inside the band (a total order — no pairwise comparator).
 *
 * Source: docs/decisions/capability-scoring.md (score = evidence × reliability; the trigger constants).
 */
import { type CapabilityMatchOptions, capabilityMatch } from "./capability-match.ts";
import { pickTrigger, type TriggerDecision, type TriggerOptions, type TriggerScore } from "./pattern-triggers.ts";

export interface RankableCapability {
  readonly id: string;
  /** Semantic evidence in [0, 1] (fused text match, lifted by memory and tool evidence). */
  readonly semantic: number;
  /** Historical success rate; undefined = no history. */
  readonly successRate?: number | undefined;
  readonly executions?: number | undefined;
  /** The capability's trigger score, when it declares patterns or keywords. */
  readonly trigger?: TriggerScore | undefined;
  /** Higher ranks first on equal scores (hypergraph PageRank). Default 0. */
  readonly tieBreaker?: number | undefined;
}

export interface RankedCapability {
  /** Position of the capability in the input. */
  readonly index: number;
  readonly id: string;
  /** max(semantic, activated pattern confidence). */
  readonly evidence: number;
  readonly evidenceSource: "semantic" | "pattern";
  readonly reliability: number;
  /** evidence × reliability before clamping. */
  readonly raw: number;
  /** In [0, 1]. */
  readonly score: number;
}

export interface CapabilityRanking {
  readonly ranked: readonly RankedCapability[];
  /** The trigger decision over the capabilities that were not disqualified. */
  readonly trigger: TriggerDecision;
}

export function rankCapabilityMatches(
  candidates: readonly RankableCapability[],
  options: CapabilityMatchOptions & Pick<TriggerOptions, "ambiguityBand"> = {},
): CapabilityRanking {
  const rows = candidates.map((c, index) => {
    const pattern = c.trigger?.activated ? c.trigger.confidence : 0;
    const evidence = Math.max(c.semantic, pattern);
    const m = capabilityMatch(
      { id: index, semantic: evidence, successRate: c.successRate, executions: c.executions ?? 0 },
      options,
    );
    const row: RankedCapability = {
      index,
      id: c.id,
      evidence,
      evidenceSource: pattern > c.semantic ? "pattern" : "semantic",
      reliability: m.reliability,
      raw: m.raw,
      score: m.score,
    };
    return { row, tie: c.tieBreaker ?? 0 };
  });
  const reliability = rows.map((r) => r.row.reliability);
  rows.sort(
    (a, b) =>
      b.row.score - a.row.score ||
      b.row.raw - a.row.raw ||
      b.tie - a.tie ||
      (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0),
  );
  const ranked = rows.map((r) => r.row);
  const eligible = candidates.flatMap((c, i) => (c.trigger && reliability[i]! >= 1 ? [c.trigger] : []));
  const trigger = pickTrigger(eligible, options);
  if (trigger.winner === null || trigger.contenders.length < 2) return { ranked, trigger };
  const inBand = new Set(trigger.contenders.map((c) => c.id));
  const first = ranked.findIndex((r) => inBand.has(r.id));
  const from = ranked.findIndex((r) => r.id === trigger.winner);
  if (first >= 0 && from > first) {
    const [w] = ranked.splice(from, 1);
    ranked.splice(first, 0, w!);
  }
  return { ranked, trigger };
}
