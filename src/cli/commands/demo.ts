/** `toolgraph demo`: a realistic small project on the embedded database, and what toolgraph answers on it. */

import type { Toolgraph } from "../../library/toolgraph.ts";
import { type Command, EXIT } from "../command.ts";
import { fmtNum, table } from "../output.ts";

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

export interface DemoReport {
  sections: { title: string; text: string; result: unknown }[];
}

/** The questions the demo asks, one per job. */
export async function runDemoQueries(tg: Toolgraph, _now: number): Promise<DemoReport> {
  const sections: DemoReport["sections"] = [];
  const mark = (d: string) => (d === "accepted" ? "✓" : d === "accepted-with-caution" ? "~" : "✗");
  const search = await tg.search({ intent: "the payments service is throwing errors, find out why", limit: 5 });
  sections.push({
    title: 'search "the payments service is throwing errors, find out why"',
    text: table(
      ["", "tool", "score", "why"],
      search.results.map((r) => [
        mark(r.gate.decision),
        r.tool,
        fmtNum(r.score),
        r.explanation.split(": ").slice(1).join(": "),
      ]),
    ),
    result: search,
  });
  const next = await tg.suggestNext({ context: ["git.status", "git.diff"], limit: 5 });
  sections.push({
    title: "next tool after git.status, git.diff",
    text: table(
      ["", "tool", "confidence", "cooc", "community", "recency", "pagerank"],
      next.suggestions.map((s) => [
        mark(s.gate.decision),
        s.tool,
        fmtNum(s.confidence),
        fmtNum(s.terms.cooc.value),
        s.terms.community.value,
        fmtNum(s.terms.recency.value),
        fmtNum(s.terms.pagerank.value),
      ]),
    ),
    result: next,
  });
  const caps = await tg.matchCapabilities({ intent: "roll back the production deploy", limit: 3 });
  sections.push({
    title: 'capabilities for "roll back the production deploy"',
    text: table(
      ["", "capability", "score", "why"],
      caps.results.map((r) => [
        mark(r.gate.decision),
        r.capability,
        fmtNum(r.score),
        r.explanation.split(": ").slice(1).join(": "),
      ]),
    ),
    result: caps,
  });
  const disc = await tg.discoverCapabilities({ context: ["monitor.get_alerts", "monitor.read_logs"], limit: 3 });
  sections.push({
    title: "capabilities that fit monitor.get_alerts, monitor.read_logs",
    text: table(
      ["", "capability", "score", "why"],
      disc.results.map((r) => [
        mark(r.gate.decision),
        r.capability,
        fmtNum(r.score),
        r.explanation.split(": ").slice(1).join(": "),
      ]),
    ),
    result: disc,
  });
  const dag = await tg.buildDag({
    tools: ["github.create_pull_request", "git.commit", "git.push", "ci.run_tests", "git.create_branch"],
  });
  sections.push({
    title: "DAG of github.create_pull_request, git.commit, git.push, ci.run_tests, git.create_branch",
    text: [
      ...dag.layers.map((l, i) => `layer ${i}: ${l.join(" | ")}`),
      ...dag.edges.map((e) => `  ${e.explanation}`),
      ...dag.nodes.filter((n) => n.root && n.dependents.length === 0).map((n) => `  ${n.tool}: ${n.reason}`),
      dag.timing.reason
        ? ""
        : `critical path ${fmtNum(dag.timing.wallTimeMs)} ms vs ${fmtNum(dag.timing.sequentialMs)} ms sequential`,
    ].join("\n"),
    result: dag,
  });
  const plan = await tg.plan({ intent: "release the new version to production", limit: 3 });
  sections.push({
    title: 'plan "release the new version to production"',
    text: [
      ...plan.tools.map((t) => `${t.tool}: ${t.why}`),
      ...plan.layers.map((l, i) => `layer ${i}: ${l.join(" | ")}`),
    ].join("\n"),
    result: plan,
  });
  return { sections };
}
