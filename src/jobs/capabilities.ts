/**
 * Capabilities (docs/decisions/capability-scoring.md): active match by intent and passive (strategic)
 * discovery from the context.
 *
 * match(intent): semantic = fused cosine + BM25 over the capability texts (name, description, keywords),
 * lifted (noisy-OR, algorithms/search/capability-evidence.ts) by the tool evidence (the search score of the
 * capability's most distinctive member tool, weight 0.8) and by the intent memory's capability votes
 * (weight 0.8, times the history guard's trust, as search weighs the memory's tool votes). Neither the capability texts nor the tool evidence's search use the search's fitted content
 * weight w_c (kept at 1): on ToolLinkOS with hash:512 embeddings (fitted w_c 0.5) weighting the texts cost
 * 0.16 accuracy@1 and weighting the tool search 0.065 (algorithms/README.md, "Content ⊕ memory"). The ranking with
 * reliability and the pattern triggers is algorithms/search/capability-ranking.ts (score = max(semantic,
 * activated pattern) × reliability).
 *
 * discover(context): discovery = toolsOverlap × (1 + 0.5 when the capability's own spectral cluster is
 * one of the clusters holding the most context tools).
 */

import { rowDot } from "../../algorithms/linalg/dot.ts";
import { discoverCapabilities } from "../../algorithms/prediction/capability-discovery.ts";
import { bm25IdealScore, searchBm25 } from "../../algorithms/search/bm25.ts";
import { capabilitySemantic } from "../../algorithms/search/capability-evidence.ts";
import { rankCapabilityMatches } from "../../algorithms/search/capability-ranking.ts";
import { historyTrust } from "../../algorithms/search/history-guard.ts";
import { fuseScores } from "../../algorithms/search/fusion.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { capForChannels } from "../../algorithms/thresholds/channel-cap.ts";
import type { DiscoverCapabilitiesRequest, MatchCapabilitiesRequest } from "../contract/requests.ts";
import {
  discoverCapabilitiesOptions,
  discoverCapabilitiesRequest,
  matchCapabilitiesRequest,
} from "../contract/requests.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { gatedSummary } from "../gate/gatekeeper.ts";
import { derivedKey } from "../view/derived.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import { scorePatterns } from "../view/patterns.ts";
import type { ProjectView } from "../view/project-view.ts";
import { resolveTools } from "../view/resolve.ts";
import { searchWeightsFor } from "./fit-search-weights.ts";
import { defineJob } from "./job.ts";
import { searchCandidates } from "./search-scoring.ts";

const DISTINCTIVE_MEMBERS = derivedKey<Map<string, string>>("distinctive capability members", "catalog");

/** Per capability, its member shared by the fewest capabilities (ties: the first declared). Derived state of the catalog. */
function distinctiveMembers(s: GraphSnapshot): Map<string, string> {
  return s.derived(DISTINCTIVE_MEMBERS, () => {
    const freq = new Map<string, number>();
    const members = s.capabilities.map((c) => s.capabilityMembers(c));
    for (const ms of members) for (const t of new Set(ms)) freq.set(t, (freq.get(t) ?? 0) + 1);
    const m = new Map<string, string>();
    s.capabilities.forEach((c, i) => {
      let best: string | undefined;
      for (const t of members[i]!) if (best === undefined || freq.get(t)! < freq.get(best)!) best = t;
      if (best !== undefined) m.set(c.id, best);
    });
    return m;
  });
}

/** Capability member lists and clusters per graph version and analytics (discovery reads them on every call). */
const DISCOVERY_INPUTS = derivedKey<{ tools: number[]; cluster: number }[]>("discovery inputs");

export async function runMatchCapabilities(view: ProjectView, req: MatchCapabilitiesRequest) {
  const t0 = performance.now();
  const s = view.snapshot;
  const a = view.analytics();
  // While a new catalog is embedded (engine.whileEmbedding "lexical") the lexical index answers: no query vector.
  const idx = await view.servingSearchIndex();
  const limit = req.limit ?? 5;
  const [qv] = idx.degraded ? [new Float32Array(0)] : await view.embedQueries([req.intent]);
  const tokens = tokenize(req.intent);
  const nc = s.capabilities.length;
  const cos = (c: number) => rowDot(idx.capVectors, idx.dims, c, qv!);
  const vecHits = Array.from({ length: nc }, (_, c) => ({ id: c, score: cos(c) }));
  const bm = searchBm25(idx.capBm25, tokens, Math.max(50, nc));
  const fused = fuseScores(vecHits, bm, { bm25Ideal: bm25IdealScore(idx.capBm25, tokens), cosineOf: cos });
  const memory = await view.recall(req.intent, qv!, { user: req.user });
  // Tool evidence: the search score of each capability's most distinctive member (the member shared by the
  // fewest capabilities — for a bundle named after its main tool, that tool), from one tool search.
  const weights = await searchWeightsFor(view);
  const toolHits = searchCandidates(s, a, idx, req.intent, qv!, {
    memory: weights.memoryWeight > 0 ? memory.toolVotes : undefined,
    beta: weights.beta,
    memoryWeight: weights.memoryWeight,
    graphWeight: weights.graphWeight,
  });
  // The history guard weighs the memory's capability votes as it weighs its tool votes in search.
  const trust = historyTrust(memory.similarity, { strength: weights.historyGuard });
  const toolScore = new Map(toolHits.map((h) => [s.tools[h.index]!.id, h.final]));
  const distinctive = distinctiveMembers(s);
  const { scores: patterns, work: patternWork } = await scorePatterns(s, req.intent);
  const evidence = fused.map((f) => {
    const cap = s.capabilities[f.id]!;
    const vote = memory.capabilityVotes.get(cap.id) ?? 0;
    const toolEvidence = toolScore.get(distinctive.get(cap.id) ?? "") ?? 0;
    const semantic = capabilitySemantic({ content: f.semantic, toolEvidence, vote, trust });
    return {
      f,
      cap,
      vote,
      toolEvidence,
      semantic,
      successRate: cap.executions > 0 ? cap.successes / cap.executions : undefined,
    };
  });
  const ranking = rankCapabilityMatches(
    evidence.map((e) => ({
      id: e.cap.id,
      semantic: e.semantic,
      successRate: e.successRate,
      executions: e.cap.executions,
      trigger: patterns.get(e.cap.id),
      tieBreaker: a.analytics.hyperCapabilities[e.f.id] ?? 0,
    })),
  );
  // Only the kept matches are described (members, breakdown, explanation): the ranking itself needs none of it.
  const top = ranking.ranked.slice(0, limit).map((m) => {
    const { f, cap, vote, toolEvidence, semantic, successRate } = evidence[m.index]!;
    const p = patterns.get(cap.id);
    const selectedBy =
      m.evidenceSource === "pattern"
        ? `pattern confidence ${m.evidence.toFixed(3)}`
        : `semantic ${semantic.toFixed(3)}`;
    return {
      capability: cap.id,
      name: cap.name,
      description: cap.description,
      score: m.score,
      tools: s.capabilityMembers(cap),
      breakdown: {
        semantic,
        cosine: f.cosine,
        bm25Norm: f.bm25Norm,
        memory: vote,
        historyTrust: trust,
        toolEvidence,
        distinctiveTool: distinctive.get(cap.id) ?? null,
        evidence: m.evidence,
        evidenceSource: m.evidenceSource,
        reliability: m.reliability,
        successRate: successRate ?? null,
        executions: cap.executions,
        pattern: p
          ? {
              confidence: p.confidence,
              activated: p.activated,
              matched: [...p.matchedPatterns],
              keywords: [...p.matchedKeywords],
            }
          : null,
        hypergraphPagerank: a.analytics.hyperCapabilities[f.id] ?? 0,
      },
      priority: cap.priority,
      explanation:
        `${cap.id}: ${m.score.toFixed(3)} = ${selectedBy} × reliability ${m.reliability}` +
        `${successRate !== undefined ? ` (success ${(successRate * 100).toFixed(0)}% of ${cap.executions})` : " (no history)"}; ` +
        `semantic ${semantic.toFixed(3)} (cosine ${f.cosine.toFixed(3)}, bm25 ${f.bm25Norm.toFixed(3)}${vote > 0 ? `, memory ${vote.toFixed(2)}${trust < 1 ? ` × history guard ${trust.toFixed(2)}` : ""}` : ""})` +
        `${p?.activated ? `; pattern confidence ${p.confidence.toFixed(2)} (${p.matchedPatterns.length} patterns, ${p.matchedKeywords.length} keywords)` : ""}` +
        `${ranking.trigger.winner === cap.id && ranking.trigger.contenders.length > 1 ? `; trigger winner by ${ranking.trigger.reason} among ${ranking.trigger.contenders.length} within 0.15` : ""}`,
    };
  });
  const prepared = await view.gate.prepare({
    project: view.project,
    user: req.user,
    text: req.intent,
    environment: req.environment,
    urgency: req.urgency,
    requestWorkflow: req.workflow,
    similarPastSuccess: memory.similarSuccess,
  });
  const fallbacks = await view.fallbacks();
  const live = { lexical: true, embedding: idx.degraded !== "embedding", graph: true };
  const results = top.map((r) => ({
    ...r,
    gate: capForChannels(view.gate.gateItem("capability", r.score, prepared), live),
  }));
  return {
    project: view.project,
    intent: req.intent,
    results,
    ...(live.embedding ? {} : { degraded: "embedding" as const }),
    ...gatedSummary(results, (r) => r.capability, prepared, fallbacks, { empty: "the project has no capabilities" }),
    trigger: {
      winner: ranking.trigger.winner,
      reason: ranking.trigger.reason,
      contenders: ranking.trigger.contenders.map((c) => c.id),
      /** Patterns declared, rejected by their literals, run, and skipped because the request's match budget was spent. */
      patternWork,
    },
    timings: { totalMs: performance.now() - t0 },
  };
}

/** The bench's ablation of discovery (a library-only option, see requests.ts): a cluster boost other than 0.5. */
export interface DiscoveryAblation {
  clusterBoost?: number;
}

export async function runDiscoverCapabilities(
  view: ProjectView,
  req: DiscoverCapabilitiesRequest,
  ablation: DiscoveryAblation = {},
) {
  const t0 = performance.now();
  const s = view.snapshot;
  const a = view.analytics();
  const context = resolveTools(s, req.context, "context");
  const caps = s.derived(
    DISCOVERY_INPUTS,
    () =>
      s.capabilities.map((c, i) => ({
        tools: s.capabilityMembers(c).flatMap((t) => {
          const k = s.index.get(t);
          return k === undefined ? [] : [k];
        }),
        cluster: a.analytics.capabilityCluster[i] ?? -1,
      })),
    [a.analytics],
  );
  const r = discoverCapabilities(
    { capabilities: caps, toolCluster: a.analytics.toolCluster, context, tieBreaker: a.analytics.hyperCapabilities },
    { limit: req.limit ?? 5, ...(ablation.clusterBoost !== undefined ? { clusterBoost: ablation.clusterBoost } : {}) },
  );
  const prepared = await view.gate.prepare({
    project: view.project,
    user: req.user,
    text: "",
    workflow: { steps: req.context.map((tool) => ({ tool, success: true })), replans: 0 },
    environment: req.environment,
    urgency: req.urgency,
    requestWorkflow: req.workflow,
  });
  const fallbacks = await view.fallbacks();
  const results = r.capabilities.map((d) => {
    const cap = s.capabilities[d.capability]!;
    const score = Math.min(1, d.score);
    return {
      capability: cap.id,
      name: cap.name,
      score: d.score,
      overlap: d.overlap,
      matchedTools: d.matchedTools.map((i) => s.tools[i]!.id),
      cluster: d.cluster,
      boost: d.boost,
      inDominantCluster: d.inDominantCluster,
      hypergraphPagerank: d.tieBreaker,
      gate: view.gate.gateItem("discovery", score, prepared),
      explanation: `${cap.id}: ${d.score.toFixed(3)} = overlap ${d.overlap.toFixed(2)} (${d.matchedTools.length} of its tools in the context) × (1 + boost ${d.boost})${d.inDominantCluster ? `; in spectral cluster ${d.cluster}, which holds most context tools` : ""}`,
    };
  });
  return {
    project: view.project,
    context: req.context,
    results,
    ...gatedSummary(results, (x) => x.capability, prepared, fallbacks, {
      empty: r.reason ?? "no capability shares a tool with the context",
    }),
    dominantClusters: r.dominantClusters,
    spectral: { k: a.analytics.spectralK, source: a.analytics.spectralKSource },
    analytics: { fresh: a.fresh, ageMs: a.ageMs },
    timings: { totalMs: performance.now() - t0 },
  };
}

/** Capabilities answering an explicit intent. */
export const matchCapabilitiesJob = defineJob({
  request: matchCapabilitiesRequest,
  result: RESULT_SCHEMAS.matchCapabilities,
  answerKey: "runMatchCapabilities",
  run: (ctx, req) => runMatchCapabilities(ctx.view, req),
});

/** Capabilities that fit the tools in use. */
export const discoverCapabilitiesJob = defineJob({
  request: discoverCapabilitiesRequest,
  result: RESULT_SCHEMAS.discoverCapabilities,
  libraryOptions: discoverCapabilitiesOptions,
  answerKey: "runDiscoverCapabilities",
  run: (ctx, req) => runDiscoverCapabilities(ctx.view, req, req.ablation ?? {}),
});
