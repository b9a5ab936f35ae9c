import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nextStepPrefixes, scoreNextStepCase, summarizeNextStep } from "../../../algorithms/evaluation/next-step.ts";

describe("nextStepPrefixes", () => {
  it("total order: only the next logged step is correct", () => {
    expect(nextStepPrefixes({ steps: ["A", "B", "C"] })).toEqual([
      { t: 1, prefix: ["A"], correct: ["B"] },
      { t: 2, prefix: ["A", "B"], correct: ["C"] },
    ]);
  });

  it("partial order: every step whose predecessors are done is correct", () => {
    // A B C D with A→C and B→D.
    // t=1 done {A}: B (no preds) and C (A done) eligible, D needs B → {B, C}
    // t=2 done {A, B}: C, D → {C, D};  t=3: {D}
    const p = nextStepPrefixes({
      steps: ["A", "B", "C", "D"],
      edges: [
        [0, 2],
        [1, 3],
      ],
    });
    expect(p.map((x) => x.correct)).toEqual([["B", "C"], ["C", "D"], ["D"]]);
  });

  it("partial order without edges among remaining steps: all remaining are correct", () => {
    expect(nextStepPrefixes({ steps: ["A", "B", "C"], edges: [] }).map((x) => x.correct)).toEqual([["B", "C"], ["C"]]);
  });

  it("a repeated tool is correct again when a later occurrence is due", () => {
    expect(nextStepPrefixes({ steps: ["A", "B", "A"] }).map((x) => x.correct)).toEqual([["B"], ["A"]]);
    // with A(0)→B(1) only: at t=1, B and the second A (no preds) are both eligible
    expect(nextStepPrefixes({ steps: ["A", "B", "A"], edges: [[0, 1]] }).map((x) => x.correct)).toEqual([
      ["B", "A"],
      ["A"],
    ]);
  });

  it("single-step and empty workflows have no prefix", () => {
    expect(nextStepPrefixes({ steps: ["A"] })).toEqual([]);
    expect(nextStepPrefixes({ steps: [] })).toEqual([]);
  });

  it("throws on a backward or out-of-range edge", () => {
    expect(() => nextStepPrefixes({ steps: ["A", "B"], edges: [[1, 0]] })).toThrow(
      expect.objectContaining({ code: "bad-edge" }),
    );
    expect(() => nextStepPrefixes({ steps: ["A", "B"], edges: [[0, 2]] })).toThrow(/next-step/);
  });
});

describe("scoreNextStepCase / summarizeNextStep", () => {
  it("hand-computed hits and reciprocal ranks", () => {
    // t=1 ranking [B, X]: hit@1 = 1, RR = 1;  t=2 ranking [X, Y, C]: hit@1 = 0, hit@3 = 1, RR = 1/3
    const s = scoreNextStepCase(
      { steps: ["A", "B", "C"] },
      [
        ["B", "X"],
        ["X", "Y", "C"],
      ],
      [1, 3],
    );
    expect(s).toEqual({ prefixes: 2, hits: { 1: 1, 3: 2 }, reciprocalRankSum: 1 + 1 / 3 });
    const sum = summarizeNextStep([s, { prefixes: 1, hits: { 1: 0, 3: 0 }, reciprocalRankSum: 0 }]);
    // 3 prefixes: hit@1 = 1/3, hit@3 = 2/3, MRR = (4/3) / 3 = 0.444444
    expect(sum.prefixes).toBe(3);
    expect(sum.hitAtK[1]).toBeCloseTo(1 / 3, 12);
    expect(sum.hitAtK[3]).toBeCloseTo(2 / 3, 12);
    expect(sum.mrr).toBeCloseTo(4 / 9, 12);
  });

  it("partial order credits any eligible step", () => {
    // A B C D with A→C, B→D; at t=1 predicting C first is correct.
    const s = scoreNextStepCase(
      {
        steps: ["A", "B", "C", "D"],
        edges: [
          [0, 2],
          [1, 3],
        ],
      },
      [["C"], ["D"], ["D"]],
      [1],
    );
    expect(s.hits[1]).toBe(3);
  });

  it("throws when rankings do not match the prefixes", () => {
    expect(() => scoreNextStepCase({ steps: ["A", "B", "C"] }, [["B"]])).toThrow(
      expect.objectContaining({ code: "bad-rankings" }),
    );
  });

  it("no prefixes gives null means with a reason", () => {
    expect(summarizeNextStep([])).toEqual({ prefixes: 0, hitAtK: {}, mrr: null, reason: "no-prefixes" });
  });

  it("property: the gold next step is always among the correct answers", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("A", "B", "C", "D"), { minLength: 2, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(7), fc.nat(7)), { maxLength: 10 }),
        (steps, rawEdges) => {
          const edges = rawEdges
            .map(([a, b]) => [Math.min(a, b) % steps.length, Math.max(a, b) % steps.length] as [number, number])
            .filter(([a, b]) => a < b);
          for (const p of nextStepPrefixes({ steps, edges })) expect(p.correct).toContain(steps[p.t]);
        },
      ),
    );
  });
});
