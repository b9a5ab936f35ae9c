/**
 * The search job end to end: query embedding (cached), the routing decision (flat, or two-hop through the
 * best namespaces: namespace-index.ts), candidates and hybrid scores (search.ts), safety and exclusion
 * filters, the manual override (`only`), and the gate on every hit. While the catalog's embeddings are
 * computed the engine may serve a lexical index (engine.servingSearchIndex): the answer then ranks by BM25 and
 * the graph only (no query embedding, flat routing), says so (`degraded: "embedding"`, `channels`), and the
 * gate accepts nothing outright (algorithms/thresholds/channel-cap.ts).
 */

import { buildMentionIndex, findMentions, type MentionIndex } from "../../algorithms/search/explicit-mentions.ts";
import { DEFAULTS as GUARD_DEFAULTS, historyTrust } from "../../algorithms/search/history-guard.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { capForChannels, type LiveChannels } from "../../algorithms/thresholds/channel-cap.ts";
import { capForSafety } from "../../algorithms/thresholds/safety-cap.ts";
import type { SearchRequest as SearchRequestFields } from "../contract/requests.ts";
import { searchRequest } from "../contract/requests.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { type GatedItem, gatedSummary } from "../gate/gatekeeper.ts";
import { derivedKey } from "../view/derived.ts";
import { filtersAnything, safetyFilter } from "../view/filters.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import {
  chooseRouting,
  explainRoute,
  namespaceIndexFor,
  type RoutedNamespace,
  type RoutingChoice,
  recordRouteTrial,
  routeQuery,
  routeTrialCount,
} from "../view/namespace-index.ts";
import type { ProjectView } from "../view/project-view.ts";
import { resolveTools } from "../view/resolve.ts";
import { searchWeightsFor } from "./fit-search-weights.ts";
import { defineJob } from "./job.ts";
import { explainHit, type SearchHit, searchCandidates } from "./search-scoring.ts";
import { exclusionOf, maskOptions, type ToolMask, unmaskedIndices } from "./tool-mask.ts";

/** A search request and its library-only mask (tool-mask.ts). */
type SearchRequest = SearchRequestFields & { deny?: ToolMask | undefined };

const MENTION_INDEX = derivedKey<MentionIndex>("mention index", "catalog");
function mentionIndex(s: GraphSnapshot): MentionIndex {
  return s.derived(MENTION_INDEX, () =>
    buildMentionIndex(s.tools.map((t, index) => ({ index, id: t.id, name: t.name }))),
  );
}

export interface SearchResultItem {
  tool: string;
  name: string;
  description: string;
  /** The MCP server (or namespace) the tool belongs to, or null. */
  server: string | null;
  /** The tool's input JSON Schema (so a caller can call it without another round trip), or null. */
  inputSchema: Record<string, unknown> | null;
  /** The tool's safety tags (destructive, network, suspicious, …): a suspicious tool is never accepted outright. */
  safetyTags: string[];
  score: number;
  gate: GatedItem & { reason?: string };
  reason?: string | undefined;
  explanation: string;
  breakdown: {
    semantic: number;
    cosine: number;
    bm25: number;
    bm25Norm: number;
    memory: number;
    graph: number;
    graphSource: SearchHit["graphSource"];
    commonNeighbours: { tool: string; contribution: number }[];
    alpha: number;
    alphaRegime: string;
    executions: number;
  };
}

/** How the candidates were found: every tool (flat) or the tools of the best namespaces (two-hop). */
export interface SearchRouting {
  requested: "flat" | "two-hop" | "auto";
  mode: "flat" | "two-hop";
  /** Why this mode (auto: the catalog's size and namespace count). */
  reason: string;
  /** "routed via namespaces a (0.71), b (0.52), c (0.50) — 3 of 400 namespaces, 212 candidate tools (…)". */
  explanation: string;
  namespaces?: RoutedNamespace[];
  totalNamespaces?: number;
  candidates?: number;
}

export async function runSearch(view: ProjectView, req: SearchRequest, override: { contentWeight?: number } = {}) {
  return (await searchWithRecall(view, req, override)).answer;
}

/**
 * The search job's answer and the intent-memory recall it used (the plan job reuses it rather than recalling again).
 * `override.contentWeight` replaces the project's fitted content weight (the plan keeps 1: its "within 5 % of
 * the top score" cut assumes the plain memory lift).
 */
export async function searchWithRecall(
  view: ProjectView,
  req: SearchRequest,
  override: { contentWeight?: number } = {},
) {
  const ranking = await rankSearch(view, req, override);
  return { answer: presentSearch(view, req, ranking), memory: ranking.memory };
}

/**
 * The search job without its presentation: recall, routing, scoring, the forced tools and the ranked list cut
 * to the limit, and the gate prepared for them. `searchWithRecall` explains every item; the plan job reads only
 * each item's tool, score and gate decision (rankedSearchItems), so it skips the explanations.
 */
export async function rankSearch(view: ProjectView, req: SearchRequest, override: { contentWeight?: number } = {}) {
  const t0 = performance.now();
  const s = view.snapshot;
  if (s.n === 0) throw await view.emptyProjectError();
  const [a, idx] = [view.analytics(), await view.servingSearchIndex()];
  const channels: LiveChannels = { lexical: true, embedding: idx.degraded !== "embedding", graph: true };
  const context = resolveTools(s, req.context, "context");
  const only = resolveTools(s, req.only, "only");
  const tEmbed = performance.now();
  // Without the embedding channel the query is not embedded (the model may still be busy with the catalog).
  const [qv] = channels.embedding ? await view.embedQueries([req.intent]) : [new Float32Array(0)];
  const embedMs = performance.now() - tEmbed;
  const excluded = exclusionOf(req);
  const unsafe = safetyFilter(s, req.excludeSafetyTags);
  const tokens = tokenize(req.intent);
  const memory = await view.recall(req.intent, qv!, { user: req.user, tokens });
  const limit = Math.min(req.limit ?? 10, req.maxTools ?? Number.POSITIVE_INFINITY);
  // Manual override (`only`) first, then tools the request names explicitly (id, code-like name or a close
  // spelling of one), then the ranking. Tools excluded by safety tag or by `exclude` never appear, even named.
  const mentions = findMentions(req.intent, mentionIndex(s)).filter(
    (m) => !unsafe(m.index) && !excluded.has(s.tools[m.index]!.id),
  );
  const forcedReason = new Map<number, string>();
  for (const i of only) if (!unsafe(i)) forcedReason.set(i, "manual override (only)");
  for (const m of mentions)
    if (!forcedReason.has(m.index)) forcedReason.set(m.index, `named in the request ("${m.word}", ${m.match})`);
  const tSearch = performance.now();
  const fitted = await searchWeightsFor(view);
  const withOverride =
    override.contentWeight === undefined ? fitted : { ...fitted, contentWeight: override.contentWeight };
  // The semantic side is BM25 alone while the cosine channel is not live (β = 0).
  const weights = channels.embedding ? withOverride : { ...withOverride, beta: 0 };
  const choice: RoutingChoice = channels.embedding
    ? chooseRouting(req.routing ?? "auto", s, idx)
    : {
        requested: req.routing ?? "auto",
        mode: "flat",
        reason: "flat: the namespace routes need the tools' embeddings, still being computed",
      };
  const memoryVotes = weights.memoryWeight > 0 ? memory.toolVotes : undefined;
  const routeNow = () =>
    routeQuery(s, namespaceIndexFor(s, idx), req.intent, qv!, memoryVotes, {
      context,
      beta: weights.beta,
      memoryWeight: weights.memoryWeight,
    });
  const route = choice.mode === "two-hop" ? routeNow() : undefined;
  const routing: SearchRouting = {
    requested: choice.requested,
    mode: choice.mode,
    reason: choice.reason,
    explanation: route ? explainRoute(route) : "searched every tool (flat)",
    ...(route
      ? { namespaces: route.namespaces, totalNamespaces: route.totalNamespaces, candidates: route.restrictTo.length }
      : {}),
  };
  const nsIndex = route ? namespaceIndexFor(s, idx) : undefined;
  const routedNames = new Set(route?.namespaces.map((n) => n.namespace));
  const routeNote = (i: number) => {
    if (!nsIndex) return "";
    const name = nsIndex.groups.names[nsIndex.groups.toolNamespace[i]!]!;
    return routedNames.has(name)
      ? `; found via namespace ${name} (two-hop routing)`
      : `; namespace ${name} not routed: candidate from the intent memory or the context's graph neighbours`;
  };
  // A mask (a policy's denied tools, however many) restricts both channels to the tools it allows, so their
  // top-N are drawn from what may be answered instead of being emptied by the exclusion afterwards.
  const candidates = (route: Int32Array | undefined) => {
    const restrictTo = unmaskedIndices(s.tools, req.deny, route);
    return searchCandidates(s, a, idx, req.intent, qv!, {
      ...(restrictTo ? { restrictTo } : {}),
      context,
      // No predicate when nothing is excluded (it would run on every candidate).
      ...(excluded.size > 0 || filtersAnything(s, req.excludeSafetyTags)
        ? { exclude: (i: number) => excluded.has(s.tools[i]!.id) || unsafe(i) }
        : {}),
      // Without forced tools only the first `limit` hits are shown: the rest need no sort.
      ...(forcedReason.size === 0 && Number.isFinite(limit) ? { top: limit } : {}),
      memory: memoryVotes,
      tokens,
      beta: weights.beta,
      memoryWeight: weights.memoryWeight,
      contentWeight: weights.contentWeight,
      graphWeight: weights.graphWeight,
      historySimilarity: memory.similarity,
      historyGuard: weights.historyGuard,
      repeatRecordedAt: memory.repeatRecordedAt,
      alphaMode: req.mode,
    });
  };
  let hits: SearchHit[];
  if (choice.trial) {
    // auto, still measuring (namespace-index.ts): both routes, alternating which runs first, flat's answer kept.
    const timeFlat = () => {
      const t = performance.now();
      const h = candidates(undefined);
      return { h, ms: performance.now() - t };
    };
    const timeTwoHop = () => {
      const t = performance.now();
      const h = candidates(routeNow().restrictTo);
      return { h, ms: performance.now() - t };
    };
    let flat: ReturnType<typeof timeFlat>;
    let twoHop: ReturnType<typeof timeTwoHop>;
    if (routeTrialCount(idx) % 2 === 0) {
      flat = timeFlat();
      twoHop = timeTwoHop();
    } else {
      twoHop = timeTwoHop();
      flat = timeFlat();
    }
    const flatTop = new Set(flat.h.slice(0, 10).map((h) => h.index));
    const overlap =
      flatTop.size === 0 ? 1 : twoHop.h.slice(0, 10).filter((h) => flatTop.has(h.index)).length / flatTop.size;
    const decided = recordRouteTrial(s, idx, { flatMs: flat.ms, twoHopMs: twoHop.ms, overlap });
    if (decided) routing.reason += `; decided: ${decided.reason}`;
    hits = flat.h;
  } else {
    hits = candidates(route?.restrictTo);
  }
  const searchMs = performance.now() - tSearch;
  const ranked: { hit: SearchHit | undefined; index: number; forced: boolean }[] = [];
  for (const i of forcedReason.keys()) {
    if (ranked.length >= limit) break;
    ranked.push({ hit: hits.find((h) => h.index === i), index: i, forced: true });
  }
  for (const h of hits) {
    if (ranked.length >= limit) break;
    if (!forcedReason.has(h.index)) ranked.push({ hit: h, index: h.index, forced: false });
  }
  const prepared = await view.gate.prepare({
    project: view.project,
    user: req.user,
    text: req.intent,
    workflow:
      context.length > 0
        ? { steps: context.map((i) => ({ tool: s.tools[i]!.id, success: true })), replans: 0 }
        : undefined,
    environment: req.environment,
    urgency: req.urgency,
    requestWorkflow: req.workflow,
    similarPastSuccess: memory.similarSuccess,
  });
  const fallbacks = await view.fallbacks();
  return {
    t0,
    s,
    a,
    memory,
    weights,
    routing,
    ranked,
    forcedReason,
    routeNote,
    prepared,
    fallbacks,
    tokens,
    embedMs,
    searchMs,
    channels,
  };
}

export type SearchRanking = Awaited<ReturnType<typeof rankSearch>>;

/** Each ranked item's tool, score and gate decision, as searchWithRecall's answer lists them (same order, same values). */
export function rankedSearchItems(
  view: ProjectView,
  r: SearchRanking,
): { tool: string; score: number; decision: string }[] {
  return r.ranked.map(({ hit, index, forced }) => {
    const score = forced ? 1 : hit!.final;
    const tool = r.s.tools[index]!;
    return {
      tool: tool.id,
      score,
      decision: capForChannels(
        capForSafety(view.gate.gateItem("search", score, r.prepared), tool.safetyTags),
        r.channels,
      ).decision,
    };
  });
}

/** The search answer of a ranking: every item explained and gated, the summary, the optional gate report. */
function presentSearch(view: ProjectView, req: SearchRequest, r: SearchRanking) {
  const {
    t0,
    s,
    a,
    memory,
    weights,
    routing,
    ranked,
    forcedReason,
    routeNote,
    prepared,
    fallbacks,
    embedMs,
    searchMs,
    channels,
  } = r;
  const guard = historyGuard(memory.similarity, weights.historyGuard);
  const items: SearchResultItem[] = ranked.map(({ hit, index, forced }) => {
    const tool = s.tools[index]!;
    const score = forced ? 1 : hit!.final;
    const h = hit;
    return {
      tool: tool.id,
      name: tool.name,
      description: tool.description,
      server: tool.server,
      inputSchema: tool.inputSchema,
      safetyTags: tool.safetyTags,
      score,
      gate: capForChannels(capForSafety(view.gate.gateItem("search", score, prepared), tool.safetyTags), channels),
      ...(forced ? { reason: forcedReason.get(index) } : {}),
      explanation: forced
        ? `${tool.id}: ranked first, ${forcedReason.get(index)}`
        : explainHit(s, h!) +
          memoryNote(memory.explanations.get(index)) +
          guardNote(guard, h!) +
          routeNote(index) +
          (channels.embedding ? "" : `; ${LEXICAL_NOTE}`),
      breakdown: {
        semantic: h?.semantic ?? 0,
        cosine: h?.cosine ?? 0,
        bm25: h?.bm25 ?? 0,
        bm25Norm: h?.bm25Norm ?? 0,
        memory: h?.memory ?? 0,
        graph: h?.graph ?? 0,
        graphSource: h?.graphSource ?? "none",
        commonNeighbours: (h?.commonNeighbours ?? []).map((c) => ({
          tool: s.tools[c.via]!.id,
          contribution: c.contribution,
        })),
        alpha: h?.alpha ?? 1,
        alphaRegime: h?.alphaRegime ?? "none",
        executions: s.executions[index]!,
      },
    };
  });
  const top = items[0];
  let report: unknown;
  if (req.explain && top) {
    const d = view.gate.gate("search", top.score, prepared, fallbacks);
    report = view.gate.report(
      { id: top.tool, label: top.name },
      d,
      prepared,
      { semantic: top.breakdown.semantic, graph: top.breakdown.graph, memory: top.breakdown.memory },
      items
        .slice(1, 4)
        .map((x) => ({ id: x.tool, score: x.score, reason: `scored ${x.score.toFixed(3)} < ${top.score.toFixed(3)}` })),
      [],
      { alpha: top.breakdown.alpha },
    );
  }
  const answer = {
    project: view.project,
    intent: req.intent,
    results: items,
    ...gatedSummary(items, (i) => i.tool, prepared, fallbacks, { empty: "no candidate matched the intent" }),
    memory: { neighbours: memory.neighbours, reason: memory.reason, guard },
    routing,
    weights,
    channels,
    ...(channels.embedding ? {} : { degraded: "embedding" as const }),
    analytics: { fresh: a.fresh, ageMs: a.ageMs },
    timings: { embedMs, searchMs, totalMs: performance.now() - t0 },
    ...(report ? { report } : {}),
  };
  return answer;
}

const LEXICAL_NOTE = "lexical and graph channels only: the tools' embeddings are still being computed";

function memoryNote(e: string | undefined): string {
  return e ? `; ${e}` : "";
}

/** The history guard of a query (algorithms/search/history-guard.ts): its input, its trust and why. */
export interface HistoryGuard {
  /** The query's best similarity to a past request; null when the project has none. */
  similarity: number | null;
  /** The weight of the intent memory and the no-context graph signal, in [0, 1]. */
  trust: number;
  /** The guard's strength γ (the project's search weights): trust ≥ 1 − γ. */
  strength: number;
  low: number;
  high: number;
  reason: string;
}

export function historyGuard(similarity: number | undefined, strength: number): HistoryGuard {
  const trust = historyTrust(similarity, { strength });
  const { low, high } = GUARD_DEFAULTS;
  const reason =
    similarity === undefined
      ? "no past requests: nothing learned to guard"
      : strength === 0
        ? "history guard off (strength 0, fitted on this project's unseen requests): memory and usage count in full"
        : `history guard ${trust.toFixed(2)}: the best similarity to a past request is ${similarity.toFixed(2)} (memory and usage count in full from ${high}, ${strength === 1 ? "not at all" : `× ${(1 - strength).toFixed(2)}`} up to ${low})`;
  return { similarity: similarity ?? null, trust, strength, low, high, reason };
}

/** "; history guard ×0.42 …" on an item the guard turned down (its memory vote or its usage signal). */
function guardNote(g: HistoryGuard, h: SearchHit): string {
  if (g.trust >= 1 || !(h.memory > 0 || h.graphSource === "global")) return "";
  return `; memory and usage × ${g.trust.toFixed(2)} (history guard: best similarity to a past request ${g.similarity?.toFixed(2)})`;
}

/** The search job: ranked tools for an intent, each with its score terms, gate decision and explanation. */
export const searchJob = defineJob({
  request: searchRequest,
  result: RESULT_SCHEMAS.search,
  libraryOptions: maskOptions,
  answerKey: "runSearch",
  run: (ctx, req) => runSearch(ctx.view, req),
});
