import { describe, expect, it } from "vitest";
import { rankCapabilityMatches } from "../../../algorithms/search/capability-ranking.ts";
import type { TriggerScore } from "../../../algorithms/search/pattern-triggers.ts";

const trig = (id: string, confidence: number, priority = 0): TriggerScore => ({
  id,
  confidence,
  patternPart: confidence,
  matchedPatterns: ["p"],
  matchedKeywords: [],
  activated: confidence >= 0.4,
  priority,
});

describe("rankCapabilityMatches", () => {
  it("reliability multiplies pattern evidence: 0.71 pattern at 20 % success → 0.071", () => {
    const r = rankCapabilityMatches([
      { id: "bad", semantic: 0.3, successRate: 0.2, executions: 5, trigger: trig("bad", 0.71) },
      { id: "ok", semantic: 0.5 },
    ]);
    expect(r.ranked.map((x) => x.id)).toEqual(["ok", "bad"]);
    expect(r.ranked[1]!.evidence).toBe(0.71);
    expect(r.ranked[1]!.evidenceSource).toBe("pattern");
    expect(r.ranked[1]!.score).toBeCloseTo(0.071, 12);
    // A disqualified capability never wins the trigger.
    expect(r.trigger.winner).toBeNull();
  });

  it("semantic evidence wins when larger than the pattern: 0.84 × 0.1 = 0.084", () => {
    const r = rankCapabilityMatches([
      { id: "c", semantic: 0.84, successRate: 0.2, executions: 5, trigger: trig("c", 0.71) },
    ]);
    expect(r.ranked[0]!.evidenceSource).toBe("semantic");
    expect(r.ranked[0]!.score).toBeCloseTo(0.084, 12);
  });

  it("priority only inside the band: 0.9/0.8/0.7 with priorities 0/1/2 → b, a, c", () => {
    const r = rankCapabilityMatches([
      { id: "a", semantic: 0, trigger: trig("a", 0.9, 0) },
      { id: "b", semantic: 0, trigger: trig("b", 0.8, 1) },
      { id: "c", semantic: 0, trigger: trig("c", 0.7, 2) },
    ]);
    expect(r.ranked.map((x) => x.id)).toEqual(["b", "a", "c"]);
    expect(r.trigger.winner).toBe("b");
    expect(r.trigger.reason).toBe("priority");
  });

  it("a capability without a trigger between the contenders keeps its place relative to the others", () => {
    const r = rankCapabilityMatches([
      { id: "a", semantic: 0, trigger: trig("a", 0.9, 0) },
      { id: "s", semantic: 0.85 },
      { id: "b", semantic: 0, trigger: trig("b", 0.8, 1) },
    ]);
    // sorted a 0.9, s 0.85, b 0.8; winner b takes a's place: b, a, s.
    expect(r.ranked.map((x) => x.id)).toEqual(["b", "a", "s"]);
  });

  it("equal scores: tie-breaker then id", () => {
    const r = rankCapabilityMatches([
      { id: "y", semantic: 0.5, tieBreaker: 0.1 },
      { id: "x", semantic: 0.5, tieBreaker: 0.1 },
      { id: "z", semantic: 0.5, tieBreaker: 0.2 },
    ]);
    expect(r.ranked.map((x) => x.id)).toEqual(["z", "x", "y"]);
  });
});
