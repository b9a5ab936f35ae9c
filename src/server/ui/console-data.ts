/**
 * The JSON behind the console (/ui): the tool graph, one tool's detail, the dashboard over the
 * recommendation log. Thin: every number comes from the snapshot, the analytics, the jobs or the log.
 */

import { judgeAnswer, liveMetrics } from "../../jobs/live-metrics.ts";
import type { Toolgraph } from "../../library/toolgraph.ts";
import type { GraphView } from "../../view/graph-view.ts";

export function consoleGraph(tg: Toolgraph, project: string): Promise<GraphView> {
  return tg.graph({ project });
}

/** A tool's neighbours (out and in, with edge type and quality), its use statistics and next-step suggestions. */
export async function consoleTool(tg: Toolgraph, project: string, id: string) {
  const g = await tg.graph({ project });
  const node = g.nodes.find((n) => n.id === id);
  if (!node) return undefined;
  const out = g.edges.filter((e) => e.from === id).sort((a, b) => b.weight - a.weight);
  const inc = g.edges.filter((e) => e.to === id).sort((a, b) => b.weight - a.weight);
  const next = (await tg.suggestNext({ project, context: [id], limit: 5, session: "console" })) as {
    suggestions: { tool: string; score: number; confidence: number; explanation: string; gate: { decision: string } }[];
  };
  return {
    tool: node,
    successors: out.map((e) => ({
      tool: e.to,
      type: e.type,
      source: e.source,
      weight: e.weight,
      observations: e.observations,
    })),
    predecessors: inc.map((e) => ({
      tool: e.from,
      type: e.type,
      source: e.source,
      weight: e.weight,
      observations: e.observations,
    })),
    next: next.suggestions.map((s) => ({
      tool: s.tool,
      score: s.score,
      confidence: s.confidence,
      decision: s.gate.decision,
      explanation: s.explanation,
    })),
  };
}

/** Answers per job, acceptance and precision of accepted answers over time, live risk–coverage, per-tool use. */
export async function consoleDashboard(tg: Toolgraph, project: string, opts: { days: number; now: number }) {
  await tg.recommendations.flush();
  const rows = await tg.recommendations.joined(project, {
    since: new Date(opts.now - opts.days * 86_400_000),
  });
  const metrics = liveMetrics(rows, { bucketMs: opts.days > 2 ? 86_400_000 : 3_600_000 });
  const g = await tg.graph({ project });
  const tools = g.nodes
    .filter((n) => n.executions > 0)
    .sort((a, b) => b.executions - a.executions || a.id.localeCompare(b.id))
    .map((n) => ({ tool: n.id, executions: n.executions, successRate: n.successRate, avgLatencyMs: n.avgLatencyMs }));
  const recent = rows
    .slice(-20)
    .reverse()
    .map((r) => ({
      id: r.id,
      job: r.job,
      at: r.createdAt.toISOString(),
      request: r.request,
      decision: r.decision,
      topScore: r.topScore,
      top: r.items[0]?.id ?? null,
      outcome: r.outcome ? { kind: r.outcome.kind, success: r.outcome.success } : null,
      correct: judgeAnswer(r),
    }));
  return { project, days: opts.days, ...metrics, tools, recent };
}
