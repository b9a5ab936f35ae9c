import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { pgliteBackend } from "../helpers/backends.ts";

/**
 * A tool that arrives after the traffic it would have served stays findable; a tool that was there all along
 * and was never chosen by that traffic is the history's call. Through the library's public API.
 *
 * Twelve past runs of the same request used git.status, git.push and monitor.alerts (votes of 1 each: they
 * hold the top 3 on a repeat). ops.restore_a (in the catalog from the start, never run) and ops.restore_b
 * (imported after the runs) have the same description, sharing the request's words: they tie on BM25 and on
 * cosine, so neither is the best lexical-and-semantic match; they are the first two by content, restore_a
 * first (ties go to the lower index, ids in order). Before restore_b arrives, restore_a alone is the best match
 * and is kept in the top 3 as such.
 */
const REQUEST = "the release broke production, revert it";
const RESTORE = "bring back the previous release";

describe("search: the never-run description anchor and the history's evidence", () => {
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({ ...(await pgliteBackend().options()), project: "anchor", embeddings: "hash:256" });
    await tg.importCatalog({
      tools: [
        { id: "git.status", description: "show the working tree status" },
        { id: "git.push", description: "push local commits to the remote" },
        { id: "monitor.alerts", description: "list the alerts that are firing" },
        { id: "ops.restore_a", description: RESTORE },
      ],
    });
    const t0 = Date.now() - 3_600_000;
    await tg.importTraces(
      Array.from({ length: 12 }, (_, i) => ({
        id: `run-${i}`,
        intent: REQUEST,
        startedAt: new Date(t0 + i * 60_000).toISOString(),
        success: true,
        steps: ["git.status", "git.push", "monitor.alerts"].map((tool) => ({ tool, success: true })),
      })),
    );
    await tg.settle();
  }, 120_000);
  afterAll(async () => {
    await tg?.close();
  });

  const top3 = async (intent: string) =>
    ((await tg.search({ intent, limit: 3 })) as { results: { tool: string; explanation: string }[] }).results;

  it("the best lexical-and-semantic match is kept in the top 3 even on a repeat", async () => {
    expect((await top3(REQUEST)).map((x) => x.tool)).toContain("ops.restore_a");
  });

  it("on a repeat, a tool imported after those runs is kept in the top 3; one there during them is not", async () => {
    await tg.importCatalog({ tools: [{ id: "ops.restore_b", description: RESTORE }] });
    await tg.settle();
    const r = await top3(REQUEST);
    expect(r.map((x) => x.tool)).toContain("ops.restore_b");
    expect(r.map((x) => x.tool)).not.toContain("ops.restore_a");
    const item = r.find((x) => x.tool === "ops.restore_b")!;
    expect(item.explanation).toMatch(
      /kept in the top 3: its description is among the 3 best matches and it has never run/,
    );
  });

  it("on a request that repeats nothing, the first never-run tool by content is kept (the history cannot judge it)", async () => {
    const r = await top3("bring a release back");
    expect(r.map((x) => x.tool)).toContain("ops.restore_a");
  });
});
