/**
 * The hybrid-search scoring loop (docs/decisions/hybrid-alpha.md), per fused candidate u:
 *
 *   semantic'(u) = 1 − (1 − w_c·semantic(u))(1 − τ·μ·vote(u))      content ⊕ intent memory (channel-fusion.ts;
 *                                                                  w_c = 1: the plain memory lift)
 *   graph(u)     = w_g · AA(u, context)   (adamic-adar.ts: 1 − exp(−AA), max over the context tools)
 *                = τ · w_g · global(u)    without context (global-signal.ts)
 *   τ            = the history guard's trust in [0, 1] (history-guard.ts; 1 when not given)
 *   α(u)         = fixed α (ablation) | passive: localAlpha(heat) | active: α_est = 1 − 0.5·coherence(u)
 *                  (coherence.ts), shrunk toward 1 by coldStartAlpha below 5 executions
 *   final(u)     = hybridScore(semantic', graph, α)                 (hybrid-score.ts, "lift")
 *
 * Ranking: final desc, then graph desc, semantic desc, index asc — a total order, so the result does not
 * depend on candidate order; `top` returns exactly the first `top` of the full ranking.
 * Description anchor ("hybrid" only): the candidate whose own description is the best match both lexically
 * and semantically — the strictly highest raw BM25 and the strictly highest cosine among the candidates, both
 * > 0 — is moved up to rank DEFAULTS.anchorRank (3) when history (memory, graph) ranked it lower; it keeps its
 * own scores and is marked `anchored` (so the list is ordered by final except at that one place). Descriptions
 * always count: a tool nobody has used yet can still be found (docs/decisions/search-weight-fitting.md).
 * Without such a candidate, the never-run anchor: among the first 3 candidates by content score (content desc,
 * index asc), the best that has no executions at all, content > 0 and raw BM25 > 0 — one of the descriptions'
 * first answers, about which the history has no evidence for or against (memory votes and usage can only name
 * tools that ran), so the history may not bury it below rank 3: a tool imported after the traffic it would have
 * served (docs/decisions/history-guard.md). It must share a word with the query (raw BM25 > 0): a content score
 * from the embedding alone is too weak a claim to displace the history's answer. On a repeat of a past request
 * (`repeatRecordedAt` given: the latest recording of the past requests the query repeats) a tool that was in the
 * catalog by then (`addedAt` ≤ it) is not anchored: those runs could have used it and did not, evidence about this
 * very request. `anchorKind` says which.
 * Channel ablations rank by one channel instead (semantic', BM25 normalised, or clamped cosine).
 *
 * Invariants: every score ∈ [0,1]; final ≥ semantic' in "hybrid"; excluded indices never appear; the
 * description anchor, when there is one, is within the first 3 of the "hybrid" ranking whatever the memory,
 * graph and weights; with w_c = 0 and w_g = 0 the order is the memory vote's (vote desc, index asc) up to the
 * anchor, with μ = 0 and w_g = 0 the content score's.
 * Pure: all state (candidates, context preparation, global signal, coherence, executions) is passed in.
 */
import { type AdamicAdarContext, adamicAdarScore } from "./adamic-adar.ts";
import { DEFAULTS as ALPHA_DEFAULTS, coldStartAlpha, type HeatField, localAlpha } from "./adaptive-alpha.ts";
import { DEFAULTS as CHANNEL_DEFAULTS, fuseChannels } from "./channel-fusion.ts";
import { coherenceAlpha } from "./coherence.ts";
import type { FusedHit } from "./fusion.ts";
import { hybridScore } from "./hybrid-score.ts";
import { SearchError } from "./search-error.ts";

export type SearchChannel = "hybrid" | "semantic" | "bm25" | "embedding";

export const DEFAULTS = {
  /** Lowest rank (1-based) the description anchor may hold in the "hybrid" ranking. */
  anchorRank: 3,
} as const;

export interface HybridHit {
  index: number;
  final: number;
  /** Content and memory combined (channel-fusion.ts). */
  semantic: number;
  /** The content channel's fused text score (before its weight w_c). */
  content: number;
  /** The content weight w_c applied. */
  contentWeight: number;
  cosine: number;
  bm25: number;
  bm25Norm: number;
  memory: number;
  graph: number;
  graphSource: "adamic-adar" | "global" | "none";
  commonNeighbours: { via: number; contribution: number }[];
  alpha: number;
  alphaRegime: string;
  /** The history guard's trust τ applied to the memory weight and the global graph term (history-guard.ts). */
  historyTrust: number;
  /** True when the description anchor was moved up to DEFAULTS.anchorRank (see the header). */
  anchored?: boolean;
  /** Why it is the anchor: the best lexical and semantic match, or one of the first 3 content matches that never ran. */
  anchorKind?: "best-match" | "unused-best-content";
}

export interface HybridRankInput {
  candidates: readonly FusedHit[];
  /** Executions per tool index (cold-start of α, passive α). */
  executions: ArrayLike<number>;
  exclude?: (i: number) => boolean;
  memory?: ReadonlyMap<number, number>;
  memoryWeight: number;
  /** Weight w_c of the content channel in [0, 1] (channel-fusion.ts). Default 1: the plain memory lift. */
  contentWeight?: number;
  /** Prepared Adamic–Adar against the context (absent: no context or no graph). */
  adamicAdar?: AdamicAdarContext;
  /** No-context graph signal per tool index (absent: no graph term). */
  global?: ArrayLike<number>;
  graphWeight: number;
  /** Trust τ ∈ [0, 1] in the history channels (history-guard.ts): scales μ and the global graph term. Default 1. */
  historyTrust?: number;
  /**
   * The latest recording time (epoch ms) of the past requests the query repeats (best similarity ≥ the history
   * guard's high); absent when it repeats none. With `addedAt`, limits the never-run anchor (see the header).
   */
  repeatRecordedAt?: number | undefined;
  /** When each tool index entered the catalog (epoch ms); absent: every tool counts as there from the start. */
  addedAt?: ArrayLike<number> | undefined;
  channel: SearchChannel;
  fixedAlpha?: number;
  /** Passive α: heat diffused from the context. */
  heat?: HeatField;
  /** Active α: coherence per tool index. */
  coherence?: ArrayLike<number>;
  top?: number;
}

/** The commonNeighbours of every hit without an Adamic–Adar term (shared, never written to). */
const NO_NEIGHBOURS = Object.freeze([]) as unknown as HybridHit["commonNeighbours"];

export function rankHybridCandidates(input: HybridRankInput): HybridHit[] {
  const { adamicAdar: aa, global, heat, coherence, memory, exclude, channel } = input;
  const gw = input.graphWeight;
  const trust = input.historyTrust ?? 1;
  if (!(trust >= 0 && trust <= 1))
    throw new SearchError("hybrid-rank", "bad-weight", `historyTrust must be in [0, 1], got ${trust}`);
  const mu = input.memoryWeight;
  const wc = input.contentWeight ?? CHANNEL_DEFAULTS.contentWeight;
  if (!(wc >= 0 && wc <= 1))
    throw new SearchError("hybrid-rank", "bad-weight", `contentWeight must be in [0, 1], got ${wc}`);
  if (!(mu >= 0 && mu <= 1))
    throw new SearchError("hybrid-rank", "bad-weight", `memoryWeight must be in [0, 1], got ${mu}`);
  const hits: HybridHit[] = [];
  for (const f of input.candidates) {
    const i = f.id;
    if (exclude?.(i)) continue;
    const vote = memory?.get(i) ?? 0;
    const semantic = fuseChannels(f.semantic, wc, vote, trust * mu);
    let graph = 0;
    let graphSource: HybridHit["graphSource"] = "none";
    let commonNeighbours: HybridHit["commonNeighbours"] = NO_NEIGHBOURS;
    if (aa) {
      const g = adamicAdarScore(aa, i);
      graph = g.score;
      graphSource = "adamic-adar";
      const best = g.pairs.reduce((b, p) => (p.score > (b?.score ?? -1) ? p : b), g.pairs[0]);
      commonNeighbours = (best?.contributions ?? [])
        .slice(0, 5)
        .map((c) => ({ via: c.via, contribution: c.contribution }));
    } else if (global) {
      graph = trust * global[i]!;
      graphSource = "global";
    }
    graph *= gw;
    let alpha = 1;
    let alphaRegime = "fixed";
    if (input.fixedAlpha !== undefined) alpha = input.fixedAlpha;
    else if (heat) {
      const r = localAlpha({ mode: "passive", node: i, observations: input.executions[i]!, heat });
      alpha = r.alpha;
      alphaRegime = r.regime;
    } else if (coherence) {
      const estimate = coherenceAlpha(coherence[i]!);
      const n = input.executions[i]!;
      if (n < ALPHA_DEFAULTS.coldStartObservations) {
        alpha = coldStartAlpha(n, estimate);
        alphaRegime = "cold-start";
      } else {
        alpha = estimate;
        alphaRegime = "active-coherence";
      }
    }
    const final =
      channel === "hybrid"
        ? hybridScore(semantic, graph, alpha)
        : channel === "semantic"
          ? semantic
          : channel === "bm25"
            ? f.bm25Norm
            : Math.max(0, Math.min(1, f.cosine));
    hits.push({
      index: i,
      final,
      semantic,
      content: f.semantic,
      contentWeight: wc,
      cosine: f.cosine,
      bm25: f.bm25,
      bm25Norm: f.bm25Norm,
      memory: vote,
      graph,
      graphSource,
      commonNeighbours,
      alpha,
      alphaRegime,
      historyTrust: trust,
    });
  }
  const top = input.top;
  const anchor = channel === "hybrid" ? descriptionAnchor(hits, input) : undefined;
  if (top !== undefined && top < hits.length) {
    const k = Math.max(0, top);
    if (anchor === undefined) return bestHits(hits, k);
    return withAnchor(bestHits(hits, Math.max(k, DEFAULTS.anchorRank)), anchor).slice(0, k);
  }
  hits.sort(compareHits);
  return anchor === undefined ? hits : withAnchor(hits, anchor);
}

/**
 * The hit with the strictly highest raw BM25 and the strictly highest cosine, both > 0; else the best never-run
 * hit among the first DEFAULTS.anchorRank by content (content > 0, raw BM25 > 0, and on a repeat added after
 * it); else undefined.
 */
function descriptionAnchor(hits: readonly HybridHit[], input: HybridRankInput): HybridHit | undefined {
  const both = bestOfBoth(hits);
  if (both) return { ...both, anchorKind: "best-match" };
  const { executions, repeatRecordedAt, addedAt } = input;
  // The first anchorRank hits by content (content desc, index asc), kept sorted by insertion.
  const top: HybridHit[] = [];
  for (const h of hits) {
    let at = top.length;
    while (at > 0 && byContent(h, top[at - 1]!) < 0) at--;
    if (at < DEFAULTS.anchorRank) {
      top.splice(at, 0, h);
      if (top.length > DEFAULTS.anchorRank) top.pop();
    }
  }
  for (const h of top) {
    if (!(h.content > 0)) break;
    if (executions[h.index]! > 0 || !(h.bm25 > 0)) continue;
    if (repeatRecordedAt !== undefined && (addedAt?.[h.index] ?? Number.NEGATIVE_INFINITY) <= repeatRecordedAt)
      continue;
    return { ...h, anchorKind: "unused-best-content" };
  }
  return undefined;
}

function byContent(a: HybridHit, b: HybridHit): number {
  return b.content - a.content || a.index - b.index;
}

function bestOfBoth(hits: readonly HybridHit[]): HybridHit | undefined {
  let bestBm: HybridHit | undefined;
  let bestCos: HybridHit | undefined;
  let bmTie = false;
  let cosTie = false;
  for (const h of hits) {
    if (!bestBm || h.bm25 > bestBm.bm25) {
      bestBm = h;
      bmTie = false;
    } else if (h.bm25 === bestBm.bm25) bmTie = true;
    if (!bestCos || h.cosine > bestCos.cosine) {
      bestCos = h;
      cosTie = false;
    } else if (h.cosine === bestCos.cosine) cosTie = true;
  }
  if (!bestBm || bestBm !== bestCos || bmTie || cosTie || !(bestBm.bm25 > 0 && bestBm.cosine > 0)) return undefined;
  return bestBm;
}

/** `ranked` (a prefix of the ranking) with the anchor at rank anchorRank at the latest (it may be absent from the prefix). */
function withAnchor(ranked: HybridHit[], anchor: HybridHit): HybridHit[] {
  const at = ranked.findIndex((h) => h.index === anchor.index);
  const slot = DEFAULTS.anchorRank - 1;
  if (at >= 0 && at <= slot) return ranked;
  if (at > 0) ranked.splice(at, 1);
  else if (ranked.length <= slot) return ranked.concat(anchor);
  ranked.splice(slot, 0, { ...anchor, anchored: true });
  return ranked;
}

/** The ranking: final descending, then graph descending, semantic descending, index ascending (a total order). */
export function compareHits(x: HybridHit, y: HybridHit): number {
  return y.final - x.final || y.graph - x.graph || y.semantic - x.semantic || x.index - y.index;
}

/**
 * The first k hits of `hits.sort(compareHits)`, in that order, by insertion into a sorted buffer of k: most
 * candidates fall below the k-th best after one comparison. compareHits is a total order (indices are
 * distinct), so the result does not depend on the input order.
 */
function bestHits(hits: readonly HybridHit[], k: number): HybridHit[] {
  const best: HybridHit[] = [];
  if (k === 0) return best;
  for (const h of hits) {
    if (best.length === k) {
      if (compareHits(h, best[k - 1]!) >= 0) continue;
      best.pop();
    }
    let j = best.length;
    best.push(h);
    while (j > 0 && compareHits(h, best[j - 1]!) < 0) {
      best[j] = best[j - 1]!;
      j--;
    }
    best[j] = h;
  }
  return best;
}
