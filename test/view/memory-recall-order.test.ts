import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fuseSimilarity } from "../../algorithms/memory/fuse-similarity.ts";
import { bm25IdealScore, searchBm25 } from "../../algorithms/search/bm25.ts";
import { dotInt8 } from "../../algorithms/search/int8-vectors.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { MEMORY_DEFAULTS, memoryIndex, semanticNeighbours } from "../../src/view/intent-memory.ts";
import { recallMemory } from "../../src/view/memory-recall.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const WORDS =
  "ship deploy email report weekly invoice customer refund backup restore database schema user login reset password ticket".split(
    " ",
  );

// recallMemory's neighbours against the plain definition: every BM25 or semantic hit fused (the exact int8 cosine
// for BM25 hits the semantic channel missed), all sorted by similarity desc then text, expanded until k. recall
// settles those cosines lazily from an upper bound; the neighbours and similarities must be the same, bit for bit.
describe("recall neighbours = the full sort of the fused candidates", () => {
  // The database opens and is filled in a hook (hook timeout 120 s): a PGlite open is slow on a busy machine.
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({
      home: "memory://",
      database: "",
      project: "order",
      embeddings: "hash:64",
      now: () => NOW,
    });
    await tg.importCatalog({
      tools: [
        { id: "t.a", description: "a" },
        { id: "t.b", description: "b" },
        { id: "t.c", description: "c" },
      ],
    });
    const intent = (i: number) =>
      `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} ${WORDS[(i * 11 + 5) % WORDS.length]} item${i % 13}`;
    const tools = ["t.a", "t.b", "t.c"];
    await tg.importTraces(
      Array.from({ length: 400 }, (_, i) => ({
        id: `e${i}`,
        intent: intent(i % 200),
        startedAt: new Date(NOW - i * 3_600_000).toISOString(),
        success: i % 5 !== 0,
        steps: [
          { tool: tools[i % 3]!, success: true },
          { tool: tools[(i + 1) % 3]!, success: i % 4 !== 0 },
        ],
      })),
    );
  });
  afterAll(async () => {
    await tg?.close();
  });

  it("over 400 executions of 200 distinct intents, 60 queries, k ∈ {3, 20, 60}", async () => {
    const mem = await memoryIndex(engineOf(tg), tg.project);
    const queries = Array.from(
      { length: 60 },
      (_, q) => `${WORDS[(q * 5) % WORDS.length]} ${WORDS[(q * 3 + 1) % WORDS.length]} item${q % 17}`,
    );
    const vectors = await engineOf(tg).queryEmbedder.embed(queries);
    let lazyCases = 0;
    for (let q = 0; q < queries.length; q++) {
      const qv = vectors[q]!;
      const tokens = tokenize(queries[q]!);
      const lex = new Map(searchBm25(mem.bm25, tokens, MEMORY_DEFAULTS.channelTopN).map((h) => [h.id, h.score]));
      const sem = new Map(semanticNeighbours(mem, qv, MEMORY_DEFAULTS.channelTopN).map((h) => [h.id, h.score]));
      if ([...lex.keys()].some((t) => !sem.has(t))) lazyCases++;
      const maxLex = Math.max(0, ...lex.values(), bm25IdealScore(mem.bm25, tokens));
      const byText = [...new Set([...lex.keys(), ...sem.keys()])]
        .map((t) => ({
          t,
          sim: fuseSimilarity(
            { lexical: lex.get(t) ?? 0, semantic: sem.get(t) ?? dotInt8(mem.vectors, t, qv) },
            maxLex,
          ),
        }))
        .filter((x) => x.sim >= MEMORY_DEFAULTS.minSimilarity)
        .sort((a, b) => b.sim - a.sim || a.t - b.t);
      for (const k of [3, 20, 60]) {
        const expected: [string, number][] = [];
        for (const { t, sim } of byText) {
          for (let m = mem.memberOffsets[t]!; m < mem.memberOffsets[t + 1]! && expected.length < k; m++)
            expected.push([mem.rows.ids[mem.members[m]!]!, sim]);
          if (expected.length >= k) break;
        }
        const got = await recallMemory(engineOf(tg), tg.project, queries[q]!, qv, { k });
        expect(got.past.map((p) => [p.executionId, p.similarity])).toStrictEqual(expected);
      }
    }
    // the lazily settled cosines were exercised
    expect(lazyCases).toBeGreaterThan(0);
  });
});
