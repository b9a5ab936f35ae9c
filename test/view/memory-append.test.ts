/**
 * The intent memory after a batch: appended (memory-append.ts) equals a full build of the same history in every
 * column, text, member list, BM25 field and int8 vector, and recall answers the same (below 256 texts the shortlist
 * is every text); a full build replaces it in the background once the texts have grown by the share.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "../../algorithms/random/rng.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { type MemoryIndex, memoryIndex, settledMemory } from "../../src/view/intent-memory.ts";
import { MEMORY_DEFAULTS } from "../../src/view/memory-defaults.ts";
import { recallMemory } from "../../src/view/memory-recall.ts";
import { backends, freshProject } from "../helpers/backends.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const TOOLS = ["git.commit", "git.push", "mail.send", "csv.parse", "http.get"];
const WORDS = ["ship", "change", "report", "parse", "weekly", "email", "fetch", "page", "sales", "table", "remote"];

/** Executions `from` … `from + count − 1` over intents drawn from the first `intents` of a seeded list. */
function traces(from: number, count: number, intents: number, rng: () => number) {
  const text = (k: number) => `${WORDS[k % WORDS.length]} ${WORDS[(k * 7 + 3) % WORDS.length]} item ${k}`;
  return Array.from({ length: count }, (_, j) => {
    const i = from + j;
    // The newest intents first appear in this batch: its last texts are new.
    const k = j < count / 2 ? Math.floor(rng() * intents) : intents - 1 - (j % Math.max(1, intents >> 3));
    return {
      id: `e${String(i).padStart(4, "0")}`,
      user: rng() < 0.5 ? "ana" : rng() < 0.5 ? "bob" : undefined,
      intent: text(k),
      startedAt: new Date(NOW - (1000 - i) * 60_000).toISOString(),
      success: rng() < 0.8,
      steps: [{ tool: TOOLS[Math.floor(rng() * TOOLS.length)]! }, { tool: TOOLS[i % TOOLS.length]!, success: true }],
    };
  });
}

/** Everything but the sign codes (which an append centres on the last full build's mean). */
function content(m: MemoryIndex): unknown {
  const { rows, bm25, vectors } = m;
  return {
    rows: Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, Array.isArray(v) ? v : Array.from(v as never)])),
    texts: m.texts,
    textOf: Array.from(m.textOf),
    memberOffsets: Array.from(m.memberOffsets),
    members: Array.from(m.members),
    bm25: {
      n: bm25.n,
      avgdl: bm25.avgdl,
      vocabulary: Array.from(bm25.vocabulary),
      idf: Array.from(bm25.idf),
      postingOffsets: Array.from(bm25.postingOffsets),
      postingDocs: Array.from(bm25.postingDocs),
      postingImpact: Array.from(bm25.postingImpact),
      maxImpact: Array.from(bm25.maxImpact),
    },
    vectors: [Array.from(vectors.data), Array.from(vectors.scales)],
    dims: m.dims,
    executions: m.executions,
    vindex: m.vindex?.n,
  };
}

for (const backend of backends()) {
  describe(`intent memory appends on ${backend.name}`, () => {
    let tg: Toolgraph;
    const project = freshProject("memappend");
    beforeAll(async () => {
      tg = await openToolgraph({ ...(await backend.options()), project, embeddings: "hash:64", now: () => NOW });
      await tg.importCatalog({ tools: TOOLS.map((id) => ({ id, description: `the ${id} tool` })) });
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("a batch is appended (equal to a full build, same recall); past the share a full build replaces it", async () => {
      const engine = engineOf(tg);
      const rng = mulberry32(7);
      await tg.importTraces(traces(0, 160, 48, rng));
      await tg.settle();
      const first = await settledMemory(engine, project);
      expect(first.fullBuildTexts).toBe(first.texts.length);
      // Second batch: new texts under the share → appended, no full build.
      await tg.importTraces(traces(160, 40, 54, rng));
      await tg.settle();
      const second = await settledMemory(engine, project);
      expect(second.executions).toBe(200);
      expect(second.texts.length).toBeGreaterThan(first.texts.length);
      expect(second.texts.length).toBeLessThanOrEqual(first.texts.length * (1 + MEMORY_DEFAULTS.rebuildAfterGrowth));
      expect(second.fullBuildTexts).toBe(first.texts.length);
      expect(engine.memorySlots.get(project)!.recentring).toBeUndefined();

      // A full build of the same history, in a fresh slot.
      const slot = engine.memorySlots.get(project)!;
      engine.memorySlots.delete(project);
      const full = await memoryIndex(engine, project);
      expect(full.fullBuildTexts).toBe(full.texts.length);
      expect(content(second)).toEqual(content(full));
      const queries = [...second.texts.slice(0, 5), ...second.texts.slice(-5), "ship the weekly sales report"];
      const answer = async (mem: MemoryIndex, q: string) => {
        engine.memorySlots.get(project)!.index = Promise.resolve(mem);
        const [qv] = await engine.embedder.embed([q]);
        const r = await recallMemory(engine, project, q, qv!, { user: q.length % 2 === 0 ? "ana" : undefined });
        return { past: r.past, votes: [...(r.toolVotes ?? [])], sim: r.similarity, success: r.similarSuccess };
      };
      for (const q of queries) expect(await answer(second, q)).toEqual(await answer(full, q));
      engine.memorySlots.set(project, slot);

      // Third batch: past the share → appended now, a full build in the background, in force after the next settle.
      await tg.importTraces(traces(200, 60, 72, rng));
      await tg.settle();
      const third = await engine.memorySlots.get(project)!.index;
      expect(third.executions).toBe(260);
      expect(third.texts.length).toBeGreaterThan(first.texts.length * (1 + MEMORY_DEFAULTS.rebuildAfterGrowth));
      expect(third.fullBuildTexts).toBe(first.texts.length);
      const recentred = await settledMemory(engine, project);
      expect(recentred.fullBuildTexts).toBe(recentred.texts.length);
      expect(content(recentred)).toEqual(content(third));
    });
  });
}
