/**
 * Derived state hangs off the versioned view (view/derived.ts): the same graph version reuses what was
 * derived from it, a new version — an in-place patch by a recorded execution, or a reload — starts fresh,
 * and catalog-scoped state (tool and capability rows only) survives a patch, which never changes them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { toolIoOf } from "../../src/jobs/dag.ts";
import { nextStepModel } from "../../src/jobs/next-scoring.ts";
import { globalSignal } from "../../src/jobs/search-scoring.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { DerivedState, derivedKey } from "../../src/view/derived.ts";
import { pgliteBackend } from "../helpers/backends.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");

describe("DerivedState", () => {
  it("builds a key once per inputs (by identity), rebuilds when they change, and clears by scope", () => {
    const d = new DerivedState();
    const graphKey = derivedKey<{ n: number }>("g");
    const catalogKey = derivedKey<{ n: number }>("c", "catalog");
    let builds = 0;
    const a = {};
    const b = {};
    const first = d.get(graphKey, () => ({ n: ++builds }), [a]);
    expect(d.get(graphKey, () => ({ n: ++builds }), [a])).toBe(first);
    expect(builds).toBe(1);
    const other = d.get(graphKey, () => ({ n: ++builds }), [b]);
    expect(other).not.toBe(first);
    expect(other.n).toBe(2);
    const cat = d.get(catalogKey, () => ({ n: ++builds }));
    expect(d.size).toBe(2);
    d.clear("graph");
    expect(d.has(graphKey)).toBe(false);
    expect(d.get(catalogKey, () => ({ n: ++builds }))).toBe(cat);
    d.clear();
    expect(d.size).toBe(0);
  });

  it("forgets a value only while it is still the one held (a failed promise is built again)", () => {
    const d = new DerivedState();
    const key = derivedKey<{ n: number }>("p");
    let builds = 0;
    const first = d.get(key, () => ({ n: ++builds }));
    d.forget(key, { n: 1 }); // another object: kept
    expect(d.get(key, () => ({ n: ++builds }))).toBe(first);
    d.forget(key, first);
    expect(d.has(key)).toBe(false);
    expect(d.get(key, () => ({ n: ++builds })).n).toBe(2);
  });

  it("keeps two keys of the same name apart (keys compare by identity)", () => {
    const d = new DerivedState();
    const k1 = derivedKey<number>("same");
    const k2 = derivedKey<number>("same");
    expect(d.get(k1, () => 1)).toBe(1);
    expect(d.get(k2, () => 2)).toBe(2);
    expect(d.get(k1, () => 3)).toBe(1);
  });
});

describe("derived state of the graph snapshot", () => {
  const backend = pgliteBackend();
  let tg: Toolgraph;
  const project = "derived";
  beforeAll(async () => {
    tg = await openToolgraph({ ...(await backend.options()), project, embeddings: "hash:64", now: () => NOW });
    await tg.importCatalog(demoCatalog());
    await tg.importTraces(demoTraces(60, 1, NOW));
  });
  afterAll(async () => {
    await tg?.close();
    await backend.dispose();
  });

  it("the same graph version reuses its derived state; a recorded execution (new version) gets fresh state", async () => {
    const s = await engineOf(tg).snapshot(project);
    const a = await engineOf(tg).analytics(project);
    const model = nextStepModel(s, a);
    const global = globalSignal(s, a);
    const io = toolIoOf(s, 0);
    expect(nextStepModel(s, a)).toBe(model);
    expect(globalSignal(s, a)).toBe(global);
    expect(await engineOf(tg).snapshot(project)).toBe(s);

    const version = s.version;
    const [x, y] = [s.tools[0]!.id, s.tools[1]!.id];
    await tg.recordExecution({
      id: "derived-1",
      startedAt: new Date(NOW).toISOString(),
      success: true,
      steps: [{ tool: x }, { tool: y }],
    });
    const patched = await engineOf(tg).snapshot(project);
    expect(patched).toBe(s); // patched in place …
    expect(patched.version).toBe(version + 1); // … to a new graph version
    const a2 = await engineOf(tg).analytics(project);
    expect(a2.analytics).toBe(a.analytics); // stale analytics are still served (refreshed off the request path)
    const model2 = nextStepModel(patched, a2);
    expect(model2).not.toBe(model);
    expect(model2.graph).toBe(patched.csr); // built on the patched graph, not the old one
    expect(globalSignal(patched, a2)).not.toBe(global);
    expect(toolIoOf(patched, 0)).toBe(io); // catalog-scoped: the patch did not touch the tool rows
  });

  it("a reload (another process's write) starts from empty derived state", async () => {
    const s = await engineOf(tg).snapshot(project);
    const a = await engineOf(tg).analytics(project);
    const model = nextStepModel(s, a);
    engineOf(tg).invalidate(project);
    const fresh = await engineOf(tg).snapshot(project);
    expect(fresh).not.toBe(s);
    expect(fresh.version).toBe(s.version);
    const a2 = await engineOf(tg).analytics(project);
    expect(nextStepModel(fresh, a2)).not.toBe(model);
    expect(nextStepModel(s, a)).toBe(model); // the old view keeps its own until it is dropped
  });
});
