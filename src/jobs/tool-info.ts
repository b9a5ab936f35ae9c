/**
 * What toolgraph knows of one tool: its catalog entry (description, schemas, tags, safety tags, server),
 * its use (steps, success rate, latency, last use), its place in the graph (Louvain community, PageRank,
 * the capabilities it belongs to) and its strongest neighbours both ways (the edges it leads to and comes from, by edge
 * quality: algorithms/graph/edge-quality.ts). A lookup, not a recommendation: nothing is ranked for an
 * intent, so nothing is gated; the explanation says what the numbers rest on.
 */
import { z } from "zod";
import { ToolgraphError } from "../contract/errors.ts";
import { safeId } from "../formats/schemas.ts";
import { defineJob } from "./job.ts";

export const toolInfoRequest = z
  .object({
    tool: safeId(256).describe("The tool's id"),
    neighbours: z.number().int().min(0).max(50).optional().describe("How many neighbours to list each way (default 5)"),
  })
  .strict();

const neighbour = z.object({
  tool: z.string().describe("The neighbouring tool"),
  weight: z.number().describe("Edge quality in [0, 1] (type weight × source multiplier)"),
  type: z.string().describe("The edge's type (dependency, sequence, contains, provides)"),
  observations: z.number().describe("Executions that showed this edge"),
});

export const toolInfoResult = z.looseObject({
  project: z.string(),
  tool: z.looseObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    server: z.string().nullable(),
    inputSchema: z.record(z.string(), z.unknown()).nullable(),
    outputSchema: z.record(z.string(), z.unknown()).nullable(),
    tags: z.array(z.string()),
    safetyTags: z
      .array(z.string())
      .describe("destructive, network, suspicious, …: a suspicious tool is never accepted outright"),
    available: z.boolean(),
  }),
  stats: z.object({
    executions: z.number().describe("Steps that called the tool"),
    successRate: z.number().nullable(),
    avgLatencyMs: z.number().nullable(),
    lastUsedAt: z.string().nullable().describe("ISO time of the last recorded use"),
  }),
  graph: z.object({ community: z.number(), pagerank: z.number().describe("Max-normalised to [0, 1]") }),
  memberOf: z.array(z.string()).describe("The capabilities the tool belongs to"),
  neighbours: z.object({
    next: z.array(neighbour).describe("Tools it leads to"),
    previous: z.array(neighbour).describe("Tools that lead to it"),
  }),
  explanation: z.string(),
});

type Neighbour = z.infer<typeof neighbour>;

const byWeight = (a: Neighbour, b: Neighbour) =>
  b.weight - a.weight || b.observations - a.observations || a.tool.localeCompare(b.tool);

export const toolInfoJob = defineJob({
  request: toolInfoRequest,
  result: toolInfoResult,
  async run(ctx, req) {
    const s = ctx.view.snapshot;
    const i = s.index.get(req.tool);
    if (i === undefined) {
      throw new ToolgraphError(
        "unknown-tool",
        `tool: unknown tool ${JSON.stringify(req.tool)} in project ${JSON.stringify(ctx.project)}`,
        { field: "tool", tool: req.tool },
      );
    }
    const { analytics: a } = ctx.view.analytics();
    const t = s.tools[i]!;
    const next: Neighbour[] = [];
    const previous: Neighbour[] = [];
    for (const e of s.edges()) {
      if (!e.type || e.weight <= 0 || (e.from !== t.id && e.to !== t.id)) continue;
      const observations = Object.values(e.counts).reduce((x, y) => x + y, 0);
      if (e.from === t.id) next.push({ tool: e.to, weight: e.weight, type: e.type, observations });
      else previous.push({ tool: e.from, weight: e.weight, type: e.type, observations });
    }
    const k = req.neighbours ?? 5;
    next.sort(byWeight);
    previous.sort(byWeight);
    const executions = s.executions[i] ?? 0;
    const successRate = executions === 0 ? null : (s.successes[i] ?? 0) / executions;
    const lastUsed = s.lastUsedAt[i] ?? Number.NaN;
    const avgLatencyMs =
      executions > 0 && (s.totalDurationMs[i] ?? 0) > 0 ? s.totalDurationMs[i]! / executions : t.avgLatencyMs;
    const community = a.community[i] ?? 0;
    const pagerank = a.pagerank[i] ?? 0;
    const memberOf = s.capabilities.filter((c) => c.members.some((m) => m.tool === t.id)).map((c) => c.id);
    const use =
      executions === 0
        ? "never used in a recorded execution"
        : `used in ${executions} steps, ${Math.round((successRate ?? 0) * 100)} % successful`;
    const lead = next[0]
      ? `; most often followed by ${next[0].tool} (${next[0].type}, quality ${next[0].weight.toFixed(2)})`
      : "";
    const follow = previous[0] ? `; most often after ${previous[0].tool}` : "";
    return {
      project: ctx.project,
      tool: {
        id: t.id,
        name: t.name,
        description: t.description,
        server: t.server,
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
        tags: t.tags,
        safetyTags: t.safetyTags,
        available: t.available,
      },
      stats: {
        executions,
        successRate,
        avgLatencyMs,
        lastUsedAt: Number.isNaN(lastUsed) ? null : new Date(lastUsed).toISOString(),
      },
      graph: { community, pagerank },
      memberOf,
      neighbours: { next: next.slice(0, k), previous: previous.slice(0, k) },
      explanation: `${t.id}: ${use}; community ${community}, PageRank ${pagerank.toFixed(3)}${lead}${follow}.`,
    };
  },
});
