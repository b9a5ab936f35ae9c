/**
 * Token lists kept between index builds (src/view/token-lists.ts): the BM25 channels built through them are
 * the ones built from scratch, a second build tokenizes only the texts it had not seen, and the lists hold
 * only the texts of the last catalog built.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBm25Index } from "../../algorithms/search/bm25.ts";
import { tokenize, toolTextInput, toolTokens } from "../../algorithms/search/tokenize.ts";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import type { GraphSnapshot } from "../../src/view/graph-snapshot.ts";
import { loadGraphSnapshot } from "../../src/view/load-snapshot.ts";
import { buildLexicalIndex, buildSearchIndex, capabilityText, type SearchIndex } from "../../src/view/search-index.ts";
import { TokenLists } from "../../src/view/token-lists.ts";

let tg: Toolgraph;

beforeAll(async () => {
  tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: "demo",
    embeddings: "hash:64",
    recommendationLog: { enabled: false },
  });
  await tg.importCatalog(demoCatalog());
});

afterAll(async () => {
  await tg?.close();
});

/** The lexical channels computed here, from scratch, without the lists. */
function fromScratch(s: GraphSnapshot) {
  return {
    tool: buildBm25Index(s.tools.map((t) => toolTokens(toolTextInput(t)))),
    cap: buildBm25Index(s.capabilities.map((c) => tokenize(capabilityText(c)))),
    toolIds: s.tools.map((t) => t.id),
    capIds: s.capabilities.map((c) => c.id),
  };
}
const lexical = (i: SearchIndex) => ({ tool: i.toolBm25, cap: i.capBm25, toolIds: i.toolIds, capIds: i.capIds });

/** How many distinct field texts the catalog has (what the lists hold after building it). */
function distinctTexts(s: GraphSnapshot): number {
  const seen = new Set<string>();
  const tokenizeField = (text: string) => {
    seen.add(text);
    return [];
  };
  for (const t of s.tools) toolTokens(toolTextInput(t), { tokenizeField });
  for (const c of s.capabilities) tokenizeField(capabilityText(c));
  return seen.size;
}

describe("TokenLists", () => {
  it("the lexical channels through the lists equal a build from scratch, before and after a catalog change", async () => {
    const e = engineOf(tg);
    const lists = new TokenLists();
    const s1 = await loadGraphSnapshot(e.db, "demo"); // a snapshot of its own: no channels built on it yet
    const first = await buildLexicalIndex(s1, "m", 64, lists);
    expect(lexical(first)).toEqual(fromScratch(s1));
    const tokenizedFirst = lists.counts.tokenized;
    expect(tokenizedFirst).toBe(lists.size);
    expect(lists.size).toBe(distinctTexts(s1));
    expect(lists.counts.reused).toBeGreaterThan(0); // repeated texts (names, tags) within the catalog

    // The full index of the same catalog reads the same channels: nothing tokenized again.
    const full = await buildSearchIndex(e.db, s1, e.embedder, undefined, lists);
    expect(full.toolBm25).toBe(first.toolBm25);
    expect(lists.counts.tokenized).toBe(tokenizedFirst);

    // Half the tools get a new description: only those are tokenized, and the old descriptions leave the lists.
    const changed = demoCatalog();
    const edited = changed.tools.filter((_, i) => i % 2 === 0);
    for (const t of edited) t.description = `${t.description} Now with quarterly widget reports.`;
    await tg.importCatalog(changed);
    const s2 = await loadGraphSnapshot(e.db, "demo");
    expect(s2).not.toBe(s1);
    const second = await buildLexicalIndex(s2, "m", 64, lists);
    expect(lexical(second)).toEqual(fromScratch(s2));
    const newTexts = new Set(edited.map((t) => t.description!.trim())).size;
    expect(lists.counts.tokenized - tokenizedFirst).toBe(newTexts);
    expect(lists.size).toBe(distinctTexts(s2));
  });

  it("toolTokens through a reader equals toolTokens, and each text's list equals tokenize's", () => {
    const lists = new TokenLists();
    const word = fc.stringMatching(/^[A-Za-z0-9_ .é-]{0,12}$/);
    fc.assert(
      fc.property(
        fc.record({
          id: word,
          name: fc.option(word, { nil: undefined }),
          description: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
          tags: fc.array(word, { maxLength: 3 }),
          examples: fc.array(fc.string({ maxLength: 20 }), { maxLength: 2 }),
          parameters: fc.array(fc.record({ name: word, description: fc.option(word, { nil: undefined }) }), {
            maxLength: 3,
          }),
        }),
        (tool) => {
          const reader = lists.reader();
          expect(toolTokens(tool, { tokenizeField: reader.tokens })).toEqual(toolTokens(tool));
          expect(toolTokens(tool, { tokenizeField: reader.tokens })).toEqual(toolTokens(tool)); // from the lists
          expect(reader.tokens(tool.description ?? "")).toEqual(tokenize(tool.description ?? ""));
          lists.sweep(reader.build);
        },
      ),
      { numRuns: 200, seed: 7 },
    );
  });
});
