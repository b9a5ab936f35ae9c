/**
 * Analytics carried onto a graph of another shape: by id, stale, refreshed in the worker; the event loop never
 * computes Louvain or spectral clustering for it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { engineOf, openToolgraph } from "../../src/library/toolgraph.ts";
import { type Analytics, computeAnalytics } from "../../src/view/analytics.ts";
import { remapAnalytics } from "../../src/view/analytics-remap.ts";
import { backends } from "../helpers/backends.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const backend = backends().at(-1)!;
afterAll(() => backend.dispose());

function shape(tools: string[], caps: string[]) {
  return {
    tools: tools.map((id) => ({ id })),
    index: new Map(tools.map((id, i) => [id, i])),
    capabilities: caps.map((id) => ({ id })),
    capabilityIndex: new Map(caps.map((id, i) => [id, i])),
  };
}

describe("remapAnalytics", () => {
  it("keeps the values of tools and capabilities by id; new ones get 0 and -1; version and time stay", () => {
    const old = {
      version: 4,
      patchCount: 2,
      computedAt: 1000,
      pagerankRaw: Float64Array.from([0.5, 0.3, 0.2]),
      pagerank: Float64Array.from([1, 0.6, 0.4]),
      community: Int32Array.from([0, 1, 1]),
      communityCount: 2,
      modularity: 0.25,
      toolCluster: Int32Array.from([2, 0, 1]),
      capabilityCluster: Int32Array.from([1, 0]),
      spectralK: 3,
      spectralKSource: "eigengap",
      hyperTools: Float64Array.from([0.1, 0.2, 0.3]),
      hyperCapabilities: Float64Array.from([0.15, 0.25]),
      timingsMs: { pagerank: 1, louvain: 2, spectral: 3, hypergraphPagerank: 4, total: 10 },
    } satisfies Analytics;
    // a.b retired, c.d and e.f kept in another order, g.h new; capability x kept, y gone, z new
    const r = remapAnalytics(old, shape(["a.b", "c.d", "e.f"], ["x", "y"]), shape(["e.f", "g.h", "c.d"], ["z", "x"]));
    expect(Array.from(r.pagerankRaw)).toEqual([0.2, 0, 0.3]);
    expect(Array.from(r.pagerank)).toEqual([0.4, 0, 0.6]);
    expect(Array.from(r.community)).toEqual([1, -1, 1]);
    expect(Array.from(r.toolCluster)).toEqual([1, -1, 0]);
    expect(Array.from(r.hyperTools)).toEqual([0.3, 0, 0.2]);
    expect(Array.from(r.capabilityCluster)).toEqual([-1, 1]);
    expect(Array.from(r.hyperCapabilities)).toEqual([0, 0.15]);
    expect([r.version, r.patchCount, r.computedAt, r.communityCount, r.spectralK]).toEqual([4, 2, 1000, 2, 3]);
  });
});

describe("a graph of another shape, with the analytics worker", () => {
  it("answers at once with the carried-over analytics, stale; the worker's refresh then equals the computation", async () => {
    const project = "remap-shape";
    const tg = await openToolgraph({
      ...(await backend.options()),
      project,
      embeddings: "hash:64",
      now: () => NOW,
      analytics: { minRefreshIntervalMs: 60_000, offThread: true },
    });
    try {
      const catalog = demoCatalog() as { tools: { id: string }[]; capabilities?: { id: string }[] };
      await tg.importCatalog(catalog, { embed: false });
      await tg.importTraces(demoTraces(40, 3, NOW));
      const engine = engineOf(tg);
      const before = engine.analyticsCache.get(await engine.snapshot(project)).analytics;
      const old = await engine.snapshot(project);
      const member = catalog.tools[0]!.id;
      await tg.importCatalog(
        {
          tools: [{ id: "extra.new_tool", name: "new_tool", description: "a tool added later" }],
          capabilities: [{ id: "extra.cap", name: "extra", tools: [member, "extra.new_tool"] }],
        },
        { embed: false },
      );
      const s = await engine.snapshot(project);
      expect(s.n).toBe(old.n + 1);
      const view = engine.analyticsCache.get(s);
      expect(view.fresh).toBe(false);
      expect(view.analytics.pagerank.length).toBe(s.n);
      expect(view.analytics.hyperCapabilities.length).toBe(s.capabilities.length);
      const at = (id: string) => s.index.get(id)!;
      expect(view.analytics.community[at(member)]).toBe(before.community[old.index.get(member)!]);
      expect(view.analytics.pagerank[at(member)]).toBe(before.pagerank[old.index.get(member)!]);
      expect(view.analytics.community[at("extra.new_tool")]).toBe(-1);
      // Readers of the new shape work meanwhile (discovery indexes capabilities and clusters).
      expect((await tg.discoverCapabilities({ context: [member] })).results.length).toBeGreaterThan(0);
      const fresh = await engine.analyticsCache.fresh(s);
      expect(fresh.fresh).toBe(true);
      const strip = (a: Analytics) => ({ ...a, timingsMs: undefined, computedAt: undefined });
      expect(strip(fresh.analytics)).toEqual(strip(computeAnalytics(s, NOW)));
      expect(engine.analyticsCache.get(s).fresh).toBe(true);
      expect(engine.analyticsCache.refreshes).toEqual({ worker: 1, inThread: 0 });
    } finally {
      await tg.close();
    }
  });
});

describe("an analytics worker that exits", () => {
  it("is replaced: the next refresh runs in a new worker, not on the event loop", async () => {
    const project = "worker-exit";
    const tg = await openToolgraph({
      ...(await backend.options()),
      project,
      embeddings: "hash:64",
      now: () => NOW,
      analytics: { minRefreshIntervalMs: 60_000, offThread: true },
    });
    try {
      await tg.importCatalog(demoCatalog(), { embed: false });
      await tg.importTraces(demoTraces(40, 3, NOW));
      const engine = engineOf(tg);
      const cache = engine.analyticsCache;
      cache.get(await engine.snapshot(project));
      await tg.importTraces(demoTraces(20, 5, NOW).map((t) => ({ ...t, id: `b-${t.id}` })));
      await cache.fresh(await engine.snapshot(project));
      expect(cache.refreshes).toEqual({ worker: 1, inThread: 0 });
      // The worker goes away (a crash, an out-of-memory exit): the next refresh finds it gone.
      await (cache as unknown as { worker: { stop(): Promise<void> } }).worker.stop();
      await new Promise((r) => setImmediate(r));
      await tg.importTraces(demoTraces(20, 7, NOW).map((t) => ({ ...t, id: `c-${t.id}` })));
      const s = await engine.snapshot(project);
      const view = await cache.fresh(s);
      expect(cache.refreshes).toEqual({ worker: 2, inThread: 0 });
      const strip = (a: Analytics) => ({ ...a, timingsMs: undefined, computedAt: undefined });
      expect(strip(view.analytics)).toEqual(strip(computeAnalytics(s, NOW)));
    } finally {
      await tg.close();
    }
  });
});
