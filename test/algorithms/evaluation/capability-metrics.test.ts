import { describe, expect, it } from "vitest";
import { scoreCapability, summarizeCapability } from "../../../algorithms/evaluation/capability-metrics.ts";

describe("capability metrics", () => {
  it("accuracy@1, reciprocal rank and hits of the gold id", () => {
    // gold c1 at rank 2: acc@1 0, RR 1/2, hit@1 0, hit@3 1
    expect(scoreCapability(["c2", "c1", "c3"], "c1", [1, 3])).toEqual({
      accuracyAt1: 0,
      reciprocalRank: 0.5,
      hit: { 1: 0, 3: 1 },
    });
  });

  it("gold absent from the ranking scores zero", () => {
    expect(scoreCapability(["c2"], "c1", [1])).toEqual({ accuracyAt1: 0, reciprocalRank: 0, hit: { 1: 0 } });
  });

  it("means over queries", () => {
    // RR 0.5 and 1 → MRR 0.75; acc@1 0 and 1 → 0.5
    const s = summarizeCapability([scoreCapability(["c2", "c1"], "c1", [1, 3]), scoreCapability(["c1"], "c1", [1, 3])]);
    expect(s).toEqual({ queries: 2, accuracyAt1: 0.5, mrr: 0.75, hitAtK: { 1: 0.5, 3: 1 } });
  });

  it("no queries: nulls with a reason", () => {
    expect(summarizeCapability([])).toEqual({
      queries: 0,
      accuracyAt1: null,
      mrr: null,
      hitAtK: {},
      reason: "no-queries",
    });
  });
});
