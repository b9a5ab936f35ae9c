/**
 * A write that invalidates a project's read model while a load of it is in flight: the next read must not be
 * answered by that load (it may have read the rows before the write), and the stale load must not be cached.
 * This is how a retired tool's stored vectors were kept: the sweep invalidated, then asked for the snapshot,
 * and got the one a concurrent search had started loading before the retirement.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

let tg: Toolgraph;
const tool = (id: string) => ({ id, name: id, description: `the ${id} tool`, inputSchema: { type: "object" } });

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "inv", embeddings: "hash:64" });
  await tg.importCatalog({ tools: [tool("a.one"), tool("a.two")] });
});

afterAll(async () => {
  await tg?.close();
});

describe("snapshot loads and invalidation", () => {
  it("a load started before an invalidation neither answers nor is cached after it", async () => {
    const e = engineOf(tg);
    e.invalidate("inv");
    const first = e.snapshot("inv"); // in flight
    e.invalidate("inv"); // a write happened meanwhile
    const second = e.snapshot("inv");
    const [s1, s2] = await Promise.all([first, second]);
    expect(s2).not.toBe(s1);
    expect(e.cachedSnapshot("inv")).toBe(s2);
  });

  it("two reads within one generation share one load", async () => {
    const e = engineOf(tg);
    e.invalidate("inv");
    const [s1, s2] = await Promise.all([e.snapshot("inv"), e.snapshot("inv")]);
    expect(s2).toBe(s1);
  });

  it("a catalog write during an in-flight load is seen by the next read", async () => {
    const e = engineOf(tg);
    e.invalidate("inv");
    const stale = e.snapshot("inv");
    await tg.importCatalog({ tools: [tool("a.three")] }); // invalidates on its own
    const fresh = await e.snapshot("inv");
    await stale;
    expect(fresh.tools.map((t) => t.id).sort()).toEqual(["a.one", "a.three", "a.two"]);
  });
});
