import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  edgeScores,
  goldLayers,
  goldToolEdges,
  kendallTau,
  nodeScores,
  orderConsistency,
} from "../../../algorithms/evaluation/dag-metrics.ts";

// Gold: A→B, B→C, A→C over tools [A, B, C, D].
const gold = {
  tools: ["A", "B", "C", "D"],
  edges: [
    [0, 1],
    [1, 2],
    [0, 2],
  ] as [number, number][],
};

describe("edgeScores", () => {
  it("precision, recall, F1 on tool pairs", () => {
    // gold {AB, BC, AC}, pred {AB, BC, CD}: tp 2, fp 1, fn 1 → P = R = F1 = 2/3
    const s = edgeScores(gold, [
      ["A", "B"],
      ["B", "C"],
      ["C", "D"],
    ]);
    expect(s).toMatchObject({ tp: 2, fp: 1, fn: 1, exact: false });
    expect(s.precision).toBeCloseTo(2 / 3, 12);
    expect(s.recall).toBeCloseTo(2 / 3, 12);
    expect(s.f1).toBeCloseTo(2 / 3, 12);
  });

  it("a transitively reduced prediction: edges vs closure comparison", () => {
    // pred {AB, BC}: plain P = 1, R = 2/3, F1 = 2·1·(2/3)/(5/3) = 0.8
    const plain = edgeScores(gold, [
      ["A", "B"],
      ["B", "C"],
    ]);
    expect(plain.f1).toBeCloseTo(0.8, 12);
    // closure of pred = {AB, BC, AC} = closure of gold → exact
    const closed = edgeScores(
      gold,
      [
        ["A", "B"],
        ["B", "C"],
      ],
      { closure: true },
    );
    expect(closed).toMatchObject({ tp: 3, fp: 0, fn: 0, precision: 1, recall: 1, f1: 1, exact: true });
  });

  it("closure also inflates false positives", () => {
    // pred chain A→B→C→D: closure {AB, BC, CD, AC, AD, BD}, gold closure {AB, BC, AC}: tp 3, fp 3 → P 0.5, R 1, F1 2/3
    const s = edgeScores(
      gold,
      [
        ["A", "B"],
        ["B", "C"],
        ["C", "D"],
      ],
      { closure: true },
    );
    expect(s).toMatchObject({ tp: 3, fp: 3, fn: 0 });
    expect(s.f1).toBeCloseTo(2 / 3, 12);
  });

  it("both empty: perfect no-edge prediction", () => {
    expect(edgeScores({ tools: ["A", "B"], edges: [] }, [])).toEqual({
      tp: 0,
      fp: 0,
      fn: 0,
      precision: 1,
      recall: 1,
      f1: 1,
      exact: true,
    });
  });

  it("gold empty, prediction not: F1 0 (false-positive check of non-nested instances)", () => {
    expect(edgeScores({ tools: ["A", "B"], edges: [] }, [["A", "B"]])).toMatchObject({
      precision: 0,
      recall: 1,
      f1: 0,
      exact: false,
    });
  });

  it("prediction empty, gold not: F1 0", () => {
    expect(edgeScores(gold, [])).toMatchObject({ precision: 1, recall: 0, f1: 0, exact: false });
  });

  it("repeated tools: self pairs are dropped, parallel pairs merged", () => {
    expect(
      goldToolEdges({
        tools: ["A", "A", "B"],
        edges: [
          [0, 1],
          [0, 2],
          [1, 2],
        ],
      }),
    ).toEqual([["A", "B"]]);
    expect(edgeScores({ tools: ["A", "A"], edges: [[0, 1]] }, [])).toMatchObject({ f1: 1, exact: true });
  });

  it("throws on a gold edge outside the tool list", () => {
    expect(() => goldToolEdges({ tools: ["A"], edges: [[0, 1]] })).toThrow(
      expect.objectContaining({ code: "bad-edge" }),
    );
  });

  it("property: F1 in [0, 1]; the gold edges themselves are an exact match", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("A", "B", "C", "D"), fc.constantFrom("A", "B", "C", "D")), { maxLength: 8 }),
        (pred) => {
          const s = edgeScores(gold, pred);
          expect(s.f1).toBeGreaterThanOrEqual(0);
          expect(s.f1).toBeLessThanOrEqual(1);
          expect(edgeScores(gold, goldToolEdges(gold)).exact).toBe(true);
        },
      ),
    );
  });
});

describe("orderConsistency", () => {
  it("share of gold edges respected by the predicted order", () => {
    // order A C B: AB (0<2) ✓, BC (2<1) ✗, AC (0<1) ✓ → 2/3
    expect(orderConsistency(gold, ["A", "C", "B"])).toEqual({ consistent: 2, total: 3, value: 2 / 3 });
  });

  it("a tool missing from the order makes its edges inconsistent", () => {
    // order A B: AB ✓, BC ✗ (C missing), AC ✗ → 1/3
    expect(orderConsistency(gold, ["A", "B"]).value).toBeCloseTo(1 / 3, 12);
  });

  it("first occurrence counts for a repeated tool", () => {
    expect(orderConsistency(gold, ["A", "B", "C", "A"]).value).toBe(1);
  });

  it("no gold edge: null with a reason", () => {
    expect(orderConsistency({ tools: ["A", "B"], edges: [] }, ["B", "A"])).toEqual({
      consistent: 0,
      total: 0,
      value: null,
      reason: "no-gold-edges",
    });
  });
});

describe("nodeScores", () => {
  it("node P/R/F1 over distinct tools", () => {
    // gold {A, B, C}, pred {A, B, D, E}: tp 2, P = 0.5, R = 2/3, F1 = 2·0.5·(2/3)/(0.5 + 2/3) = 0.5714286
    const s = nodeScores(["A", "B", "C", "A"], ["A", "B", "D", "E"]);
    expect(s).toMatchObject({ tp: 2, fp: 2, fn: 1, precision: 0.5 });
    expect(s.recall).toBeCloseTo(2 / 3, 12);
    expect(s.f1).toBeCloseTo(4 / 7, 12);
  });

  it("empty prediction against a non-empty gold", () => {
    expect(nodeScores(["A"], [])).toMatchObject({ precision: 1, recall: 0, f1: 0 });
  });
});

describe("kendallTau (τ-b over gold layers)", () => {
  // Gold a→b→c, a→d: layers a 0, b 1, d 1, c 2. Pairs (6): ab, ac, ad, bc, bd (tie), cd.
  const gold = {
    tools: ["a", "b", "c", "d"],
    edges: [
      [0, 1],
      [1, 2],
      [0, 3],
    ] as [number, number][],
  };

  it("gold layers by longest path", () => {
    expect(goldLayers(gold)).toEqual(
      new Map([
        ["a", 0],
        ["b", 1],
        ["c", 2],
        ["d", 1],
      ]),
    );
    expect(
      goldLayers({
        tools: ["a", "b"],
        edges: [
          [0, 1],
          [1, 0],
        ],
      }),
    ).toBeNull();
  });

  it("the gold layers themselves give τ = 1; the reversed chain gives −1 on the ordered pairs", () => {
    expect(
      kendallTau(
        gold,
        new Map([
          ["a", 0],
          ["b", 1],
          ["d", 1],
          ["c", 2],
        ]),
      ).value,
    ).toBeCloseTo(1, 12);
    // Reversed order c 0, b 1, d 1, a 2: every gold-ordered pair discordant (5), the b/d tie tied on both sides.
    expect(
      kendallTau(
        gold,
        new Map([
          ["c", 0],
          ["b", 1],
          ["d", 1],
          ["a", 2],
        ]),
      ).value,
    ).toBeCloseTo(-1, 12);
  });

  it("a chain a, b, c, d: C = 4 (ab ac ad bc), D = 1 (cd), T_gold = 1 (bd), T_pred = 0 → τ = 3/√(5·6)", () => {
    const r = kendallTau(
      gold,
      new Map([
        ["a", 0],
        ["b", 1],
        ["c", 2],
        ["d", 3],
      ]),
    );
    expect(r).toMatchObject({ concordant: 4, discordant: 1, pairs: 6 });
    expect(r.value).toBeCloseTo(3 / Math.sqrt(30), 12);
  });

  it("no predicted order → 0; no gold order → null; a missing tool ranks last", () => {
    expect(kendallTau(gold, new Map()).value).toBe(0);
    expect(
      kendallTau(
        { tools: ["a", "b"], edges: [] },
        new Map([
          ["a", 0],
          ["b", 1],
        ]),
      ),
    ).toMatchObject({ value: null, reason: "no-gold-order" });
    // Only a predicted (rank 0): b, c, d missing share rank 1 → ab ac ad concordant, the rest tied in pred.
    const r = kendallTau(gold, new Map([["a", 0]]));
    expect(r).toMatchObject({ concordant: 3, discordant: 0 });
    expect(r.value).toBeCloseTo(3 / Math.sqrt(5 * 3), 12);
  });
});
