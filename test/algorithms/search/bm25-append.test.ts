import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appendBm25Index } from "../../../algorithms/search/bm25-append.ts";
import { type Bm25Index, buildBm25Index, searchBm25 } from "../../../algorithms/search/bm25.ts";

/** Every field as plain arrays (the vocabulary in insertion order: term ids are first-seen order). */
function plain(index: Bm25Index): unknown {
  return {
    k1: index.k1,
    b: index.b,
    n: index.n,
    avgdl: index.avgdl,
    vocabulary: Array.from(index.vocabulary.entries()),
    idf: Array.from(index.idf),
    postingOffsets: Array.from(index.postingOffsets),
    postingDocs: Array.from(index.postingDocs),
    postingTf: Array.from(index.postingTf),
    postingImpact: Array.from(index.postingImpact),
    maxImpact: Array.from(index.maxImpact),
    docLength: Array.from(index.docLength),
  };
}

describe("appendBm25Index", () => {
  it("hand-computed: [read file] + [write file file, read url] has N = 3, avgdl 7/3, idf(read) = ln 1.6", () => {
    const grown = appendBm25Index(buildBm25Index([["read", "file"]]), [
      ["write", "file", "file"],
      ["read", "url"],
    ]);
    expect(grown.n).toBe(3);
    expect(grown.avgdl).toBeCloseTo(7 / 3, 12);
    expect(grown.idf[grown.vocabulary.get("read")!]).toBeCloseTo(Math.log(1.6), 12);
    // D0: 2·ln 1.6·1.0620689655 (the hand computation of bm25.test.ts); D1 then D2.
    const hits = searchBm25(grown, ["read", "file"], 10);
    expect(hits.map((h) => h.id)).toEqual([0, 1, 2]);
    expect(hits[0]!.score).toBeCloseTo(0.9983525, 6);
  });

  it("property: equals buildBm25Index over all documents, field for field, in one or several appends", () => {
    const word = fc.constantFrom("read", "file", "write", "url", "json", "parse", "csv", "a", "b", "c", "d", "e");
    const doc = fc.array(word, { minLength: 0, maxLength: 8 });
    fc.assert(
      fc.property(
        fc.array(doc, { maxLength: 12 }),
        fc.array(doc, { maxLength: 12 }),
        fc.array(doc, { maxLength: 6 }),
        fc.constantFrom(0, 0.75, 1),
        (first, second, third, b) => {
          const whole = buildBm25Index([...first, ...second, ...third], { k1: 1.2, b });
          const grown = appendBm25Index(appendBm25Index(buildBm25Index(first, { k1: 1.2, b }), second), third);
          expect(plain(grown)).toEqual(plain(whole));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("appending nothing gives an equal index (a new object; the input is not changed)", () => {
    const index = buildBm25Index([["a", "b"], ["b"]]);
    const before = plain(index);
    const same = appendBm25Index(index, []);
    expect(same).not.toBe(index);
    expect(plain(same)).toEqual(before);
    appendBm25Index(index, [["c"]]);
    expect(plain(index)).toEqual(before);
  });
});
