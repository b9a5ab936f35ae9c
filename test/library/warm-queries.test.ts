/**
 * A query text given at open (EngineOptions.warmQueries) is embedded while the database opens, so the request
 * that follows finds its vector in the query cache instead of embedding it again.
 */
import { describe, expect, it } from "vitest";
import { engineOf, openToolgraph } from "../../src/library/toolgraph.ts";

describe("warmQueries", () => {
  it("embeds the texts at open; the search that follows answers from the query cache", {
    timeout: 60_000,
  }, async () => {
    const tg = await openToolgraph({
      home: "memory://",
      database: "",
      embeddings: "hash:64",
      warmQueries: ["roll back the deploy", "   "],
    });
    try {
      // Only the non-blank text was embedded, once.
      expect(engineOf(tg).queryEmbedder.stats()).toMatchObject({ size: 1, misses: 1, hits: 0 });
      await tg.importCatalog({ tools: [{ id: "ci.rollback", description: "Roll back a deploy" }] });
      const r = await tg.search({ intent: "roll back the deploy" });
      expect(r.results[0]?.tool).toBe("ci.rollback");
      expect(engineOf(tg).queryEmbedder.stats()).toMatchObject({ size: 1, misses: 1, hits: 1 });
    } finally {
      await tg.close();
    }
  });

  it("an open that fails still fails with its own error after warming", { timeout: 60_000 }, async () => {
    await expect(
      openToolgraph({ database: "mysql://x@localhost/db", embeddings: "hash:64", warmQueries: ["a query"] }),
    ).rejects.toThrow(/not a PostgreSQL URL/);
  });
});
