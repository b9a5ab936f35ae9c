/**
 * Scale-out: two toolgraph instances (as two `serve` processes would be) on one PostgreSQL database stay
 * coherent — an execution recorded through one is reflected in the other's answers within one second.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { SKIP_SERVER, serverBackend } from "../helpers/backends.ts";

describe.skipIf(SKIP_SERVER)("two instances on one PostgreSQL server", () => {
  const backend = serverBackend();
  let a: Toolgraph;
  let b: Toolgraph;
  beforeAll(async () => {
    const options = await backend.options();
    a = await openToolgraph({ ...options, project: "shared", embeddings: "hash:128" });
    b = await openToolgraph({ ...options, project: "shared", embeddings: "hash:128" });
    await a.importCatalog(demoCatalog());
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await backend.dispose();
  });

  it("an execution recorded through one is reflected in the other's answers within one second", async () => {
    const before = await b.suggestNext({ context: ["calendar.find_free_slot"], mode: "seed", limit: 3 });
    expect(before.suggestions.find((x) => x.tool === "docs.create_page")?.terms.cooc.value ?? 0).toBe(0);
    for (let i = 0; i < 3; i++) {
      await a.recordExecution({ id: `so-${i}`, startedAt: "2026-11-01T10:00:00Z", success: true, steps: [{ tool: "calendar.find_free_slot" }, { tool: "docs.create_page" }] });
    }
    const t0 = Date.now();
    let seen = false;
    while (Date.now() - t0 < 1000 && !seen) {
      const r = await b.suggestNext({ context: ["calendar.find_free_slot"], mode: "seed", limit: 3 });
      seen = r.suggestions[0]?.tool === "docs.create_page" && r.suggestions[0].terms.cooc.value === 1;
      if (!seen) await new Promise((res) => setTimeout(res, 50));
    }
    expect(seen).toBe(true);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
