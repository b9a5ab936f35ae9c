import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ThresholdError } from "../../../algorithms/thresholds/errors.ts";
import {
  DEFAULTS,
  emptyUserHistory,
  reputationOf,
  type UserHistory,
  updateUserHistory,
  userContextOf,
} from "../../../algorithms/thresholds/user-history.ts";

const DAY = 24 * 60 * 60 * 1000;

function replay(outcomes: readonly boolean[], domain?: string, start = 0): UserHistory {
  let h = emptyUserHistory();
  outcomes.forEach((success, i) => {
    h = updateUserHistory(h, { success, at: start + i, domain });
  });
  return h;
}

describe("updateUserHistory", () => {
  it("counts tasks, successes, errors and per-domain / per-operation outcomes", () => {
    let h = emptyUserHistory();
    h = updateUserHistory(h, { success: true, at: 10, domain: "backend", operationType: "debugging" });
    h = updateUserHistory(h, { success: false, at: 20, domain: "backend", errorMessage: "boom" });
    h = updateUserHistory(h, { success: true, at: 30, domain: "frontend", operationType: "debugging" });
    expect(h.taskCount).toBe(3);
    expect(h.successCount).toBe(2);
    expect(h.errorCount).toBe(1);
    expect(h.recent).toEqual([true, false, true]);
    expect(h.domains).toEqual({ backend: { total: 2, successes: 1 }, frontend: { total: 1, successes: 1 } });
    expect(h.operations).toEqual({ debugging: { total: 2, successes: 2 } });
    expect(h.lastTaskAt).toBe(30);
    expect(h.lastError).toBe("boom");
  });

  it("does not mutate its input", () => {
    const before = replay([true, false]);
    const snapshot = structuredClone(before);
    updateUserHistory(before, { success: true, at: 99, domain: "x" });
    expect(before).toEqual(snapshot);
  });

  it("keeps only the last 10 outcomes in the window", () => {
    // 10 failures then 3 successes: the window holds the last 10 = 7 failures + 3 successes.
    const h = replay([...Array(10).fill(false), true, true, true]);
    expect(h.recent).toHaveLength(10);
    expect(h.recent.filter(Boolean)).toHaveLength(3);
    expect(h.recent.slice(-3)).toEqual([true, true, true]);
  });

  it("keeps the latest time when outcomes arrive out of order", () => {
    let h = updateUserHistory(emptyUserHistory(), { success: true, at: 50 });
    h = updateUserHistory(h, { success: true, at: 40 });
    expect(h.lastTaskAt).toBe(50);
  });

  it("treats a domain named like an Object.prototype member as a plain domain", () => {
    const h = replay([true, true], "constructor");
    expect(h.domains.constructor).toEqual({ total: 2, successes: 2 });
  });

  it("throws a ThresholdError on a non-finite time", () => {
    expect(() => updateUserHistory(emptyUserHistory(), { success: true, at: Number.NaN })).toThrow(ThresholdError);
  });

  it("throws on a window of 0", () => {
    expect(() => updateUserHistory(emptyUserHistory(), { success: true, at: 0 }, { recentWindow: 0 })).toThrow(
      /recentWindow/,
    );
  });
});

describe("reputationOf", () => {
  it("is 0 for a user with no tasks", () => {
    expect(reputationOf(emptyUserHistory())).toBe(0);
  });

  it("is 0.7 × recent + 0.3 × overall (hand-computed)", () => {
    // 20 tasks: first 10 all succeed, last 10 have 6 successes.
    // recent = 6/10 = 0.6; overall = 16/20 = 0.8; reputation = 0.7·0.6 + 0.3·0.8 = 0.42 + 0.24 = 0.66
    const h = replay([...Array(10).fill(true), true, true, true, false, true, false, true, false, true, false]);
    expect(reputationOf(h)).toBeCloseTo(0.66, 12);
  });

  it("with fewer than 10 tasks the window is all tasks (reputation = success rate)", () => {
    // 3 of 4: recent = overall = 0.75 → 0.7·0.75 + 0.3·0.75 = 0.75
    expect(reputationOf(replay([true, false, true, true]))).toBeCloseTo(0.75, 12);
  });

  it("extreme users: all success → 1, all fail → 0", () => {
    expect(reputationOf(replay(Array(30).fill(true)))).toBe(1);
    expect(reputationOf(replay(Array(30).fill(false)))).toBe(0);
  });

  it("a recovering user's reputation rises faster than the overall rate", () => {
    // 20 failures then 10 successes: recent 1.0, overall 10/30 → 0.7 + 0.1 = 0.8
    const h = replay([...Array(20).fill(false), ...Array(10).fill(true)]);
    expect(reputationOf(h)).toBeCloseTo(0.8, 12);
  });

  it("property: reputation stays in [0, 1] and the window never exceeds 10", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 60 }), (outcomes) => {
        const h = replay(outcomes);
        const r = reputationOf(h);
        return r >= 0 && r <= 1 && h.recent.length <= DEFAULTS.recentWindow && h.taskCount === outcomes.length;
      }),
    );
  });
});

describe("userContextOf", () => {
  it("a new user: no tasks, rates 0, not inactive", () => {
    const c = userContextOf(emptyUserHistory(), 1000);
    expect(c).toMatchObject({
      taskCount: 0,
      successRate: 0,
      reputation: 0,
      recentErrors: 0,
      inactive: false,
      lastTaskAt: null,
    });
  });

  it("counts recent errors in the window only", () => {
    // 5 early failures, then 10 successes: window has 0 failures, lifetime 5.
    const c = userContextOf(replay([...Array(5).fill(false), ...Array(10).fill(true)]), 100);
    expect(c.recentErrors).toBe(0);
    expect(c.errorCount).toBe(5);
    expect(c.successRate).toBeCloseTo(10 / 15, 12);
  });

  it("inactive exactly after 30 days (strictly older than the window)", () => {
    const h = replay([true], undefined, 0); // lastTaskAt = 0
    expect(userContextOf(h, 30 * DAY).inactive).toBe(false);
    expect(userContextOf(h, 30 * DAY + 1).inactive).toBe(true);
  });
});
