/** The bench's gating table: coverage/precision by threshold, adaptive per answer vs fixed 0.70, the 0.85 verdict. */
import { describe, expect, it } from "vitest";
import { type GatingData, gatingTable } from "../../bench/harness.ts";

const row = (t: ReturnType<typeof gatingTable>, label: string | number) => t.rows.find((r) => r[0] === label)!;

describe("gatingTable", () => {
  // score = raw, probability = what the gate compared (calibrated), threshold = that answer's adaptive threshold.
  const g: GatingData = {
    pairs: [
      { score: 0.9, probability: 0.9, threshold: 0.6, correct: true, rules: ["similar_task_success"] },
      { score: 0.8, probability: 0.7, threshold: 0.75, correct: false, rules: ["new_user"] },
      { score: 0.65, probability: 0.62, threshold: 0.6, correct: true, rules: ["similar_task_success"] },
      { score: 0.5, probability: 0.3, threshold: 0.7, correct: false },
    ],
    trainPairs: [],
  };
  const t = gatingTable("hand", g);

  it("fixed thresholds, raw and calibrated (hand-computed)", () => {
    // 0.5: raw keeps all four (2 right); calibrated keeps 0.9, 0.7, 0.62 (2 right of 3).
    expect(row(t, 0.5).slice(1, 5)).toEqual([1, 0.5, 0.75, 2 / 3]);
    // 0.7: raw keeps 0.9, 0.8; calibrated keeps 0.9, 0.7 (the tie passes).
    expect(row(t, 0.7).slice(1, 5)).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(row(t, 0.9).slice(1, 5)).toEqual([0.25, 1, 0.25, 1]);
  });

  it("adaptive (per answer) uses each answer's own threshold; fixed 0.70 does not", () => {
    // raw: 0.9 ≥ 0.6, 0.8 ≥ 0.75, 0.65 ≥ 0.6, 0.5 < 0.7 → 3 kept, 2 right.
    // calibrated: 0.9 ≥ 0.6, 0.7 < 0.75, 0.62 ≥ 0.6, 0.3 < 0.7 → 2 kept, both right.
    const a = row(t, "adaptive (per answer)");
    expect(a.slice(1, 5)).toEqual([0.75, 2 / 3, 0.5, 1]);
    expect(a[5]).toBe("thresholds 0.60–0.75, mean 0.66; similar_task_success ×2, new_user ×1");
    expect(row(t, "fixed 0.70").slice(1, 5)).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it("high confidence: success rate against 0.80 with a verdict", () => {
    const h = row(t, "high confidence ≥ 0.85");
    expect(h.slice(1, 5)).toEqual([0.25, 1, 0.25, 1]);
    expect(h[5]).toBe(
      "raw: PASS (1.000 over 1 answers, needs ≥ 0.80); calibrated: PASS (1.000 over 1 answers, needs ≥ 0.80)",
    );
    const fail = gatingTable("f", {
      pairs: [
        { score: 0.9, probability: 0.9, threshold: 0.7, correct: false },
        { score: 0.9, probability: 0.5, threshold: 0.7, correct: true },
      ],
      trainPairs: [],
    });
    expect(row(fail, "high confidence ≥ 0.85")[5]).toBe(
      "raw: FAIL (0.500 over 2 answers, needs ≥ 0.80); calibrated: FAIL (0.000 over 1 answers, needs ≥ 0.80)",
    );
  });

  it("without the gate's probability, the training pairs are fitted (isotonic, Wilson bound); none ≥ 0.85 is vacuous", () => {
    // 10 training answers at 0.9, all right: Wilson bound 10/13.8416 = 0.72 < 0.85.
    const v = gatingTable("v", {
      pairs: [{ score: 0.9, correct: true }],
      trainPairs: Array.from({ length: 10 }, () => ({ score: 0.9, correct: true })),
    });
    expect(row(v, 0.7)[3]).toBe(1);
    expect(row(v, 0.75)[3]).toBe(0);
    expect(row(v, "high confidence ≥ 0.85")[5]).toBe(
      "raw: PASS (1.000 over 1 answers, needs ≥ 0.80); calibrated: no answer reaches 0.85 (vacuous)",
    );
    // No per-answer thresholds → no adaptive rows.
    expect(v.rows.find((r) => r[0] === "adaptive (per answer)")).toBeUndefined();
  });
});
