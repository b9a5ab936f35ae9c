import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  alignPosition,
  NO_NEIGHBOURS,
  nextAfter,
  type PastExecution,
  recencyDecay,
  similarSuccessRate,
  voteCapabilities,
  voteTools,
} from "../../../algorithms/memory/knn-vote.ts";
import { MemoryError } from "../../../algorithms/memory/memory-error.ts";

const DAY = 24 * 60 * 60 * 1000;
const NOW = 1_700_000_000_000;
const ok = (tool: string) => ({ tool, success: true });
const ko = (tool: string) => ({ tool, success: false });

/**
 * Fixture (half-life 30 days):
 *   e1 sim 0.8, succeeded, today       (decay 1)    steps A✓ B✓ C✓   cap1
 *   e2 sim 0.5, failed,    30 days ago (decay 0.5)  steps A✓ B✗ D✓   cap1
 *   e3 sim 1.0, succeeded, 60 days ago (decay 0.25) steps B✓ B✓ D✓   cap2
 */
const neighbours: PastExecution[] = [
  {
    executionId: "e1",
    similarity: 0.8,
    success: true,
    startedAt: NOW,
    steps: [ok("A"), ok("B"), ok("C")],
    capability: "cap1",
  },
  {
    executionId: "e2",
    similarity: 0.5,
    success: false,
    startedAt: NOW - 30 * DAY,
    steps: [ok("A"), ko("B"), ok("D")],
    capability: "cap1",
  },
  {
    executionId: "e3",
    similarity: 1,
    success: true,
    startedAt: NOW - 60 * DAY,
    steps: [ok("B"), ok("B"), ok("D")],
    capability: "cap2",
  },
];

describe("recencyDecay", () => {
  it("halves every half-life", () => {
    expect(recencyDecay(NOW, NOW)).toBe(1);
    expect(recencyDecay(NOW - 30 * DAY, NOW)).toBeCloseTo(0.5, 12);
    expect(recencyDecay(NOW - 60 * DAY, NOW)).toBeCloseTo(0.25, 12);
    expect(recencyDecay(NOW - DAY, NOW, 2 * DAY)).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it("a start in the future decays as Δt = 0; an infinite half-life disables decay", () => {
    expect(recencyDecay(NOW + DAY, NOW)).toBe(1);
    expect(recencyDecay(NOW - 1000 * DAY, NOW, Number.POSITIVE_INFINITY)).toBe(1);
  });
});

describe("voteTools by hand", () => {
  it("sums similarity × outcome × decay and normalises by the maximum", () => {
    // A: e1 0.8·1·1 = 0.8 + e2 0.5·0.5·0.5 = 0.125 → 0.925
    // B: e1 0.8 + e2 (failed step) 0 + e3 1·1·0.25 (once, not twice) = 0.25 → 1.05
    // C: e1 0.8 · D: e2 0.125 + e3 0.25 = 0.375 · max = 1.05
    const r = voteTools(neighbours, NOW);
    expect(r.votes.map((v) => v.key)).toEqual(["B", "A", "C", "D"]);
    const [b, a, c, d] = r.votes;
    expect(b!.rawVote).toBeCloseTo(1.05, 12);
    expect(b!.vote).toBe(1);
    expect(a!.rawVote).toBeCloseTo(0.925, 12);
    expect(a!.vote).toBeCloseTo(0.925 / 1.05, 12);
    expect(c!.vote).toBeCloseTo(0.8 / 1.05, 12);
    expect(d!.vote).toBeCloseTo(0.375 / 1.05, 12);
    // explanation counts: B used in 3 similar executions, 2 succeeded
    expect(b!.executions).toBe(3);
    expect(b!.succeeded).toBe(2);
    expect(b!.executionIds).toEqual(["e1", "e2", "e3"]);
    expect(a!.executions).toBe(2);
    expect(a!.succeeded).toBe(1);
    expect(r.neighbours).toBe(3);
    expect(r.reason).toBeUndefined();
  });

  it("the outcome factor of a failed execution's successful steps is an option", () => {
    // factor 0: A = 0.8 only, D = 0.25 only
    const r = voteTools(neighbours, NOW, { failedExecutionStepFactor: 0 });
    const byKey = new Map(r.votes.map((v) => [v.key, v]));
    expect(byKey.get("A")!.rawVote).toBeCloseTo(0.8, 12);
    expect(byKey.get("D")!.rawVote).toBeCloseTo(0.25, 12);
  });

  it("a tool used only in failing steps does not appear", () => {
    const r = voteTools(
      [{ executionId: "x", similarity: 1, success: false, startedAt: NOW, steps: [ok("A"), ko("Z")] }],
      NOW,
    );
    expect(r.votes.map((v) => v.key)).toEqual(["A"]);
  });

  it("works with numeric tool ids and sorts ties by key", () => {
    const r = voteTools(
      [
        { executionId: "x", similarity: 0.5, success: true, startedAt: NOW, steps: [{ tool: 10, success: true }] },
        { executionId: "y", similarity: 0.5, success: true, startedAt: NOW, steps: [{ tool: 2, success: true }] },
      ],
      NOW,
    );
    expect(r.votes.map((v) => v.key)).toEqual([2, 10]);
  });
});

describe("voteCapabilities by hand", () => {
  it("failed executions do not vote for their capability by default", () => {
    // cap1: e1 0.8 + e2 0 = 0.8; cap2: e3 0.25 → normalised 1 and 0.3125
    const r = voteCapabilities(neighbours, NOW);
    expect(r.votes.map((v) => [v.key, v.vote])).toEqual([
      ["cap1", 1],
      ["cap2", 0.3125],
    ]);
    expect(r.votes[0]!.executions).toBe(2);
    expect(r.votes[0]!.succeeded).toBe(1);
  });

  it("with a failure factor of 0.5, e2 adds 0.5·0.5·0.5", () => {
    const r = voteCapabilities(neighbours, NOW, { failedExecutionCapabilityFactor: 0.5 });
    expect(r.votes[0]!.rawVote).toBeCloseTo(0.925, 12);
  });

  it("no labelled execution → empty with reason", () => {
    const r = voteCapabilities([{ ...neighbours[0]!, capability: undefined }], NOW);
    expect(r.votes).toEqual([]);
    expect(r.reason).toMatch(/labelled/);
  });
});

describe("nextAfter by hand", () => {
  it("after A: e1 → B✓ votes 0.8, e2 → B✗ votes 0, e3 never used A", () => {
    const r = nextAfter(neighbours, ["A"], NOW);
    expect(r.votes).toHaveLength(1);
    expect(r.votes[0]!.key).toBe("B");
    expect(r.votes[0]!.rawVote).toBeCloseTo(0.8, 12);
    expect(r.votes[0]!.executions).toBe(2); // e1 and e2 both continued with B
    expect(r.votes[0]!.succeeded).toBe(1);
  });

  it("after B: e1 → C 0.8, e2 → D 0.125, e3 earliest B → B 0.25", () => {
    const r = nextAfter(neighbours, ["B"], NOW);
    expect(r.votes.map((v) => v.key)).toEqual(["C", "B", "D"]);
    expect(r.votes.map((v) => v.rawVote)).toEqual([0.8, 0.25, 0.125]);
    expect(r.votes[1]!.vote).toBeCloseTo(0.25 / 0.8, 12);
  });

  it("empty prefix → first steps vote", () => {
    // e1 A 0.8; e2 A 0.125; e3 B 0.25 → A 0.925, B 0.25
    const r = nextAfter(neighbours, [], NOW);
    expect(r.votes.map((v) => v.key)).toEqual(["A", "B"]);
    expect(r.votes[0]!.rawVote).toBeCloseTo(0.925, 12);
  });

  it("a prefix nobody used → empty with reason", () => {
    const r = nextAfter(neighbours, ["Q"], NOW);
    expect(r.votes).toEqual([]);
    expect(r.reason).toMatch(/continues/);
  });

  it("a last tool at the end of every execution → empty with reason", () => {
    expect(nextAfter(neighbours, ["C"], NOW).reason).toMatch(/continues/);
  });
});

describe("alignPosition", () => {
  const steps = ["X", "B", "Y", "A", "B", "Z"].map(ok);
  it("prefers the occurrence matching the longest prefix suffix", () => {
    expect(alignPosition(steps, ["A", "B"])).toBe(5); // B at 4 is preceded by A
  });
  it("ties → earliest occurrence", () => {
    expect(alignPosition(steps, ["B"])).toBe(2);
    expect(alignPosition(steps, ["Q", "B"])).toBe(2);
  });
  it("empty prefix → 0; unknown tool → null", () => {
    expect(alignPosition(steps, [])).toBe(0);
    expect(alignPosition(steps, ["Q"])).toBeNull();
  });
});

describe("similarSuccessRate by hand", () => {
  it("weights by similarity × decay", () => {
    // weights e1 0.8, e2 0.25, e3 0.25 → (0.8 + 0.25) / 1.3
    const r = similarSuccessRate(neighbours, NOW);
    expect(r.rate).toBeCloseTo(1.05 / 1.3, 12);
    expect(r.weight).toBeCloseTo(1.3, 12);
    expect(r.neighbours).toBe(3);
  });

  it("zero similarity everywhere → null rate with reason", () => {
    const r = similarSuccessRate([{ ...neighbours[0]!, similarity: 0 }], NOW);
    expect(r.rate).toBeNull();
    expect(r.reason).toMatch(/zero weight/);
  });
});

describe("no neighbours", () => {
  it("every vote returns an empty result with the reason", () => {
    expect(voteTools([], NOW)).toEqual({ votes: [], neighbours: 0, reason: NO_NEIGHBOURS });
    expect(voteCapabilities([], NOW).reason).toBe(NO_NEIGHBOURS);
    expect(nextAfter([], ["A"], NOW).reason).toBe(NO_NEIGHBOURS);
    expect(similarSuccessRate([], NOW)).toEqual({ rate: null, neighbours: 0, weight: 0, reason: NO_NEIGHBOURS });
    expect(NO_NEIGHBOURS).toBe("no similar past executions");
  });

  it("neighbours with similarity 0 → empty with a reason", () => {
    const r = voteTools([{ ...neighbours[0]!, similarity: 0 }], NOW);
    expect(r.votes).toEqual([]);
    expect(r.reason).toMatch(/positive vote/);
  });
});

describe("misuse throws MemoryError", () => {
  it("similarity outside [0, 1], non-finite times, bad half-life", () => {
    expect(() => voteTools([{ ...neighbours[0]!, similarity: 1.5 }], NOW)).toThrow(MemoryError);
    expect(() => voteTools([{ ...neighbours[0]!, similarity: Number.NaN }], NOW)).toThrow(
      expect.objectContaining({ code: "bad-similarity", message: expect.stringMatching(/^knn-vote: .*e1/) }),
    );
    expect(() => voteTools([{ ...neighbours[0]!, startedAt: Number.NaN }], NOW)).toThrow(
      expect.objectContaining({ code: "bad-time" }),
    );
    expect(() => voteTools(neighbours, Number.NaN)).toThrow(expect.objectContaining({ code: "bad-time" }));
    expect(() => voteTools(neighbours, NOW, { halfLifeMs: 0 })).toThrow(
      expect.objectContaining({ code: "bad-half-life" }),
    );
  });
});

const arbExecution = fc.record({
  executionId: fc.string({ maxLength: 4 }),
  similarity: fc.integer({ min: 0, max: 1000 }).map((x) => x / 1000), // no subnormals: they underflow when scaled
  success: fc.boolean(),
  startedAt: fc.integer({ min: NOW - 400 * DAY, max: NOW + DAY }),
  steps: fc.array(fc.record({ tool: fc.constantFrom("a", "b", "c", "d", "e"), success: fc.boolean() }), {
    maxLength: 6,
  }),
  capability: fc.option(fc.constantFrom("x", "y"), { nil: undefined }),
});

describe("properties", () => {
  it("votes in (0, 1], the best is 1, sorted, deterministic; rate in [0, 1]", () => {
    fc.assert(
      fc.property(
        fc.array(arbExecution, { maxLength: 12 }),
        fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 3 }),
        (ns, prefix) => {
          for (const r of [voteTools(ns, NOW), voteCapabilities(ns, NOW), nextAfter(ns, prefix, NOW)]) {
            let prev = Number.POSITIVE_INFINITY;
            for (const v of r.votes) {
              expect(v.vote).toBeGreaterThan(0);
              expect(v.vote).toBeLessThanOrEqual(1);
              expect(v.succeeded).toBeLessThanOrEqual(v.executions);
              expect(v.vote).toBeLessThanOrEqual(prev);
              prev = v.vote;
            }
            if (r.votes.length > 0) expect(r.votes[0]!.vote).toBe(1);
            else expect(typeof r.reason).toBe("string");
          }
          expect(voteTools(ns, NOW)).toEqual(voteTools(ns, NOW));
          const s = similarSuccessRate(ns, NOW);
          if (s.rate !== null) {
            expect(s.rate).toBeGreaterThanOrEqual(0);
            expect(s.rate).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("scaling every similarity by c > 0 leaves normalised votes unchanged", () => {
    fc.assert(
      fc.property(
        fc.array(arbExecution, { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        (ns, c) => {
          const a = voteTools(ns, NOW);
          const b = voteTools(
            ns.map((e) => ({ ...e, similarity: e.similarity * c })),
            NOW,
          );
          expect(b.votes.map((v) => v.key).sort()).toEqual(a.votes.map((v) => v.key).sort());
          const av = new Map(a.votes.map((v) => [v.key, v.vote]));
          for (const v of b.votes) expect(v.vote).toBeCloseTo(av.get(v.key)!, 9);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("voteTools: short executions (a step scan) and long ones (a Map) vote alike", () => {
  // Appending 17 failing steps of a tool the execution already used changes no vote (a failing step's outcome
  // is 0, below or equal to any step of that tool; the tool is already counted) but takes the Map path.
  const long = <T extends string | number>(e: PastExecution<T, string>): PastExecution<T, string> =>
    e.steps.length === 0
      ? e
      : {
          ...e,
          steps: [...e.steps, ...Array.from({ length: 17 }, () => ({ tool: e.steps[0]!.tool, success: false }))],
        };

  it("string tools: the same votes, bit for bit", () => {
    fc.assert(
      fc.property(
        fc.array(arbExecution, { maxLength: 12 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (ns, stepFactor) => {
          const o = { failedExecutionStepFactor: stepFactor, limit: 50 };
          expect(voteTools(ns.map(long), NOW, o)).toStrictEqual(voteTools(ns, NOW, o));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("numeric tools, NaN and ±0 among them (Map key equality): the same votes", () => {
    const arbNumeric = arbExecution.chain((e) =>
      fc
        .array(fc.record({ tool: fc.constantFrom(1, 2, 0, -0, Number.NaN), success: fc.boolean() }), { maxLength: 6 })
        .map((steps) => ({ ...e, steps }) as PastExecution<number, string>),
    );
    fc.assert(
      fc.property(fc.array(arbNumeric, { maxLength: 10 }), (ns) => {
        expect(voteTools(ns.map(long), NOW)).toStrictEqual(voteTools(ns, NOW));
      }),
      { numRuns: 200 },
    );
  });

  it("a tool used twice in one execution votes once, with its best step (hand-computed)", () => {
    const r = voteTools(
      [
        {
          executionId: "e",
          similarity: 0.5,
          success: false,
          startedAt: NOW,
          steps: [
            { tool: "a", success: false },
            { tool: "b", success: true },
            { tool: "a", success: true },
          ],
        },
      ],
      NOW,
    );
    // a: max(0, 0.5) = 0.5 × 0.5 = 0.25; b: 0.5 × 0.5 = 0.25; tie → key order
    expect(r.votes.map((v) => [v.key, v.rawVote, v.executions])).toEqual([
      ["a", 0.25, 1],
      ["b", 0.25, 1],
    ]);
  });
});
