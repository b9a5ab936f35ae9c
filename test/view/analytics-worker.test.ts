/**
 * Background analytics refreshes run in a worker thread and give exactly what the main thread computes.
 * On the PostgreSQL server when there is one (a schema opens in ms; an in-memory PGlite is an initdb, tens of
 * seconds on a busy machine), each test on its own project.
 */
import { afterAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { engineOf, openToolgraph } from "../../src/library/toolgraph.ts";
import { computeAnalytics } from "../../src/view/analytics.ts";
import { backends } from "../helpers/backends.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const backend = backends().at(-1)!;
afterAll(() => backend.dispose());

async function waitFresh(get: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await get()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("analytics never became fresh");
}

for (const offThread of [true, false]) {
  describe(`stale analytics refresh ${offThread ? "in the worker thread" : "on the event loop"}`, () => {
    it("a stale read answers at once, then the refresh lands and equals the main thread's computation", async () => {
      const tg = await openToolgraph({
        ...(await backend.options()),
        project: `aw-${offThread}`,
        embeddings: "hash:64",
        now: () => NOW,
        analytics: { minRefreshIntervalMs: 0, offThread },
      });
      try {
        await tg.importCatalog(demoCatalog(), { embed: false });
        await tg.importTraces(demoTraces(120, 3, NOW));
        const first = await engineOf(tg).analytics(`aw-${offThread}`);
        expect(first.fresh).toBe(true);
        await tg.importTraces(demoTraces(60, 9, NOW).map((t) => ({ ...t, id: `more-${t.id}` })));
        const stale = await engineOf(tg).analytics(`aw-${offThread}`);
        expect(stale.fresh).toBe(false);
        expect(stale.analytics).toBe(first.analytics);
        await waitFresh(async () => (await engineOf(tg).analytics(`aw-${offThread}`)).fresh);
        const cache = engineOf(tg).analyticsCache;
        expect(cache.refreshes).toEqual(offThread ? { worker: 1, inThread: 0 } : { worker: 0, inThread: 1 });
        const got = (await engineOf(tg).analytics(`aw-${offThread}`)).analytics;
        const s = await engineOf(tg).snapshot(`aw-${offThread}`);
        const want = computeAnalytics(s, NOW);
        const strip = (a: typeof got) => ({ ...a, timingsMs: undefined, computedAt: undefined });
        expect(strip(got)).toEqual(strip(want));
        expect(got.version).toBe(s.version);
      } finally {
        await tg.close();
      }
    });
  });
}

describe("analytics whose shape no longer fits the graph", () => {
  it("a catalog that adds a capability recomputes at once: discovery never sees arrays of another length", async () => {
    const tg = await openToolgraph({
      ...(await backend.options()),
      project: "shape",
      embeddings: "hash:64",
      now: () => NOW,
      analytics: { minRefreshIntervalMs: 60_000, offThread: false },
    });
    try {
      const catalog = demoCatalog();
      await tg.importCatalog(catalog, { embed: false });
      await tg.importTraces(demoTraces(40, 3, NOW));
      const before = (await engineOf(tg).analytics("shape")).analytics;
      const caps = (catalog as { capabilities?: { id: string }[] }).capabilities ?? [];
      expect(before.hyperCapabilities.length).toBe(caps.length);
      // Same tools, one more capability: the tool count is unchanged, the capability count is not.
      const member = (catalog as { tools: { id: string }[] }).tools[0]!.id;
      await tg.importCatalog(
        { tools: [], capabilities: [{ id: "extra.cap", name: "extra", tools: [member] }] },
        { embed: false },
      );
      const s = await engineOf(tg).snapshot("shape");
      const view = await engineOf(tg).analytics("shape");
      expect(s.capabilities.length).toBe(caps.length + 1);
      expect(view.analytics.hyperCapabilities.length).toBe(s.capabilities.length);
      expect(view.analytics.capabilityCluster.length).toBe(s.capabilities.length);
      const r = await tg.discoverCapabilities({ context: [member] });
      expect(r.results.length).toBeGreaterThan(0);
    } finally {
      await tg.close();
    }
  });
});
