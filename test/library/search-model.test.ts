/**
 * `Toolgraph.searchModel` (library-only): the project's search read model as the ranking core takes it. The core
 * (algorithms/search/rank-candidates.ts) is the one the search job calls, so on a project whose answers the job
 * does not post-process (no history, no routing) both give the same tools with the same scores.
 */
import { describe, expect, it } from "vitest";
import { rankCandidates } from "../../algorithms/search/rank-candidates.ts";
import { demoCatalog } from "../../src/demo/index.ts";
import { openToolgraph } from "../../src/library/toolgraph.ts";

describe("searchModel", () => {
  it("ranks as the search job does on a project without history", async () => {
    const tg = await openToolgraph({
      home: "memory://",
      database: "",
      project: "model",
      embeddings: "hash:256",
      resultCacheSize: 0,
      recommendationLog: { enabled: false },
    });
    try {
      await tg.importCatalog(demoCatalog());
      const model = await tg.searchModel();
      expect(model.tools.length).toBe(model.data.n);
      expect(model.data.globalSignal()).toBe(model.data.globalSignal()); // memoised per graph state
      for (const intent of ["send an email to the team", "read a file from disk", "create a github issue"]) {
        const job = await tg.search({ intent, limit: 5 });
        const [v] = await model.embed([intent]);
        const core = rankCandidates(model.data, intent, v!, { top: 5 });
        expect(core.map((h) => model.tools[h.index])).toEqual(job.results.map((r) => r.tool));
        expect(core.map((h) => h.final)).toEqual(job.results.map((r) => r.score));
      }
    } finally {
      await tg.close();
    }
  });
});
