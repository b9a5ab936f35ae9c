/**
 * Issue 16: the answers users get through `openToolgraph(...)` follow the seeds, checked on small catalogs
 * whose expected numbers are computed by hand (one `describe` per defect found on the user path).
 */
import { afterEach, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/api/toolgraph.ts";

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
 * A trigger pattern of exactly `confidence` (seed 004): one pattern of source length L matched alone gives
 * min(1, 0.3 + L/100) / max(1, 0.3·1) = 0.3 + L/100; "ship" followed by k optional "x?" has L = 4 + 2k.
 */
function patternOf(confidence: number): string {
  const k = Math.round(((confidence - 0.3) * 100 - 4) / 2);
  return `ship${"x?".repeat(k)}`;
}

/** Tools and capabilities whose texts share no word with "ship it": the semantic side stays small. */
function triggerCatalog(caps: { id: string; confidence: number; priority: number }[]) {
  return {
    tools: caps.map((c, i) => ({ id: `t.${c.id}`, description: ["alpha beta", "gamma delta", "epsilon zeta", "eta theta"][i % 4]! })),
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
    await tg.importCatalog(triggerCatalog([
      { id: "cap.flaky", confidence: 0.9, priority: 0 },
      { id: "cap.sound", confidence: 0.5, priority: 0 },
    ]));
    // cap.flaky: 5 executions, 1 succeeded → success 20 % < 50 % → reliability 0.1 (seed 003 §3.1).
    await tg.importTraces(
      Array.from({ length: 5 }, (_, i) => ({ id: `e${i}`, capability: "cap.flaky", startedAt: NOW - 3_600_000, success: i === 0, steps: [{ tool: "t.cap.flaky" }] })),
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
    await tg.importCatalog(triggerCatalog([
      { id: "cap.a", confidence: 0.9, priority: 0 },
      { id: "cap.b", confidence: 0.8, priority: 1 },
      { id: "cap.c", confidence: 0.7, priority: 2 },
    ]));
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
      Array.from({ length: 4 }, (_, i) => ({ id: `e${i}`, startedAt: NOW - 3_600_000, success: true, steps: [{ tool: "git.commit" }, { tool: "git.push" }] })),
    );
    const r = await tg.search({ intent: "push the branch to the remote", context: ["git.commit"], explain: true, limit: 2 });
    const top = r.results[0]!;
    expect(top.tool).toBe("git.push");
    const report = (r as { report?: { json: { keyFactors: { name: string; weight: number }[]; scoreBreakdown: { name: string; value: number }[] } } }).report!.json;
    expect(report.scoreBreakdown.map((b) => b.name)).toEqual(["semantic", "graph", "memory", "alpha"]);
    expect(report.keyFactors.map((f) => f.name)).not.toContain("alpha");
    // Shares: value / (semantic + graph + memory), over the positive evidence terms only.
    const b = top.breakdown;
    const total = [b.semantic, b.graph, b.memory].filter((x) => x > 0).reduce((s, x) => s + x, 0);
    for (const f of report.keyFactors) expect(f.weight).toBeCloseTo((b as unknown as Record<string, number>)[f.name]! / total, 12);
    expect(report.keyFactors.reduce((s, f) => s + f.weight, 0)).toBeCloseTo(1, 12);
  });
});
