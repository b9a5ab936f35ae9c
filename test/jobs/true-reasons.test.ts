/**
 * Reasons that are true, through the library (`openToolgraph`) on the demo project (src/demo/): DAG and plan
 * reasons name tools, never internal indices; a "similar task" rule needs a past task that is really similar;
 * a plan's prerequisites come from evidence connected to the intent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { AdaptiveThresholdManager } from "../../src/gate/adaptive-threshold-manager.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const INDEX_IN_REASON = /(runs after|required by|edges from) \d/;

let tg: Toolgraph;

/**
 * Triage traces: list the issues, read one, search the code for what it reports, comment. In them fs.search_files
 * reads github.get_issue's output, so once they outnumber the other uses of fs.search_files, the learned edge
 * github.get_issue → fs.search_files counts as required — for triage, not for editing a README.
 */
function triageTraces(n: number) {
  const intents = [
    "look into the crash reported in the newest issue",
    "investigate the bug from the issue tracker",
    "find where the reported exception comes from",
  ];
  return Array.from({ length: n }, (_, i) => ({
    id: `triage-${i}`,
    user: "ana",
    intent: intents[i % intents.length]!,
    startedAt: new Date(NOW - (i + 1) * 3_600_000),
    success: true,
    steps: [
      { tool: "github.list_issues", dependsOn: [] },
      { tool: "github.get_issue", dependsOn: [0] },
      { tool: "fs.search_files", dependsOn: [1] },
      { tool: "github.comment_issue", dependsOn: [1, 2] },
    ],
  }));
}

beforeAll(async () => {
  tg = await openToolgraph({
    home: "memory://",
    project: "demo",
    embeddings: "hash:256",
    now: () => NOW,
    resultCacheSize: 0,
    recommendationLog: { enabled: false },
  });
  // The gate without the machine's CPU and memory signals (they move with the load of the test machine).
  (engineOf(tg).gatekeeper as { manager: AdaptiveThresholdManager }).manager = new AdaptiveThresholdManager({
    now: () => NOW,
    learner: engineOf(tg).gatekeeper.learner,
    resources: false,
  });
  await tg.importCatalog(demoCatalog());
  await tg.importTraces(demoTraces(600, 42, NOW));
  // Project "triage": the demo, triage traces, and one past request "fix the typo in the README".
  await tg.importCatalog(demoCatalog(), { project: "triage" });
  const readme = {
    id: "readme-1",
    user: "bo",
    intent: "fix the typo in the README",
    startedAt: new Date(NOW - 7_200_000),
    success: true,
    steps: [{ tool: "fs.search_files" }, { tool: "fs.read_file" }, { tool: "fs.write_file" }],
  };
  await tg.importTraces([...demoTraces(600, 42, NOW), ...triageTraces(120), readme], { project: "triage" });
}, 120_000);

afterAll(async () => {
  await tg?.close();
});

describe("DAG and plan reasons name tools", () => {
  it("buildDag: 'runs after' and 'required by' list tool ids", async () => {
    const dag = await tg.buildDag({ tools: ["git.diff", "git.commit", "git.push", "ci.run_tests"] });
    const reason = (tool: string) => dag.nodes.find((n) => n.tool === tool)!.reason;
    expect(reason("git.diff")).toBe("root: no prerequisite among the selected tools; required by git.commit");
    expect(reason("git.commit")).toBe("layer 1: runs after git.diff");
    expect(reason("git.push")).toBe("layer 2: runs after git.commit");
    for (const n of dag.nodes) expect(n.reason).not.toMatch(INDEX_IN_REASON);
  });

  it("plan: every node's reason names tools", async () => {
    const plan = await tg.plan({ intent: "reply to the bug report on github after checking the code" });
    expect(plan.nodes.some((n) => /runs after|required by/.test(n.reason))).toBe(true);
    for (const n of plan.nodes) {
      expect(n.reason).not.toMatch(INDEX_IN_REASON);
      // A root names the tools that need it; a later node the tools it runs after.
      for (const t of n.root ? n.dependents : n.prerequisites) expect(n.reason).toContain(t);
    }
  });
});

describe("a similar-task rule needs a similar past task", () => {
  it("'bake a chocolate cake' (nothing like it in the catalog or the history): no similar_task_success, and the report says why", async () => {
    const r = await tg.search({ intent: "bake a chocolate cake", limit: 3 });
    expect(r.threshold.matchedRules).not.toContain("similar_task_success");
    expect(r.threshold.adjusted).not.toBe(0.6);
    expect(r.threshold.signals.user).toMatch(
      /^No user-history signal; no similar past task: no past execution is similar enough \(similarity ≥ 0\.50, the closest reaches 0\.[0-4]\d\)$/,
    );
  });

  it("the same answer from capabilities and next step with an intent", async () => {
    const caps = await tg.matchCapabilities({ intent: "bake a chocolate cake" });
    const next = await tg.suggestNext({ context: ["git.status"], intent: "bake a chocolate cake" });
    for (const r of [caps, next]) {
      expect(r.threshold.matchedRules).not.toContain("similar_task_success");
      expect(r.threshold.signals.user).toContain("no similar past task");
    }
  });

  it("a request asked before (same words) still finds its similar past tasks", async () => {
    const r = await tg.search({ intent: "schedule a meeting with Ana and Bo next week", limit: 3 });
    expect(r.threshold.matchedRules).toContain("similar_task_success");
    expect(r.threshold.signals.user).toMatch(
      /^similar_success: \d+% success of \d+ similar past executions \(similarity ≥ 0\.50\)$/,
    );
  });
});

describe("a plan's prerequisites come from evidence connected to the intent", () => {
  it("'fix the typo in the README' takes no prerequisite seen only in triage traces", async () => {
    const plan = await tg.plan({ project: "triage", intent: "fix the typo in the README" });
    const tools = plan.tools.map((t) => t.tool);
    expect(tools).toContain("fs.search_files");
    expect(tools).not.toContain("github.get_issue");
    expect(tools).not.toContain("github.list_issues");
    for (const t of plan.tools) expect(t.why).not.toMatch(/^prerequisite of/);
  });

  it("the triage edge is learned and required: only the evidence keeps it out", async () => {
    const { requiredPrerequisitesOf } = await import("../../src/jobs/dag.ts");
    const s = await engineOf(tg).snapshot("triage");
    const required = requiredPrerequisitesOf(s, s.index.get("fs.search_files")!).map((p) => s.tools[p.node]!.id);
    expect(required).toContain("github.get_issue");
  });

  it("a triage request still gets the triage tools", async () => {
    const plan = await tg.plan({ project: "triage", intent: "look into the crash reported in the newest issue" });
    expect(plan.tools.map((t) => t.tool)).toEqual(
      expect.arrayContaining(["github.list_issues", "github.get_issue", "fs.search_files"]),
    );
  });

  it("a declared edge is evidence and the plan says so; a learned one without evidence stays out", async () => {
    // "bake a chocolate cake": nothing matches, no past request is similar (the history guard leaves search to the
    // descriptions), and no capability or similar past request backs any prerequisite — only a declared edge
    // into the tool search chose does.
    const intent = "bake a chocolate cake";
    const chosen = (await tg.plan({ project: "triage", intent })).tools[0]!.tool;
    await tg.importEdges(JSON.stringify({ from: "git.diff", to: chosen, type: "dependency", source: "declared" }), {
      project: "triage",
    });
    const plan = await tg.plan({ project: "triage", intent });
    const why = new Map(plan.tools.map((t) => [t.tool, t.why]));
    expect(why.get(chosen)).toMatch(/^chosen by search/);
    expect(why.has("git.diff")).toBe(true);
    expect(why.get("git.diff")).toMatch(
      new RegExp(
        `^prerequisite of ${chosen.replace(".", "\\.")} \\(depth 1, dependency weight \\d\\.\\d\\d\\): declared dependency edge$`,
      ),
    );
    // git.create_branch → git.push is learned and required (ship-change traces), but nothing ties it to this intent.
    const { requiredPrerequisitesOf } = await import("../../src/jobs/dag.ts");
    const s = await engineOf(tg).snapshot("triage");
    expect(requiredPrerequisitesOf(s, s.index.get("git.push")!).map((p) => s.tools[p.node]!.id)).toContain(
      "git.create_branch",
    );
    expect(why.has("git.create_branch")).toBe(false);
    for (const [tool, reason] of why)
      if (tool !== chosen && tool !== "git.diff") expect(reason).toMatch(/^chosen by search/);
  });

  it("a strong capability match and the plan agree on the tools", async () => {
    // A request the project has served before: the memory's votes count in full (the history guard's trust is 1).
    const intent = "reply to the bug report about login";
    const caps = await tg.matchCapabilities({ intent, limit: 1 });
    const top = caps.results[0]!;
    expect(top.capability).toBe("answer-issue");
    expect(top.gate).toMatchObject({ decision: "accepted", confidence: "high" });
    const plan = await tg.plan({ intent });
    expect(plan.tools.map((t) => t.tool).sort()).toEqual([...top.tools].sort());
    for (const t of plan.tools) expect(t.why).toContain("answer-issue");
  });

  it("a request that shares words with past ones, not their task, gets no strong capability and no borrowed plan", async () => {
    const intent = "renew the credentials of the payment service and tell the team";
    const caps = await tg.matchCapabilities({ intent, limit: 3 });
    // Its past neighbours (incident triage: "the payment service …", "… tell the team") vote through shared words;
    // the history guard weighs those votes by the similarity, so no capability is accepted on them.
    expect(caps.results.map((c) => c.gate.decision)).toEqual(["abstained", "abstained", "abstained"]);
    const triage = caps.results.find((c) => c.capability === "incident-triage");
    if (triage) expect((triage.breakdown as { historyTrust: number }).historyTrust).toBeLessThan(1);
    const plan = await tg.plan({ intent });
    for (const t of plan.tools) expect(t.why).not.toMatch(/^in capability/);
  });
});
