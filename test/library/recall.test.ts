/**
 * The library-only reads and writes the benches use in place of internals (docs/decisions/layout.md):
 * `recall` (the intent memory on its own) and `setSearchWeights` (pin a project's search weights). Neither is an
 * operation of the table, so no HTTP, MCP or CLI request reaches them.
 */
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/contract/operations.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const REPORT = "prepare the quarterly widget report";

async function project(tg: Toolgraph, project: string): Promise<void> {
  await tg.importCatalog(
    {
      tools: [
        { id: "a.alpha", description: "reads the weather forecast" },
        { id: "b.beta", description: "plays a song" },
        { id: "c.gamma", description: "sends an email" },
      ],
      capabilities: [{ id: "reporting", description: "builds reports", tools: ["b.beta"] }],
    },
    { project },
  );
  await tg.importTraces(
    [
      ...Array.from({ length: 3 }, (_, i) => ({
        id: `r${i}`,
        intent: REPORT,
        user: i === 0 ? "ann" : "bob",
        capability: "reporting",
        startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        success: true,
        steps: [{ tool: "b.beta" }],
      })),
      {
        id: "r3",
        intent: "mail the invoice to the customer",
        startedAt: new Date(Date.UTC(2026, 0, 1, 1)).toISOString(),
        success: true,
        steps: [{ tool: "c.gamma" }],
      },
    ],
    { project },
  );
  await tg.settle({ project });
}

async function open(): Promise<Toolgraph> {
  return openToolgraph({
    home: "memory://",
    database: "",
    project: "recall",
    embeddings: "hash:256",
    now: () => Date.UTC(2026, 0, 2),
    recommendationLog: { enabled: false },
  });
}

describe("recall", () => {
  it("is silent on a project without history", async () => {
    const tg = await open();
    try {
      await tg.importCatalog({ tools: [{ id: "a.alpha", description: "reads the weather forecast" }] });
      expect(await tg.recall(REPORT)).toEqual({
        similarity: null,
        past: [],
        tools: [],
        capabilities: [],
        similarSuccess: null,
      });
    } finally {
      await tg.close();
    }
  });

  it("answers the past executions of the same intent first, most recent first, and their tool's vote", async () => {
    const tg = await open();
    try {
      await project(tg, "recall");
      const r = await tg.recall(REPORT);
      // The same text is indexed once: its three executions share one similarity, the highest.
      expect(r.past.slice(0, 3).map((p) => p.executionId)).toEqual(["r2", "r1", "r0"]);
      for (const p of r.past.slice(0, 3)) {
        expect(p.similarity).toBe(r.past[0]!.similarity);
        expect(p.taskSimilarity).toBe(r.past[0]!.taskSimilarity);
        expect(p.steps).toEqual([{ tool: "b.beta", success: true }]);
      }
      expect(r.past[0]!.similarity).toBeGreaterThan(0.9);
      for (const p of r.past.slice(3)) expect(p.similarity).toBeLessThan(r.past[0]!.similarity);
      expect(r.similarity).toBe(r.past[0]!.similarity);
      // The best tool's normalised vote is 1, scaled by the best similarity.
      expect(r.tools[0]!.tool).toBe("b.beta");
      expect(r.tools[0]!.vote).toBeCloseTo(r.similarity!, 12);
      expect(r.tools[0]!.explanation).toBe("memory: used in 3 similar past requests, 3 succeeded");
      expect(r.capabilities[0]!.capability).toBe("reporting");
      expect(r.capabilities[0]!.vote).toBeCloseTo(r.similarity!, 12);
      expect(r.similarSuccess!.rate).toBe(1);
      for (let i = 1; i < r.past.length; i++)
        expect(r.past[i]!.similarity).toBeLessThanOrEqual(r.past[i - 1]!.similarity);
    } finally {
      await tg.close();
    }
  });

  it("leaves out excluded executions and other users' ones", async () => {
    const tg = await open();
    try {
      await project(tg, "recall");
      const held = await tg.recall(REPORT, { excludeIds: new Set(["r1", "r2"]) });
      expect(held.past.map((p) => p.executionId)).not.toContain("r1");
      expect(held.past[0]!.executionId).toBe("r0");
      const ann = await tg.recall(REPORT, { user: "ann" });
      expect(ann.past.map((p) => p.executionId)).toEqual(["r0"]);
      expect(ann.past[0]!.user).toBe("ann");
      const [v] = await (await tg.searchModel()).embed([REPORT]);
      expect(await tg.recall(REPORT, { vector: v! })).toEqual(await tg.recall(REPORT));
      const one = await tg.recall(REPORT, { k: 1 });
      expect(one.past.map((p) => p.executionId)).toEqual(["r2"]);
    } finally {
      await tg.close();
    }
  });

  it("refuses bad input naming the field", async () => {
    const tg = await open();
    try {
      await expect(tg.recall("  ")).rejects.toThrow(/^intent: /);
      await expect(tg.recall(REPORT, { k: 0 })).rejects.toThrow(/^k: /);
      await expect(tg.recall(REPORT, { vector: new Float32Array(3) })).rejects.toThrow(/^vector: /);
    } finally {
      await tg.close();
    }
  });
});

describe("setSearchWeights", () => {
  it("pins the weights: in force in stats, and the memory no longer lifts a search with μ 0", async () => {
    const tg = await open();
    try {
      await project(tg, "pinned");
      const w = await tg.setSearchWeights({ memoryWeight: 0, historyGuard: 0.5 }, { project: "pinned" });
      expect(w).toEqual({ beta: 0.5, memoryWeight: 0, contentWeight: 1, graphWeight: 1, historyGuard: 0.5 });
      const learning = (await tg.stats({ project: "pinned" })).learning.searchWeights;
      expect(learning.inForce).toEqual(w);
      expect(learning.fit).toMatchObject({ accepted: true, reason: "set by the caller", after: w });
      const pinned = await tg.search({ intent: REPORT, limit: 3, project: "pinned" });
      await project(tg, "free");
      const free = await tg.search({ intent: REPORT, limit: 3, project: "free" });
      const beta = (r: typeof free) => r.results.find((x) => x.tool === "b.beta")!.score;
      expect(beta(free)).toBeGreaterThan(beta(pinned));
    } finally {
      await tg.close();
    }
  });

  it("refuses a weight out of bounds or unknown, naming it", async () => {
    const tg = await open();
    try {
      await expect(tg.setSearchWeights({ beta: 2 })).rejects.toThrow(/^beta: a number in \[0, 1\]/);
      await expect(tg.setSearchWeights({ graphWeight: Number.NaN })).rejects.toThrow(/^graphWeight: /);
      await expect(tg.setSearchWeights({ gamma: 1 } as object)).rejects.toThrow(/^gamma: not a search weight/);
    } finally {
      await tg.close();
    }
  });

  it("neither is an operation of the table (no door serves them)", () => {
    const names = Object.values(OPERATIONS).map((o) => o.name as string);
    expect(names).not.toContain("recall");
    expect(names).not.toContain("setSearchWeights");
  });
});
