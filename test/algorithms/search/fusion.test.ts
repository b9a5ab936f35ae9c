import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fusedSemantic, fuseScores } from "../../../algorithms/search/fusion.ts";

const cos = [
  { id: 1, score: 0.8 },
  { id: 2, score: 0.5 },
  { id: 3, score: -0.2 },
];
const lex = [
  { id: 2, score: 6 },
  { id: 4, score: 3 },
];

describe("fuseScores (hand-computed, β = 0.7)", () => {
  it("max-normalised BM25 when the observed max exceeds the ideal floor", () => {
    // denominator = max(6, ideal 4) = 6
    // id 2: 0.7·0.5 + 0.3·(6/6) = 0.35 + 0.30 = 0.65
    // id 1: 0.7·0.8 + 0.3·0     = 0.56
    // id 4: 0.7·0   + 0.3·(3/6) = 0.15     (absent from the cosine list → 0)
    // id 3: 0.7·max(0, −0.2) + 0 = 0
    const r = fuseScores(cos, lex, { bm25Ideal: 4 });
    expect(r.map((h) => h.id)).toEqual([2, 1, 4, 3]);
    expect(r.map((h) => h.semantic)).toEqual([
      expect.closeTo(0.65, 12),
      expect.closeTo(0.56, 12),
      expect.closeTo(0.15, 12),
      0,
    ]);
    expect(r[2]!.bm25Norm).toBe(0.5);
    expect(r[3]!.cosine).toBe(-0.2);
  });

  it("the ideal floor caps a weak lexical channel", () => {
    // denominator = max(6, 12) = 12: id 2: 0.35 + 0.3·0.5 = 0.5; id 4: 0.3·0.25 = 0.075
    const r = fuseScores(cos, lex, { bm25Ideal: 12 });
    expect(r.find((h) => h.id === 2)!.semantic).toBeCloseTo(0.5, 12);
    expect(r.find((h) => h.id === 4)!.semantic).toBeCloseTo(0.075, 12);
  });

  it("cosineOf fills a candidate missing from the cosine list", () => {
    // id 4: 0.7·0.4 + 0.3·0.5 = 0.28 + 0.15 = 0.43
    const r = fuseScores(cos, lex, { cosineOf: (id) => (id === 4 ? 0.4 : 0) });
    expect(r.find((h) => h.id === 4)!.semantic).toBeCloseTo(0.43, 12);
  });

  it("β = 1 is the clamped cosine; β = 0 the normalised BM25", () => {
    expect(fuseScores(cos, lex, { beta: 1 }).find((h) => h.id === 1)!.semantic).toBeCloseTo(0.8, 12);
    expect(fuseScores(cos, lex, { beta: 0 }).find((h) => h.id === 4)!.semantic).toBeCloseTo(0.5, 12);
  });

  it("no lexical hits: only the cosine channel counts", () => {
    const r = fuseScores(cos, []);
    expect(r.map((h) => h.semantic)).toEqual([expect.closeTo(0.56, 12), expect.closeTo(0.35, 12), 0]);
  });

  it("both channels empty give []", () => {
    expect(fuseScores([], [])).toEqual([]);
  });

  it("ties broken by id", () => {
    const r = fuseScores(
      [
        { id: 9, score: 0.5 },
        { id: 3, score: 0.5 },
      ],
      [],
    );
    expect(r.map((h) => h.id)).toEqual([3, 9]);
  });

  it("rejects NaN, negative BM25 and β outside [0, 1]", () => {
    expect(() => fuseScores([{ id: 1, score: Number.NaN }], [])).toThrow(
      expect.objectContaining({ code: "bad-score" }),
    );
    expect(() => fuseScores([], [{ id: 1, score: -1 }])).toThrow(expect.objectContaining({ code: "bad-score" }));
    expect(() => fuseScores([], [], { beta: 1.5 })).toThrow(expect.objectContaining({ code: "bad-beta" }));
  });
});

describe("properties", () => {
  const hits = (score: fc.Arbitrary<number>) => fc.array(fc.record({ id: fc.nat(30), score }), { maxLength: 20 });
  it("every fused score is in [0, 1], output sorted and deterministic", () => {
    fc.assert(
      fc.property(
        hits(fc.double({ min: -1, max: 1, noNaN: true })),
        hits(fc.double({ min: 0, max: 1e6, noNaN: true })),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        (c, l, beta, ideal) => {
          const r = fuseScores(c, l, { beta, bm25Ideal: ideal });
          for (let i = 0; i < r.length; i++) {
            expect(r[i]!.semantic).toBeGreaterThanOrEqual(0);
            expect(r[i]!.semantic).toBeLessThanOrEqual(1);
            if (i > 0) expect(r[i - 1]!.semantic).toBeGreaterThanOrEqual(r[i]!.semantic);
          }
          expect(fuseScores(c, l, { beta, bm25Ideal: ideal })).toEqual(r);
        },
      ),
    );
  });

  it("sorted: false gives the same hits in first-seen order (cosine list, then BM25-only ids)", () => {
    fc.assert(
      fc.property(
        hits(fc.double({ min: -1, max: 1, noNaN: true })),
        hits(fc.double({ min: 0, max: 1e6, noNaN: true })),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (c, l, beta) => {
          const sorted = fuseScores(c, l, { beta, cosineOf: (id) => id / 31 });
          const unsorted = fuseScores(c, l, { beta, cosineOf: (id) => id / 31, sorted: false });
          expect(unsorted.map((h) => h.id)).toEqual([...new Set([...c, ...l].map((h) => h.id))]);
          expect([...unsorted].sort((a, b) => b.semantic - a.semantic || a.id - b.id)).toEqual(sorted);
        },
      ),
    );
  });
});

describe("fusedSemantic", () => {
  it("hand-computed: 0.5·0.8 + 0.5·0.4 = 0.6; a memory-only candidate (bm25 0) is β·cos⁺", () => {
    expect(fusedSemantic(0.8, 0.4, 0.5)).toBeCloseTo(0.6, 12);
    expect(fusedSemantic(0.8, 0, 0.5)).toBe(0.4);
    expect(fusedSemantic(-0.3, 0, 0.5)).toBe(0);
  });
  it("equals fuseScores' semantic for every candidate", () => {
    for (const h of fuseScores(cos, lex, { bm25Ideal: 4 }))
      expect(fusedSemantic(h.cosine, h.bm25Norm, 0.7)).toBe(h.semantic);
  });
});
