/**
 * Answering at once while a catalog is embedded (answerWhileEmbedding "lexical"): with the embedding model held
 * back (a provider that waits until the test releases it: the stand-in for a local model busy with thousands of
 * tool texts), a search and a next step with an intent answer without waiting for the model — the search from the
 * lexical and graph channels, saying so, and both without the intent memory, whose first build embeds the past
 * intents, and without graph analytics computed on the event loop (their worker computes them). Once the model is released and the history settled, the same search ranks with every channel and the
 * memory votes.
 */
import { describe, expect, it } from "vitest";
import { openToolgraph } from "../../src/library/toolgraph.ts";
import { heldProvider } from "../helpers/held-embeddings.ts";

describe("answering at once while the catalog is embedded", () => {
  it("search and next answer with the model held; after settle, every channel and the memory", async () => {
    const provider = heldProvider();
    const tg = await openToolgraph({ home: "memory://", database: "", project: "at-once", embeddings: provider });
    try {
      tg.answerWhileEmbedding("lexical");
      await tg.importCatalog(
        {
          tools: [
            { id: "fs.read_file", description: "read a file from the workspace" },
            { id: "report.render", description: "render the quarterly widget report as a PDF" },
            { id: "mail.send", description: "send an email message" },
          ],
        },
        { embed: false },
      );
      const intent = "prepare the quarterly widget report";
      await tg.importTraces(
        Array.from({ length: 6 }, (_, i) => ({
          id: `r${i}`,
          intent,
          startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
          success: true,
          steps: [{ tool: "fs.read_file" }, { tool: "report.render" }, { tool: "mail.send" }],
        })),
      );
      // The model has not answered once: these resolve only if neither waits for it (else the test times out).
      const first = await tg.search({ intent, limit: 3 });
      expect(first.degraded).toBe("embedding");
      expect(first.channels).toEqual({ lexical: true, embedding: false, graph: true });
      expect(first.results[0]!.tool).toBe("report.render");
      expect(first.memory.neighbours).toBe(0);
      expect(first.memory.reason).toMatch(/intent memory is still being built/);
      // Nor were the graph analytics computed on the event loop: none yet, computed in their worker.
      expect(first.analytics.fresh).toBe(false);
      const next = await tg.suggestNext({ context: ["fs.read_file"], intent, limit: 2 });
      expect(next.suggestions[0]!.tool).toBe("report.render"); // the graph's transition, learned at import

      provider.release();
      await tg.prepareSearch();
      await tg.settle();
      const full = await tg.search({ intent, limit: 3 });
      expect(full.degraded).toBeUndefined();
      expect(full.analytics.fresh).toBe(true);
      expect(full.channels.embedding).toBe(true);
      expect(full.memory.neighbours).toBeGreaterThan(0);
      expect(full.results[0]!.tool).toBe("report.render");
      expect(full.results[0]!.breakdown.memory).toBeGreaterThan(0);
    } finally {
      provider.release();
      await tg.close();
    }
  });
});
