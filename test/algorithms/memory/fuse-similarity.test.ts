import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuseSimilarities, fuseSimilarity } from "../../../algorithms/memory/fuse-similarity.ts";
import { MemoryError } from "../../../algorithms/memory/memory-error.ts";

describe("fuseSimilarity by hand", () => {
  it("0.5·cos⁺ + 0.5·bm25/max", () => {
    expect(fuseSimilarity({ lexical: 4, semantic: 0.6 }, 8)).toBeCloseTo(0.55, 12); // 0.5·0.6 + 0.5·0.5
  });

  it("negative cosine counts as 0, cosine above 1 is clipped", () => {
    expect(fuseSimilarity({ lexical: 2, semantic: -0.3 }, 4)).toBeCloseTo(0.25, 12); // 0 + 0.5·0.5
    expect(fuseSimilarity({ lexical: 4, semantic: 1.0000001 }, 4)).toBe(1);
  });

  it("a missing signal gives its weight to the other", () => {
    expect(fuseSimilarity({ lexical: 3, semantic: null }, 6)).toBe(0.5);
    expect(fuseSimilarity({ lexical: null, semantic: 0.7 }, 6)).toBe(0.7);
    expect(fuseSimilarity({ lexical: null, semantic: null }, 6)).toBe(0);
  });

  it("max BM25 of 0 → lexical part 0", () => {
    expect(fuseSimilarity({ lexical: 0, semantic: 0.4 }, 0)).toBeCloseTo(0.2, 12);
  });

  it("semanticWeight 0.8", () => {
    expect(fuseSimilarity({ lexical: 4, semantic: 0.6 }, 8, { semanticWeight: 0.8 })).toBeCloseTo(0.58, 12);
  });
});

describe("fuseSimilarities", () => {
  it("normalises BM25 by the batch maximum", () => {
    // max 8: [0.5·0.2 + 0.5·1, 0.5·0.6 + 0.5·0.5, 0.9 (semantic only)]
    const r = fuseSimilarities([
      { lexical: 8, semantic: 0.2 },
      { lexical: 4, semantic: 0.6 },
      { lexical: null, semantic: 0.9 },
    ]);
    expect(r[0]).toBeCloseTo(0.6, 12);
    expect(r[1]).toBeCloseTo(0.55, 12);
    expect(r[2]).toBe(0.9);
  });

  it("empty batch → empty array", () => {
    expect(fuseSimilarities([])).toEqual([]);
  });

  it("results in [0, 1]", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            lexical: fc.option(fc.double({ min: 0, max: 50, noNaN: true }), { nil: null }),
            semantic: fc.option(fc.double({ min: -1, max: 1, noNaN: true }), { nil: null }),
          }),
        ),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (batch, alpha) => {
          for (const s of fuseSimilarities(batch, { semanticWeight: alpha })) {
            expect(s).toBeGreaterThanOrEqual(0);
            expect(s).toBeLessThanOrEqual(1);
          }
        },
      ),
    );
  });
});

describe("misuse throws MemoryError", () => {
  it("negative BM25, non-finite cosine, bad weight", () => {
    expect(() => fuseSimilarity({ lexical: -1, semantic: 0 }, 1)).toThrow(MemoryError);
    expect(() => fuseSimilarity({ lexical: 1, semantic: Number.NaN }, 1)).toThrow(
      expect.objectContaining({ code: "bad-semantic" }),
    );
    expect(() => fuseSimilarity({ lexical: 1, semantic: 0 }, 1, { semanticWeight: 2 })).toThrow(
      expect.objectContaining({ code: "bad-option", message: expect.stringMatching(/^fuse-similarity: /) }),
    );
  });
});
