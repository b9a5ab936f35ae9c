/**
 * Safety tags on answers: every search and next-step item carries its tool's safety tags, and a tool tagged
 * `suspicious` is never accepted outright (the gate caps it at accepted-with-caution and says why), on the
 * library, HTTP and MCP alike (they all return the job's answer).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

let tg: Toolgraph;
beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "safety", embeddings: "hash:256" });
  await tg.importCatalog({
    tools: [
      {
        id: "ops.deploy",
        description: "deploy the application to production",
        safetyTags: ["destructive", "suspicious"],
      },
      { id: "ops.deploy_safe", description: "deploy the application to production", safetyTags: ["destructive"] },
      { id: "ops.status", description: "show the deployment status" },
    ],
  });
  await tg.importTraces(
    Array.from({ length: 12 }, (_, i) => ({
      id: `r${i}`,
      intent: "deploy the application to production",
      startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      success: true,
      steps: [{ tool: "ops.status" }, { tool: i % 2 ? "ops.deploy" : "ops.deploy_safe" }],
    })),
  );
}, 120_000);
afterAll(async () => tg?.close());

describe("safety tags on answers", () => {
  it("search: the suspicious twin of an accepted tool is capped at caution with the reason", async () => {
    const r = await tg.search({ intent: "deploy the application to production", limit: 3 });
    const item = (id: string) => r.results.find((x) => x.tool === id)!;
    expect(item("ops.deploy").safetyTags).toEqual(["destructive", "suspicious"]);
    expect(item("ops.deploy_safe").safetyTags).toEqual(["destructive"]);
    expect(item("ops.status").safetyTags).toEqual([]);
    expect(item("ops.deploy_safe").gate.decision).toBe("accepted");
    expect(item("ops.deploy").gate).toMatchObject({
      decision: "accepted-with-caution",
      caution: true,
      reason: expect.stringContaining("suspicious"),
    });
  });

  it("next step: items carry their tags and the suspicious one is never accepted", async () => {
    const r = await tg.suggestNext({ context: ["ops.status"], limit: 3 });
    for (const s of r.suggestions) {
      expect(Array.isArray(s.safetyTags)).toBe(true);
      if (s.safetyTags.includes("suspicious")) expect(s.gate.decision).not.toBe("accepted");
    }
    expect(r.suggestions.map((s) => s.tool)).toContain("ops.deploy");
  });
});
