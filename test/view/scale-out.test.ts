/**
 * Scale-out: two toolgraph instances (as two `serve` processes would be) on one PostgreSQL database stay
 * coherent — an execution recorded through one is reflected in the other's answers within one second of the
 * other's operational clock (injected: no wall-clock timing in a test).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { SKIP_SERVER, serverBackend } from "../helpers/backends.ts";

describe.skipIf(SKIP_SERVER)("two instances on one PostgreSQL server", () => {
  const backend = serverBackend();
  let a: Toolgraph;
  let b: Toolgraph;
  let bMs = 0;
  beforeAll(async () => {
    const options = await backend.options();
    a = await openToolgraph({ ...options, project: "shared", embeddings: "hash:128" });
    b = await openToolgraph({ ...options, project: "shared", embeddings: "hash:128", clock: () => bMs });
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
      await a.recordExecution({
        id: `so-${i}`,
        startedAt: "2026-11-01T10:00:00Z",
        success: true,
        steps: [{ tool: "calendar.find_free_slot" }, { tool: "docs.create_page" }],
      });
    }
    // One second later on b's operational clock (past its version-check interval): the next answer sees them.
    bMs += 1000;
    const r = await b.suggestNext({ context: ["calendar.find_free_slot"], mode: "seed", limit: 3 });
    expect(r.suggestions[0]?.tool).toBe("docs.create_page");
    expect(r.suggestions[0]?.terms.cooc.value).toBe(1);
  });

  it("a frozen scoring clock does not freeze the version checks (they run on the operational clock)", async () => {
    const options = await backend.options();
    const NOW = Date.parse("2026-11-01T12:00:00Z");
    let ms = 0;
    const frozen = await openToolgraph({
      ...options,
      project: "shared",
      embeddings: "hash:128",
      now: () => NOW,
      clock: () => ms,
      versionCheckMs: 250,
    });
    try {
      const version = async () => (await engineOf(frozen).snapshot("shared")).version;
      const before = await version();
      await a.recordExecution({
        id: "so-frozen",
        startedAt: "2026-11-01T10:00:00Z",
        success: true,
        steps: [{ tool: "calendar.find_free_slot" }, { tool: "docs.create_page" }],
      });
      // Within versionCheckMs of the last check (operational clock): the cached read model answers.
      ms = 100;
      expect(await version()).toBe(before);
      // Past it, the version is checked although the scoring clock has not moved.
      ms = 400;
      expect(await version()).toBeGreaterThan(before);
    } finally {
      await frozen.close();
    }
  });
});
