/**
 * Toolgraph.settle: requests answer from the previous analytics and intent memory while their refresh runs in
 * the background; after settle() the answers reflect every write so far.
 */
import { describe, expect, it } from "vitest";
import { openToolgraph } from "../../src/library/toolgraph.ts";

describe("settle", () => {
  it("after importTraces, the intent memory votes at once once settled (and not before)", async () => {
    const tg = await openToolgraph({ home: "memory://", database: "", project: "settle", embeddings: "hash:256" });
    try {
      await tg.importCatalog({
        tools: [
          { id: "a.alpha", description: "reads the weather forecast" },
          { id: "b.beta", description: "plays a song" },
        ],
      });
      const intent = "prepare the quarterly widget report";
      const before = await tg.search({ intent, limit: 2 }); // builds the memory (empty) and the analytics
      expect(before.results.every((r) => r.breakdown.memory === 0)).toBe(true);
      await tg.importTraces(
        Array.from({ length: 8 }, (_, i) => ({
          id: `r${i}`,
          intent,
          startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
          success: true,
          steps: [{ tool: "b.beta" }],
        })),
      );
      const stale = await tg.search({ intent, limit: 2 });
      expect(stale.results.find((r) => r.tool === "b.beta")!.breakdown.memory).toBe(0); // the previous memory
      await tg.settle();
      const settled = await tg.search({ intent, limit: 2 });
      expect(settled.results[0]!.tool).toBe("b.beta");
      expect(settled.results[0]!.breakdown.memory).toBeGreaterThan(0);
    } finally {
      await tg.close();
    }
  });
});
