/** `toolgraph dag`: tools ordered into an execution DAG, and how a DAG prints (plan: workflow.ts). */
import { type Command, type CommandContext, EXIT, UsageError } from "../command.ts";
import { fmtNum } from "../output.ts";
import {
  CAP_HELP,
  CAP_OPTIONS,
  capFields,
  GATE_HELP,
  GATE_OPTIONS,
  gateFields,
  type Result,
  strip,
  withTg,
} from "./recommend-shared.ts";

export function printDag(ctx: CommandContext, r: Result): void {
  const layers = r.layers as string[][];
  layers.forEach((l, i) => {
    ctx.out(`layer ${i}: ${l.join("  |  ")}`);
  });
  for (const e of r.edges as { explanation: string }[]) ctx.out(`  ${e.explanation}`);
  for (const n of r.nodes as { root: boolean; reason: string; tool: string; dependents: string[] }[]) {
    if (n.root && n.dependents.length === 0) ctx.out(`  ${n.tool}: ${n.reason}`);
  }
  for (const d of (r.dropped as { explanation: string }[]) ?? []) ctx.out(`  ${d.explanation}`);
  for (const d of (r.removed as { tool: string; reason: string }[]) ?? []) ctx.out(`  removed ${d.tool}: ${d.reason}`);
  const t = r.timing as { wallTimeMs: number; sequentialMs: number; criticalPath: string[]; reason: string | null };
  if (t && !t.reason)
    ctx.out(
      `critical path ${t.criticalPath.join(" → ")}: ${fmtNum(t.wallTimeMs)} ms in parallel vs ${fmtNum(t.sequentialMs)} ms sequentially`,
    );
  const g = r.gate as { decision: string; threshold: number };
  ctx.out(`confidence ${fmtNum(r.confidence as number)}: ${g.decision} (threshold ${g.threshold.toFixed(2)})`);
}

export const SCHEMA_EDGES_HELP =
  "also relate tools with no learned relation when one's outputSchema fits the other's required inputs (off by default)";

export function schemaEdgesFlag(ctx: { values: Record<string, unknown> }): boolean | undefined {
  return ctx.values["schema-edges"] === true ? true : undefined;
}

export const dagCommand: Command = {
  name: "dag",
  remote: true,
  readOnly: true,
  summary: "order tools into an execution DAG with parallel layers (Dijkstra ≤ 3 hops over the learned graph)",
  usage: "toolgraph dag TOOL... [--intent TEXT] [--graph auto|history|dependency|blended] [--schema-edges]",
  examples: [
    "toolgraph dag git.commit git.push github.create_pull_request",
    "toolgraph dag db.backup db.migrate ci.deploy --json",
    'toolgraph dag weather.forecast geo.city --intent "find the city, then its forecast"',
  ],
  options: {
    intent: { type: "string" },
    graph: { type: "string" },
    "schema-edges": { type: "boolean" },
    ...GATE_OPTIONS,
    ...CAP_OPTIONS,
  },
  optionHelp: {
    "--intent TEXT":
      "the request in plain words: orients tools the history never saw in succession by the order it mentions them",
    "--graph":
      "auto (default: dependency evidence when the project has some, else history), history, dependency or blended",
    "--schema-edges": SCHEMA_EDGES_HELP,
    ...GATE_HELP,
    ...CAP_HELP,
  },
  async run(ctx) {
    const tools = ctx.positionals.flatMap((p) => p.split(",")).filter(Boolean);
    if (tools.length === 0) throw new UsageError("dag: name at least one tool");
    const graph = ctx.values.graph as "history" | "dependency" | undefined;
    return withTg(ctx, async (tg) => {
      const r = await tg.buildDag(
        strip({
          tools,
          intent: ctx.values.intent as string | undefined,
          graph,
          schemaEdges: schemaEdgesFlag(ctx),
          ...gateFields(ctx),
          ...capFields(ctx),
          limit: undefined,
          explain: undefined,
        }),
      );
      if (ctx.json) ctx.out(JSON.stringify(r));
      else printDag(ctx, r);
      return EXIT.ok;
    });
  },
};
