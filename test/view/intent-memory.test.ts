import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { groupByText, memoryIndex } from "../../src/view/intent-memory.ts";
import { recallMemory } from "../../src/view/memory-recall.ts";
import { backends, freshProject } from "../helpers/backends.ts";

describe("groupByText", () => {
  it("indexes each distinct text once, its rows most recent (last) first", () => {
    const g = groupByText(["a", "b", "a", "c", "a", "b"]);
    expect(g.texts).toEqual(["a", "b", "c"]);
    expect(Array.from(g.memberOffsets)).toEqual([0, 3, 5, 6]);
    expect(Array.from(g.members)).toEqual([4, 2, 0, 5, 1, 3]);
  });
  it("empty input", () => {
    const g = groupByText([]);
    expect(g.texts).toEqual([]);
    expect(Array.from(g.memberOffsets)).toEqual([0]);
  });
});

const NOW = Date.parse("2026-11-01T12:00:00Z");

for (const backend of backends()) {
  describe(`recall over repeated intents on ${backend.name}`, () => {
    // The database opens in a hook (hook timeout 120 s): a PGlite open is slow on a busy machine.
    let tg: Toolgraph;
    beforeAll(async () => {
      tg = await openToolgraph({
        ...(await backend.options()),
        project: freshProject("mem"),
        embeddings: "hash:128",
        now: () => NOW,
      });
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("indexes a repeated intent once and expands it into its executions, most recent first, honouring user and exclusions", async () => {
      await tg.importCatalog({
        tools: [
          { id: "git.commit", description: "Record staged changes" },
          { id: "git.push", description: "Push commits to the remote" },
          { id: "mail.send", description: "Send an email" },
        ],
      });
      const at = (h: number) => new Date(NOW - h * 3_600_000).toISOString();
      await tg.importTraces([
        {
          id: "e1",
          user: "ana",
          intent: "ship my change",
          startedAt: at(30),
          success: true,
          steps: [
            { tool: "git.commit", success: true },
            { tool: "git.push", success: true },
          ],
        },
        {
          id: "e2",
          user: "bob",
          intent: "ship my change",
          startedAt: at(20),
          success: true,
          steps: [
            { tool: "git.commit", success: true },
            { tool: "git.push", success: true },
          ],
        },
        {
          id: "e3",
          user: "ana",
          intent: "ship my change",
          startedAt: at(10),
          success: true,
          steps: [{ tool: "git.commit", success: true }],
        },
        {
          id: "e4",
          user: "ana",
          intent: "email the weekly report",
          startedAt: at(5),
          success: true,
          steps: [{ tool: "mail.send", success: true }],
        },
      ]);
      const mem = await memoryIndex(engineOf(tg), tg.project);
      expect(mem.rows.length).toBe(4);
      expect(mem.texts.length).toBe(2);
      expect(mem.bm25.n).toBe(2);
      const [qv] = await engineOf(tg).queryEmbedder.embed(["ship my change"]);
      const two = await recallMemory(engineOf(tg), tg.project, "ship my change", qv!, { k: 2 });
      expect(two.past.map((p) => p.executionId)).toEqual(["e3", "e2"]);
      expect(two.past[0]!.similarity).toBe(two.past[1]!.similarity);
      const ana = await recallMemory(engineOf(tg), tg.project, "ship my change", qv!, { k: 2, user: "ana" });
      expect(ana.past.map((p) => p.executionId)).toEqual(["e3", "e1"]);
      const excluded = await recallMemory(engineOf(tg), tg.project, "ship my change", qv!, {
        k: 3,
        excludeIds: new Set(["e3"]),
      });
      expect(excluded.past.slice(0, 2).map((p) => p.executionId)).toEqual(["e2", "e1"]);
    });
  });
}
