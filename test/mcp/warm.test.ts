/** Warming at start (src/mcp/warm.ts): the model and the read model are loaded before the first request. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/api/toolgraph.ts";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { warmUp } from "../../src/mcp/warm.ts";

let tg: Toolgraph;

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "warm", embeddings: "hash:256" });
  await tg.importCatalog(demoCatalog(), { embed: false });
});

afterAll(async () => {
  await tg?.close();
});

describe("warmUp", () => {
  it("builds the search index and answers one search before reporting warm", async () => {
    expect(await tg.engine.cachedSearchIndex("warm")).toBeUndefined();
    const w = warmUp(tg);
    expect(w.warm).toBe(false);
    await w.done;
    expect(w.warm).toBe(true);
    expect(w.ms).toBeGreaterThan(0);
    expect(w.note).toBeUndefined();
    expect(await tg.engine.cachedSearchIndex("warm")).toBeDefined();
    expect(tg.engine.queryEmbedder.stats().size).toBeGreaterThan(0);
  });

  it("an empty project is warm at once, with the reason", async () => {
    const w = warmUp(tg, "nothing-here");
    await w.done;
    expect(w.warm).toBe(true);
    expect(w.note).toBe("the project has no tools yet");
  });
});
