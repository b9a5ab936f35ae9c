/**
 * A library caller's mask of tools (src/jobs/tool-mask.ts): the scorers skip masked tools, so an answer keeps
 * its `limit` of unmasked items even when the mask holds every tool the unmasked answer had.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { exclusionOf, ToolMask, unmaskedIndices } from "../../src/jobs/tool-mask.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

describe("ToolMask helpers", () => {
  const tools = ["a", "b", "c", "d", "e"].map((id) => ({ id }));
  const mask = new ToolMask("k", ["b", "d", "zz"]);

  it("the unmasked indices, within a route when given; none masked leaves the route as it is", () => {
    expect(Array.from(unmaskedIndices(tools, mask)!)).toEqual([0, 2, 4]);
    expect(Array.from(unmaskedIndices(tools, mask, Int32Array.from([1, 2, 3]))!)).toEqual([2]);
    expect(unmaskedIndices(tools, undefined)).toBeUndefined();
    const route = Int32Array.from([3]);
    expect(unmaskedIndices(tools, new ToolMask("empty", []), route)).toBe(route);
  });

  it("a request excludes its exclude ids and its mask's; the mask serializes as its key", () => {
    const ex = exclusionOf({ exclude: ["a"], deny: mask });
    expect(["a", "b", "c", "d", "zz"].map((id) => ex.has(id))).toEqual([true, true, false, true, true]);
    expect(exclusionOf({}).size).toBe(0);
    expect(JSON.stringify({ deny: mask })).toBe('{"deny":"tool mask k"}');
  });
});

describe("the next step with a mask", () => {
  const NOW = Date.parse("2026-11-01T12:00:00Z");
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({
      home: "memory://",
      project: "mask-next",
      embeddings: "hash:64",
      now: () => NOW,
      resultCacheSize: 0,
      recommendationLog: { enabled: false },
    });
    await tg.importCatalog(demoCatalog());
    await tg.importTraces(demoTraces(300, 3, NOW));
  }, 180_000);
  afterAll(async () => {
    await tg?.close();
  });

  it("masking the whole unmasked answer still answers `limit` other tools, none of them masked", async () => {
    const context = ["web.search"];
    const open = await tg.suggestNext({ context, limit: 3 });
    const first = open.suggestions.map((s) => s.tool);
    expect(first).toHaveLength(3);
    const masked = await tg.suggestNext({ context, limit: 3, deny: new ToolMask("top3", first) });
    const second = masked.suggestions.map((s) => s.tool);
    expect(second).toHaveLength(3);
    expect(second.filter((t) => first.includes(t))).toEqual([]);
  });
});
