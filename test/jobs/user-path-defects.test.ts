/**
 * The answers users get through `openToolgraph(...)` follow the documented formulas (algorithms/README.md,
 * docs/decisions/), checked on small catalogs
 * whose expected numbers are computed by hand (one `describe` per defect found on the user path).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

// Each case opens an embedded database and embeds a catalog: slow on a loaded machine, never a timing test.
vi.setConfig({ testTimeout: 300_000 });

const NOW = Date.parse("2026-11-01T12:00:00Z");
const open: Toolgraph[] = [];
afterEach(async () => {
  for (const tg of open.splice(0)) await tg.close();
});
async function fresh(): Promise<Toolgraph> {
  const tg = await openToolgraph({ home: "memory://", embeddings: "hash:256", now: () => NOW });
  open.push(tg);
  return tg;
}

/**
 * A trigger pattern of exactly `confidence` (docs/decisions/capability-scoring.md): one pattern of source length L
 * matched alone gives min(1, 0.3 + L/100) / max(1, 0.3·1) = 0.3 + L/100; "ship" followed by k optional "x?" has
 * L = 4 + 2k.
 */
function patternOf(confidence: number): string {
  const k = Math.round(((confidence - 0.3) * 100 - 4) / 2);
  return `ship${"x?".repeat(k)}`;
}

/** Tools and capabilities whose texts share no word with "ship it": the semantic side stays small. */
function triggerCatalog(caps: { id: string; confidence: number; priority: number }[]) {
  return {
    tools: caps.map((c, i) => ({
      id: `t.${c.id}`,
      description: ["alpha beta", "gamma delta", "epsilon zeta", "eta theta"][i % 4]!,
    })),
    capabilities: caps.map((c, i) => ({
      id: c.id,
      description: ["lorem ipsum", "dolor sit", "amet consectetur", "adipiscing elit"][i % 4]!,
      tools: [`t.${c.id}`],
      patterns: [patternOf(c.confidence)],
      priority: c.priority,
    })),
  };
}

describe("defect 1: reliability multiplies the evidence that selected a capability", () => {
  it("a 20 % capability whose pattern fires scores confidence × 0.1 and is not proposed", async () => {
    const tg = await fresh();
    await tg.importCatalog(
      triggerCatalog([
        { id: "cap.flaky", confidence: 0.9, priority: 0 },
        { id: "cap.sound", confidence: 0.5, priority: 0 },
      ]),
    );
    // cap.flaky: 5 executions, 1 succeeded → success 20 % < 50 % → reliability 0.1 (capability-match.ts).
    await tg.importTraces(
      Array.from({ length: 5 }, (_, i) => ({
        id: `e${i}`,
        capability: "cap.flaky",
        startedAt: NOW - 3_600_000,
        success: i === 0,
        steps: [{ tool: "t.cap.flaky" }],
      })),
    );
    const r = await tg.matchCapabilities({ intent: "ship it", limit: 5 });
    const flaky = r.results.find((x) => x.capability === "cap.flaky")!;
    const sound = r.results.find((x) => x.capability === "cap.sound")!;
    expect(flaky.breakdown.pattern!.confidence).toBeCloseTo(0.9, 12);
    expect(flaky.breakdown.semantic).toBeLessThan(0.5);
    expect(flaky.breakdown.reliability).toBe(0.1);
    // evidence = max(semantic, pattern 0.9) = 0.9; score = 0.9 × 0.1 = 0.09.
    expect(flaky.score).toBeCloseTo(0.09, 12);
    expect(flaky.gate.decision).toBe("abstained");
    // cap.sound: no history (reliability 1), pattern 0.3 + 20/100 = 0.5 → score 0.5, ranked first.
    expect(sound.score).toBeCloseTo(0.5, 12);
    expect(r.results[0]!.capability).toBe("cap.sound");
    expect(r.accepted).not.toContain("cap.flaky");
  });
});

describe("defect 2: trigger ambiguity resolves priority only inside the 0.15 band (selectTrigger)", () => {
  it("0.9 / 0.8 / 0.7 with priorities 0 / 1 / 2: the 0.8 capability wins, the 0.7 one stays last", async () => {
    const tg = await fresh();
    await tg.importCatalog(
      triggerCatalog([
        { id: "cap.a", confidence: 0.9, priority: 0 },
        { id: "cap.b", confidence: 0.8, priority: 1 },
        { id: "cap.c", confidence: 0.7, priority: 2 },
      ]),
    );
    const r = await tg.matchCapabilities({ intent: "ship it", limit: 5 });
    for (const x of r.results) expect(x.breakdown.semantic).toBeLessThan(0.7);
    // Band: 0.9 − 0.8 = 0.1 ≤ 0.15 (in), 0.9 − 0.7 = 0.2 (out). Inside the band, priority 1 beats 0.
    expect(r.results.map((x) => x.capability)).toEqual(["cap.b", "cap.a", "cap.c"]);
    expect(r.results.map((x) => x.score)).toEqual([0.8, 0.9, 0.7].map((c) => expect.closeTo(c, 12)));
    expect(r.trigger).toMatchObject({ winner: "cap.b", reason: "priority", contenders: ["cap.b", "cap.a"] });
  });
});

describe("defect 8: α is a mixing weight, not evidence", () => {
  it("the report's key factors share out semantic, graph and memory only; α stays in the breakdown", async () => {
    const tg = await fresh();
    await tg.importCatalog({
      tools: [
        { id: "git.commit", description: "commit staged changes" },
        { id: "git.push", description: "push the branch to the remote" },
      ],
    });
    await tg.importTraces(
      Array.from({ length: 4 }, (_, i) => ({
        id: `e${i}`,
        startedAt: NOW - 3_600_000,
        success: true,
        steps: [{ tool: "git.commit" }, { tool: "git.push" }],
      })),
    );
    const r = await tg.search({
      intent: "push the branch to the remote",
      context: ["git.commit"],
      explain: true,
      limit: 2,
    });
    const top = r.results[0]!;
    expect(top.tool).toBe("git.push");
    const report = (
      r as {
        report?: {
          json: { keyFactors: { name: string; weight: number }[]; scoreBreakdown: { name: string; value: number }[] };
        };
      }
    ).report!.json;
    expect(report.scoreBreakdown.map((b) => b.name)).toEqual(["semantic", "graph", "memory", "alpha"]);
    expect(report.keyFactors.map((f) => f.name)).not.toContain("alpha");
    // Shares: value / (semantic + graph + memory), over the positive evidence terms only.
    const b = top.breakdown;
    const total = [b.semantic, b.graph, b.memory].filter((x) => x > 0).reduce((s, x) => s + x, 0);
    for (const f of report.keyFactors)
      expect(f.weight).toBeCloseTo((b as unknown as Record<string, number>)[f.name]! / total, 12);
    expect(report.keyFactors.reduce((s, f) => s + f.weight, 0)).toBeCloseTo(1, 12);
  });
});

describe("defect 6: co-occurrence counts each observed succession once", () => {
  it("three a → b (b dependsOn a) and three a → c give P(b|a) = P(c|a) = 3/6 = 0.5", async () => {
    const tg = await fresh();
    await tg.importCatalog({ tools: [{ id: "a" }, { id: "b" }, { id: "c" }] });
    const ex = (id: string, steps: { tool: string; dependsOn?: number[] }[]) => ({
      id,
      startedAt: NOW - 3_600_000,
      success: true,
      steps,
    });
    await tg.importTraces([
      ...[0, 1, 2].map((i) => ex(`ab${i}`, [{ tool: "a" }, { tool: "b", dependsOn: [0] }])),
      ...[0, 1, 2].map((i) => ex(`ac${i}`, [{ tool: "a" }, { tool: "c" }])),
    ]);
    const r = await tg.suggestNext({ context: ["a"], mode: "markov", limit: 5 });
    const cooc = Object.fromEntries(r.suggestions.map((x) => [x.tool, x.terms.cooc.value]));
    expect(cooc.b).toBeCloseTo(0.5, 12);
    expect(cooc.c).toBeCloseTo(0.5, 12);
  });

  /**
   * Mixed: m1 a → b (b dependsOn a: a sequence and a dependency), m2 a → b (a sequence only), m3 a, x, b
   * (b dependsOn a: a dependency only, plus a → x and x → b), m4 a → c. Per type, sequence(a→b) = 2 and
   * dependency(a→b) = 2, so max() gave 2; the successions are 3. Out of a: b 3, x 1, c 1 → 3/5, 1/5, 1/5.
   */
  const mixed = [
    { id: "m1", steps: [{ tool: "a" }, { tool: "b", dependsOn: [0] }] },
    { id: "m2", steps: [{ tool: "a" }, { tool: "b" }] },
    { id: "m3", steps: [{ tool: "a" }, { tool: "x" }, { tool: "b", dependsOn: [0] }] },
    { id: "m4", steps: [{ tool: "a" }, { tool: "c" }] },
  ].map((e) => ({ ...e, startedAt: NOW - 3_600_000, success: true }));
  const expected = { b: 3 / 5, x: 1 / 5, c: 1 / 5 };
  async function coocAfterA(tg: Toolgraph): Promise<Record<string, number>> {
    const r = await tg.suggestNext({ context: ["a"], mode: "markov", limit: 5 });
    return Object.fromEntries(r.suggestions.map((x) => [x.tool, x.terms.cooc.value]));
  }
  function expectMixed(cooc: Record<string, number>): void {
    for (const [tool, p] of Object.entries(expected)) expect(cooc[tool], tool).toBeCloseTo(p, 12);
  }

  it("mixed dependsOn and plain successions of one pair, imported together: P(b|a) = 3/5", async () => {
    const tg = await fresh();
    await tg.importCatalog({ tools: [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "x" }] });
    await tg.importTraces(mixed);
    expectMixed(await coocAfterA(tg));
  });

  it("the same executions recorded one by one in reverse order: the patched and the reloaded graph agree", async () => {
    const tg = await fresh();
    await tg.importCatalog({ tools: [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "x" }] });
    await tg.recordExecution(mixed[3]!);
    await coocAfterA(tg); // the graph is loaded: the next executions are patched into it in place
    for (const e of [mixed[2]!, mixed[1]!, mixed[0]!]) await tg.recordExecution(e);
    expectMixed(await coocAfterA(tg));
    engineOf(tg).invalidate(tg.project);
    expectMixed(await coocAfterA(tg));
  });
});

describe("defect 5: fallback tools are set by the catalog's project settings", () => {
  it("an abstention offers the configured fallbacks; an unknown fallback is rejected naming the field", async () => {
    const tg = await fresh();
    const tools = [
      { id: "general.ask", description: "ask a general assistant anything" },
      { id: "git.push", description: "push the branch to the remote" },
    ];
    await expect(tg.importCatalog({ tools, settings: { fallbackTools: ["nope"] } })).rejects.toThrow(
      /settings\.fallbackTools\[0\].*unknown tool "nope"/,
    );
    const imported = await tg.importCatalog({ tools, settings: { fallbackTools: ["general.ask"] } });
    expect(imported.settings).toEqual({ fallbackTools: ["general.ask"] });
    // An intent sharing no word with any tool: everything scores below the 0.70 threshold → abstained.
    const r = await tg.search({ intent: "zzyzx qwv", limit: 2 });
    expect(r.abstained).toBe(true);
    expect(r.fallbacks).toEqual(["general.ask"]);
    // A later catalog without settings keeps them; an empty list clears them.
    await tg.importCatalog({ tools });
    expect((await tg.search({ intent: "zzyzx qwv", limit: 2 })).fallbacks).toEqual(["general.ask"]);
    await tg.importCatalog({ tools, settings: { fallbackTools: [] } });
    expect((await tg.search({ intent: "zzyzx qwv", limit: 2 })).fallbacks).toEqual([]);
  });
});

describe("defect 3: similar-task success is a property of the task, computed per user when one is given", () => {
  it("anonymous: similar_task_success from everyone's executions; alice: her own 3, new_user wins", async () => {
    const tg = await fresh();
    await tg.importCatalog({ tools: [{ id: "git.push", description: "push the branch to the remote" }] });
    const run = (id: string, user: string) => ({
      id,
      user,
      intent: "push the branch to the remote",
      startedAt: NOW - 3_600_000,
      success: true,
      steps: [{ tool: "git.push" }],
    });
    await tg.importTraces([
      ...[0, 1, 2].map((i) => run(`a${i}`, "alice")),
      ...[0, 1, 2, 3, 4].map((i) => run(`c${i}`, "carol")),
    ]);
    // Anonymous: 8 similar executions (3 alice + 5 carol), all succeeded: 100 % ≥ 80 % → rule 0.60.
    const anon = await tg.search({ intent: "push the branch to the remote", limit: 1 });
    expect(anon.threshold.appliedRules).toEqual(["similar_task_success"]);
    expect(anon.threshold.adjusted).toBe(0.6);
    expect(anon.threshold.reasoning).toContain("Similar tasks succeeded before");
    expect(anon.threshold.reasoning).not.toMatch(/User succeeded/);
    expect(anon.threshold.signals.user).toContain("100% success of 8 similar past executions");
    // alice: her own 3 similar executions (carol's do not count), but 3 tasks < 5 → new_user (9) beats 7.
    const alice = await tg.search({ intent: "push the branch to the remote", user: "alice", limit: 1 });
    expect(alice.threshold.appliedRules).toEqual(["new_user"]);
    expect(alice.threshold.adjusted).toBe(0.75);
    expect(alice.threshold.matchedRules).toEqual(["new_user", "similar_task_success", "simple_task"]);
    expect(alice.threshold.signals.user).toContain("100% success of 3 similar past executions");
    // carol: 5 own tasks (not new), 5 similar → similar_task_success.
    const carol = await tg.search({ intent: "push the branch to the remote", user: "carol", limit: 1 });
    expect(carol.threshold.appliedRules).toEqual(["similar_task_success"]);
    expect(carol.threshold.signals.user).toContain("100% success of 5 similar past executions");
  });
});

describe("defect 7: complexity moves the threshold (the complex_task and simple_task rules)", () => {
  it("a lone intent is simple (→ 0.65); 11 context steps over 5 tools are complex (→ 0.72)", async () => {
    const tg = await fresh();
    const ids = ["t1", "t2", "t3", "t4", "t5"];
    await tg.importCatalog({
      tools: [
        ...ids.map((id) => ({ id, description: `tool ${id}` })),
        { id: "git.push", description: "push the branch to the remote" },
      ],
    });
    // No workflow: complexity = 0.5·0 + 0.25·0 + 0.25·(≤ 1 domain / 3) ≤ 0.083 < 0.3 → simple_task 0.65 (priority 7).
    const simple = await tg.search({ intent: "push the branch to the remote", limit: 1 });
    expect(simple.threshold.appliedRules).toEqual(["simple_task"]);
    expect(simple.threshold.adjusted).toBe(0.65);
    // 11 steps, 5 distinct tools: 0.5·min(11/10, 1) + 0.25·min(5/5, 1) = 0.75 (+ domains) > 0.7 → complex_task 0.72.
    const context = [...ids, ...ids, "t1"];
    const complex = await tg.search({ intent: "push the branch to the remote", context, limit: 1 });
    expect(complex.threshold.appliedRules).toEqual(["complex_task"]);
    expect(complex.threshold.adjusted).toBe(0.72);
  });
});

describe("defect 4: a caller describes the running workflow; the answer shows its detected health", () => {
  it("1 of 5 steps succeeded, 3 replans: OffTrack + AtRisk (+0.10), frustrated, on a timeline", async () => {
    const tg = await fresh();
    const ids = ["a", "b", "c", "d", "e"];
    await tg.importCatalog({
      tools: [
        ...ids.map((id) => ({ id, description: `tool ${id}` })),
        { id: "git.push", description: "push the branch to the remote" },
      ],
    });
    // success 1/5 = 0.2 < 0.5 → OffTrack; replans 3 > 2 → AtRisk; 4 failures in a row > 3 → frustrated.
    // complexity = 0.5·(5/10) + 0.25·(5/5) + 0.25·domains/3 ∈ [0.5, 0.58]: no complexity rule → 0.70 + 2 × 0.05.
    const workflow = { id: "w1", steps: ids.map((tool, i) => ({ tool, success: i === 0 })), replans: 3 };
    const r = await tg.search({ intent: "push the branch to the remote", workflow, explain: true, limit: 1 });
    expect(r.health).toMatchObject({
      taskHealth: "OffTrack",
      atRisk: true,
      offTrack: true,
      userStates: ["frustrated"],
      workflowSuccessRate: 0.2,
      consecutiveFailures: 4,
      workflowId: "w1",
    });
    expect(r.threshold.appliedRules).toEqual([]);
    expect(r.threshold.healthPenalty).toBeCloseTo(0.1, 12);
    expect(r.threshold.adjusted).toBeCloseTo(0.8, 12);
    expect(r.health.timeline).toHaveLength(1);
    const report = (r as { report?: { json: { flags: string[] }; text: string } }).report!;
    expect(report.json.flags).toEqual(expect.arrayContaining(["AtRisk", "OffTrack", "frustrated"]));
    // The same workflow asked again (next step, then capabilities, then plan): its timeline grows.
    const n = await tg.suggestNext({ context: ["a"], workflow, limit: 1 });
    expect(n.health.timeline).toHaveLength(2);
    const m = await tg.matchCapabilities({ intent: "push", workflow, limit: 1 });
    expect(m.health.timeline).toHaveLength(3);
    const p = await tg.plan({ intent: "push the branch to the remote", workflow });
    expect((p as { health?: { timeline?: unknown[] } }).health?.timeline).toHaveLength(4);
    // A healthy workflow: no penalty, OnTrack.
    const ok = await tg.search({
      intent: "push the branch to the remote",
      workflow: { steps: [{ tool: "a", success: true }] },
      limit: 1,
    });
    expect(ok.health).toMatchObject({ taskHealth: "OnTrack", atRisk: false, offTrack: false, userStates: [] });
    expect(ok.threshold.healthPenalty).toBe(0);
  });

  it("a malformed workflow is rejected naming the field", async () => {
    const tg = await fresh();
    await tg.importCatalog({ tools: [{ id: "a" }] });
    await expect(tg.search({ intent: "x", workflow: { steps: [{ tool: "a" }], replans: -1 } })).rejects.toThrow(
      /workflow\.replans/,
    );
    // One formatter for every door: steps[0].tool, never steps.0.tool.
    await expect(tg.search({ intent: "x", workflow: { steps: [{ tool: "" }] } })).rejects.toMatchObject({
      details: { field: "workflow.steps[0].tool" },
    });
  });
});

describe("defects 4 and 5 through the HTTP door (the same request schemas)", () => {
  it("POST /v1/search takes a workflow and shows its health; catalog settings set the fallbacks", async () => {
    const tg = await fresh();
    const { startServer } = await import("../../src/server/http-server.ts");
    const server = await startServer({ api: tg, port: 0, token: "t0k3n-for-tests", log: () => {} });
    try {
      const post = async (path: string, body: unknown) => {
        const res = await fetch(server.url + path, {
          method: "POST",
          headers: { authorization: "Bearer t0k3n-for-tests", "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: res.status, json: (await res.json()) as any };
      };
      const tools = [
        { id: "general.ask", description: "ask a general assistant anything" },
        { id: "a", description: "tool a" },
      ];
      expect((await post("/v1/import/catalog", { tools, settings: { fallbackTools: ["general.ask"] } })).status).toBe(
        200,
      );
      const workflow = { id: "h1", steps: [{ tool: "a", success: false }], replans: 3 };
      const r = await post("/v1/search", { intent: "zzyzx qwv", workflow, limit: 1 });
      expect(r.status).toBe(200);
      // 0 of 1 succeeded → OffTrack; 3 replans → AtRisk: +0.10 on the simple task's 0.65 → 0.75.
      expect(r.json.health).toMatchObject({ taskHealth: "OffTrack", atRisk: true, offTrack: true, workflowId: "h1" });
      expect(r.json.threshold.adjusted).toBeCloseTo(0.75, 12);
      expect(r.json.abstained).toBe(true);
      expect(r.json.fallbacks).toEqual(["general.ask"]);
      const bad = await post("/v1/search", { intent: "x", workflow: { steps: [{ tool: "a", success: "no" }] } });
      expect(bad.status).toBe(400);
      expect(bad.json.error.field).toBe("workflow.steps[0].success");
    } finally {
      await server.close();
    }
  });
});
