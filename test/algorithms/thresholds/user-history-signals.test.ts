import { describe, expect, it } from "vitest";
import { extractUserHistorySignals } from "../../../algorithms/thresholds/user-history-signals.ts";

const trusted = { reputation: 0.85, successRate: 0.9, taskCount: 25 };

describe("extractUserHistorySignals", () => {
  it("trusted_user at exactly reputation 0.80, success 0.85 and 10 tasks (inclusive bounds)", () => {
    const r = extractUserHistorySignals({ reputation: 0.8, successRate: 0.85, taskCount: 10 });
    expect(r.signals).toEqual(["trusted_user"]);
    expect(r.recommendation).toBe("down");
  });

  it("no trusted_user just below each bound", () => {
    expect(extractUserHistorySignals({ reputation: 0.7999, successRate: 0.85, taskCount: 10 }).signals).toEqual([]);
    expect(extractUserHistorySignals({ reputation: 0.8, successRate: 0.8499, taskCount: 10 }).signals).toEqual([]);
    expect(extractUserHistorySignals({ reputation: 0.8, successRate: 0.85, taskCount: 9 }).signals).toEqual([]);
  });

  it("high_error_rate at exactly 3 recent errors, not at 2", () => {
    expect(extractUserHistorySignals({ ...trusted, recentErrors: 3 }).signals).toContain("high_error_rate");
    expect(extractUserHistorySignals({ ...trusted, recentErrors: 2 }).signals).not.toContain("high_error_rate");
  });

  it("high_error_rate below 50% success, not at exactly 50%", () => {
    const base = { reputation: 0.5, taskCount: 10 };
    expect(extractUserHistorySignals({ ...base, successRate: 0.49 }).signals).toContain("high_error_rate");
    expect(extractUserHistorySignals({ ...base, successRate: 0.5 }).signals).not.toContain("high_error_rate");
  });

  it("a user with no tasks is new, not high-error (success rate 0 is undefined there)", () => {
    const r = extractUserHistorySignals({ reputation: 0, successRate: 0, taskCount: 0 });
    expect(r.signals).toEqual(["new_unproven_user"]);
    expect(r.recommendation).toBe("up");
  });

  it("new_unproven_user below 5 tasks, not at exactly 5", () => {
    expect(extractUserHistorySignals({ reputation: 0.6, successRate: 0.6, taskCount: 4 }).signals).toEqual([
      "new_unproven_user",
    ]);
    expect(extractUserHistorySignals({ reputation: 0.6, successRate: 0.6, taskCount: 5 }).signals).toEqual([]);
  });

  it("new_unproven_user below 30% reputation, not at exactly 30%", () => {
    const base = { successRate: 0.6, taskCount: 20 };
    expect(extractUserHistorySignals({ ...base, reputation: 0.29 }).signals).toEqual(["new_unproven_user"]);
    expect(extractUserHistorySignals({ ...base, reputation: 0.3 }).signals).toEqual([]);
  });

  it("an inactive trusted user is also unproven; the up signal is listed first", () => {
    const r = extractUserHistorySignals({ ...trusted, inactive: true });
    expect(r.signals).toEqual(["new_unproven_user", "trusted_user"]);
    expect(r.recommendation).toBe("up");
    expect(r.reasoning).toMatch(/inactive/);
  });

  it("similar_success at exactly 80% in the task's domain with 3+ tasks there", () => {
    const domains = { backend: { total: 5, successes: 4 }, frontend: { total: 2, successes: 2 } };
    const user = { reputation: 0.7, successRate: 0.7, taskCount: 20, domains };
    const hit = extractUserHistorySignals(user, { domain: "backend" });
    expect(hit.signals).toEqual(["similar_success"]);
    expect(hit.similarTaskSuccessRate).toBeCloseTo(0.8, 12);
    // frontend has only 2 tasks (< 3): no rate, no signal.
    const few = extractUserHistorySignals(user, { domain: "frontend" });
    expect(few.signals).toEqual([]);
    expect(few.similarTaskSuccessRate).toBeUndefined();
  });

  it("no similar_success at 79% or for an unknown domain", () => {
    const domains = { backend: { total: 100, successes: 79 } };
    const user = { reputation: 0.7, successRate: 0.7, taskCount: 100, domains };
    expect(extractUserHistorySignals(user, { domain: "backend" }).signals).toEqual([]);
    expect(extractUserHistorySignals(user, { domain: "nope" }).signals).toEqual([]);
  });

  it("similar past tasks above the floor: similar_success names how many and the floor", () => {
    const user = { reputation: 0.6, successRate: 0.6, taskCount: 8 };
    const r = extractUserHistorySignals(user, {
      similarPastSuccess: { rate: 0.9, executions: 4, floor: 0.5, best: 0.8 },
    });
    expect(r.signals).toEqual(["similar_success"]);
    expect(r.reasoning).toBe("similar_success: 90% success of 4 similar past executions (similarity ≥ 0.50)");
  });

  it("no similar past task: no similar_success (not even from the domain counter), and the reasoning says so", () => {
    const domains = { backend: { total: 10, successes: 10 } };
    const user = { reputation: 0.6, successRate: 0.6, taskCount: 8, domains };
    const r = extractUserHistorySignals(user, {
      domain: "backend",
      similarPastSuccess: { rate: null, executions: 0, floor: 0.5, best: 0.21 },
    });
    expect(r.signals).toEqual([]);
    expect(r.similarTaskSuccessRate).toBeUndefined();
    expect(r.reasoning).toBe(
      "No user-history signal; no similar past task: no past execution is similar enough (similarity ≥ 0.50, the closest reaches 0.21)",
    );
  });

  it("high error rate overrides everything (listed first, up)", () => {
    const r = extractUserHistorySignals({ reputation: 0.25, successRate: 0.4, taskCount: 2 });
    expect(r.signals).toEqual(["high_error_rate", "new_unproven_user"]);
    expect(r.recommendation).toBe("up");
  });

  it("no signal → neutral with a reason", () => {
    const r = extractUserHistorySignals({ reputation: 0.6, successRate: 0.6, taskCount: 8 });
    expect(r).toMatchObject({ signals: [], recommendation: "neutral", reasoning: "No user-history signal" });
  });

  it("options move the bounds", () => {
    const r = extractUserHistorySignals({ reputation: 0.6, successRate: 0.6, taskCount: 8 }, undefined, {
      trustedReputation: 0.5,
      trustedSuccessRate: 0.5,
      trustedTasks: 8,
    });
    expect(r.signals).toEqual(["trusted_user"]);
  });
});
