/**
 * Reasons that are true, through the library (`openToolgraph`) on the demo project (src/demo/): DAG and plan
 * reasons name tools, never internal indices; a "similar task" rule needs a past task that is really similar.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/api/toolgraph.ts";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { AdaptiveThresholdManager } from "../../src/gate/adaptive-threshold-manager.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const INDEX_IN_REASON = /(runs after|required by|edges from) \d/;

let tg: Toolgraph;

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", project: "demo", embeddings: "hash:256", now: () => NOW, resultCacheSize: 0, recommendationLog: { enabled: false } });
  // The gate without the machine's CPU and memory signals (they move with the load of the test machine).
  (tg.engine.gatekeeper as { manager: AdaptiveThresholdManager }).manager = new AdaptiveThresholdManager({ now: () => NOW, learner: tg.engine.gatekeeper.learner, resources: false });
  await tg.importCatalog(demoCatalog());
  await tg.importTraces(demoTraces(600, 42, NOW));
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
    expect(r.threshold.signals.user).toMatch(/^No user-history signal; no similar past task: no past execution is similar enough \(similarity ≥ 0\.50, the closest reaches 0\.[0-4]\d\)$/);
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
    expect(r.threshold.signals.user).toMatch(/^similar_success: \d+% success of \d+ similar past executions \(similarity ≥ 0\.50\)$/);
  });
});
