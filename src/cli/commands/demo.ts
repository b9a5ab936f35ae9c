/** `toolgraph demo`: a realistic small project on the embedded database, and what toolgraph answers on it. */
import { demoCatalog } from "../../demo/catalog.ts";
import { demoTraces } from "../../demo/traces.ts";
import { type Command, EXIT } from "../command.ts";
import { table } from "../output.ts";

export const DEMO_NOW = Date.parse("2026-11-01T12:00:00Z");

export const demoCommand: Command = {
  name: "demo",
  summary: "build a demo project (41 tools, 10 capabilities, 600 synthetic traces) and show search, next step, capabilities and a DAG",
  usage: "toolgraph demo [--traces N] [--seed S]",
  examples: ["toolgraph demo", "toolgraph demo --json", "toolgraph demo --project demo2 --traces 2000"],
  options: { traces: { type: "string", default: "600" }, seed: { type: "string", default: "42" } },
  optionHelp: { "--traces N": "number of synthetic executions (default 600)", "--seed S": "random seed (default 42)" },
  async run(ctx) {
    const n = Number(ctx.values.traces);
    const seed = Number(ctx.values.seed);
    if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new Error(`--traces must be an integer from 1 to 100000, got ${ctx.values.traces}`);
    if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${ctx.values.seed}`);
    if (!ctx.values.project) ctx.values.project = "demo";
    const tg = await ctx.open();
    try {
      const cat = await tg.importCatalog(demoCatalog());
      const traces = await tg.importTraces(demoTraces(n, seed, DEMO_NOW));
      const report = await runDemoQueries(tg, DEMO_NOW);
      const stats = await tg.stats();
      if (ctx.json) {
        ctx.out(JSON.stringify({ stats, imported: { tools: cat.tools, executions: traces.inserted }, ...report }));
        return EXIT.ok;
      }
      ctx.out(`demo project "${stats.project}" on ${stats.backend} (${stats.location})`);
      ctx.out(table(["tools", "capabilities", "edges", "executions", "steps"], [[stats.tools, stats.capabilities, stats.edges, stats.executions, stats.steps]]));
      for (const section of report.sections) {
        ctx.out(`\n== ${section.title}`);
        ctx.out(section.text);
      }
      return EXIT.ok;
    } finally {
      await tg.close();
    }
  },
};

export interface DemoReport {
  sections: { title: string; text: string; result: unknown }[];
}

/** The questions the demo asks; grows as the services land. */
export async function runDemoQueries(_tg: unknown, _now: number): Promise<DemoReport> {
  return { sections: [] };
}
