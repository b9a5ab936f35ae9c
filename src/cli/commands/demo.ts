/** `toolgraph demo`: a realistic small project on the embedded database, and what toolgraph answers on it. */

import { type Command, EXIT } from "../command.ts";
import { table } from "../output.ts";
import { runDemoQueries } from "./demo-queries.ts";

export const DEMO_NOW = Date.parse("2026-11-01T12:00:00Z");

export const demoCommand: Command = {
  name: "demo",
  summary:
    "build a demo project (41 tools, 10 capabilities, 600 synthetic traces) and show search, next step, capabilities and a DAG",
  usage: "toolgraph demo [--traces N] [--seed S]",
  examples: ["toolgraph demo", "toolgraph demo --json", "toolgraph demo --project demo2 --traces 2000"],
  options: { traces: { type: "string", default: "600" }, seed: { type: "string", default: "42" } },
  optionHelp: { "--traces N": "number of synthetic executions (default 600)", "--seed S": "random seed (default 42)" },
  async run(ctx) {
    const n = Number(ctx.values.traces);
    const seed = Number(ctx.values.seed);
    if (!Number.isInteger(n) || n < 1 || n > 100_000)
      throw new Error(`--traces must be an integer from 1 to 100000, got ${ctx.values.traces}`);
    if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${ctx.values.seed}`);
    if (!ctx.values.project) ctx.values.project = "demo";
    const tg = await ctx.open();
    try {
      // The demo's data is imported when the command runs, so `toolgraph --help` does not load it.
      const [{ demoCatalog }, { demoTraces }] = await Promise.all([
        import("../../demo/catalog.ts"),
        import("../../demo/traces.ts"),
      ]);
      const cat = await tg.importCatalog(demoCatalog());
      const traces = await tg.importTraces(demoTraces(n, seed, DEMO_NOW));
      const report = await runDemoQueries(tg, DEMO_NOW);
      const stats = await tg.stats();
      if (ctx.json) {
        ctx.out(JSON.stringify({ stats, imported: { tools: cat.tools, executions: traces.inserted }, ...report }));
        return EXIT.ok;
      }
      ctx.out(`demo project "${stats.project}" on ${stats.backend} (${stats.location})`);
      ctx.out(
        table(
          ["tools", "capabilities", "edges", "executions", "steps"],
          [[stats.tools, stats.capabilities, stats.edges, stats.executions, stats.steps]],
        ),
      );
      for (const section of report.sections) {
        ctx.out(`\n== ${section.title}`);
        ctx.out(section.text);
      }
      ctx.out(`\n${nextCommands(stats.project, ctx.values.home as string | undefined).join("\n")}`);
      return EXIT.ok;
    } finally {
      await tg.close();
    }
  },
};

/** What to run next on the demo project (the other commands read project "default" unless told). */
export function nextCommands(project: string, home: string | undefined): string[] {
  const where = `--project ${project}${home ? ` --home ${JSON.stringify(home)}` : ""}`;
  return [
    `next, on project "${project}" (or export TOOLGRAPH_PROJECT=${project}):`,
    `  toolgraph search "roll back the last deploy" ${where}`,
    `  toolgraph serve ${where}     # HTTP API`,
    `  toolgraph mcp ${where}       # MCP over stdio`,
  ];
}
