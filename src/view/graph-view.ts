/**
 * The tool graph as plain data, for pictures (the console at /ui) and exports (GraphML, GEXF): tools with
 * their Louvain community, PageRank, use statistics and capabilities; edges with their type, source and
 * quality weight. Built from the project's snapshot and analytics (nothing recomputed here).
 *
 * Layout (for drawing only): communities on a unit circle in community order, the tools of a community on a
 * small circle around its centre (radius grows with √size), in PageRank order. Deterministic.
 */
import type { Engine } from "./engine.ts";

export interface GraphViewNode {
  id: string;
  label: string;
  description: string;
  server: string | null;
  community: number;
  pagerank: number;
  executions: number;
  successRate: number | null;
  avgLatencyMs: number | null;
  capabilities: string[];
  x: number;
  y: number;
}

export interface GraphViewEdge {
  from: string;
  to: string;
  type: string;
  source: string;
  /** Edge quality in [0, 1] (type weight × source multiplier). */
  weight: number;
  observations: number;
}

export interface GraphViewCapability {
  id: string;
  name: string;
  tools: string[];
  executions: number;
  successRate: number | null;
}

export interface GraphView {
  project: string;
  version: number;
  communities: number;
  modularity: number;
  nodes: GraphViewNode[];
  edges: GraphViewEdge[];
  capabilities: GraphViewCapability[];
}

export async function graphView(engine: Engine, project: string): Promise<GraphView> {
  const s = await engine.snapshot(project);
  const { analytics: a } = await engine.analytics(project);
  const capsOf = new Map<string, string[]>();
  for (const c of s.capabilities) for (const m of c.members) capsOf.set(m.tool, [...(capsOf.get(m.tool) ?? []), c.id]);

  const byCommunity = new Map<number, number[]>();
  s.tools.forEach((_, i) => {
    const c = a.community[i] ?? 0;
    byCommunity.set(c, [...(byCommunity.get(c) ?? []), i]);
  });
  const communities = [...byCommunity.keys()].sort((x, y) => x - y);
  const pos: [number, number][] = new Array(s.tools.length);
  communities.forEach((c, k) => {
    const members = byCommunity
      .get(c)!
      .sort((i, j) => (a.pagerank[j] ?? 0) - (a.pagerank[i] ?? 0) || s.tools[i]!.id.localeCompare(s.tools[j]!.id));
    const angle = (2 * Math.PI * k) / communities.length;
    const cx = communities.length === 1 ? 0 : Math.cos(angle);
    const cy = communities.length === 1 ? 0 : Math.sin(angle);
    const r = 0.12 * Math.sqrt(members.length);
    members.forEach((i, m) => {
      const t = (2 * Math.PI * m) / members.length;
      pos[i] = members.length === 1 ? [cx, cy] : [cx + r * Math.cos(t), cy + r * Math.sin(t)];
    });
  });

  const nodes: GraphViewNode[] = s.tools.map((t, i) => {
    const ex = s.executions[i] ?? 0;
    const ok = s.successes[i] ?? 0;
    return {
      id: t.id,
      label: t.id,
      description: t.description,
      server: t.server,
      community: a.community[i] ?? 0,
      pagerank: a.pagerank[i] ?? 0,
      executions: ex,
      successRate: ex === 0 ? null : ok / ex,
      avgLatencyMs: ex > 0 && (s.totalDurationMs[i] ?? 0) > 0 ? s.totalDurationMs[i]! / ex : t.avgLatencyMs,
      capabilities: capsOf.get(t.id) ?? [],
      x: pos[i]![0],
      y: pos[i]![1],
    };
  });
  const edges: GraphViewEdge[] = [];
  for (const e of s.edges()) {
    if (!e.type || e.weight <= 0) continue;
    const observations = Object.values(e.counts).reduce((x, y) => x + y, 0);
    edges.push({
      from: e.from,
      to: e.to,
      type: e.type,
      source: e.source ?? "template",
      weight: e.weight,
      observations,
    });
  }
  edges.sort((x, y) => x.from.localeCompare(y.from) || x.to.localeCompare(y.to));
  return {
    project,
    version: s.version,
    communities: a.communityCount,
    modularity: a.modularity,
    nodes,
    edges,
    capabilities: s.capabilities.map((c) => ({
      id: c.id,
      name: c.name,
      tools: c.members.map((m) => m.tool),
      executions: c.executions,
      successRate: c.executions === 0 ? null : c.successes / c.executions,
    })),
  };
}
