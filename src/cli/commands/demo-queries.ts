/** The questions `toolgraph demo` asks of its project, one per job, and their answers as text. */
import type { Toolgraph } from "../../library/toolgraph.ts";
import { fmtNum, table } from "../output.ts";

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
