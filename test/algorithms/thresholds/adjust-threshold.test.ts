import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { adjustThreshold, createThresholdAdjuster } from "../../../algorithms/thresholds/adjust-threshold.ts";
import { ThresholdError } from "../../../algorithms/thresholds/errors.ts";
import { decide } from "../../../algorithms/thresholds/gate-decision.ts";
import type { EnvironmentContext, TaskContext } from "../../../algorithms/thresholds/types.ts";

const dev: EnvironmentContext = { isProduction: false, isCriticalTask: false };
const plainTask: TaskContext = { urgency: "medium", complexity: 0.5 };
const plainUser = { reputation: 0.6, successRate: 0.6, taskCount: 8 };

describe("the rule table's worked scenarios (docs/decisions/gate-thresholds.md)", () => {
  it("Scenario 1: trusted user + urgent task → 0.62; 0.68 selects the specialist with caution", () => {
    const adj = adjustThreshold({
      user: { reputation: 0.85, successRate: 0.9, taskCount: 25 },
      task: { urgency: "high", complexity: 0.5, domain: "frontend" },
      environment: { isProduction: false, isCriticalTask: false },
    });
    expect(adj.signals.user.signals).toEqual(["trusted_user"]);
    expect(adj.signals.context.signals).toEqual(["urgent_task"]);
    expect(adj.matchedRules.map((r) => [r.id, r.threshold, r.priority])).toEqual([
      ["task_urgency_high", 0.62, 9],
      ["user_history_positive", 0.65, 8],
    ]);
    expect(adj.appliedRules).toEqual(["task_urgency_high"]);
    expect(adj.adjustedThreshold).toBe(0.62);
    expect(adj.delta).toBeCloseTo(-0.08, 12);
    expect(adj.confidenceLevel).toBe("lenient");
    // (0.70 − 0.62) / 0.70 = 11.4% → 11%
    expect(adj.reasoning).toBe(
      "Threshold decreased by 11% (0.70 → 0.62). Rule: task_urgency_high. Reason: High urgency task detected - prioritize speed over strictness",
    );
    const d = decide(0.68, adj);
    expect(d.decision).toBe("accepted-with-caution");
    // Would have failed with the fixed 0.70 threshold.
    expect(0.68 < adj.originalThreshold).toBe(true);
  });

  it("Scenario 2: new user + critical production → 0.80; 0.72 abstains with gap 0.08", () => {
    const adj = adjustThreshold({
      user: { reputation: 0.25, successRate: 0.4, taskCount: 2 },
      task: { urgency: "medium", complexity: 0.6, domain: "backend" },
      environment: { isProduction: true, isCriticalTask: true },
    });
    expect(adj.signals.user.signals).toEqual(["high_error_rate", "new_unproven_user"]);
    expect(adj.signals.context.signals).toEqual(["critical_production"]);
    expect(adj.matchedRules.map((r) => r.id).slice(0, 2)).toEqual(["critical_production", "error_rate_high"]);
    expect(adj.appliedRules).toEqual(["critical_production"]);
    expect(adj.adjustedThreshold).toBe(0.8);
    expect(adj.confidenceLevel).toBe("strict");
    expect(adj.reasoning).toContain("Reason: Critical production environment - maximum validation required");
    const d = decide(0.72, adj, ["web-search"]);
    expect(d.decision).toBe("abstained");
    expect(d.gap).toBeCloseTo(0.08, 9);
    expect(d.fallbacks).toEqual(["web-search"]);
  });
});

describe("adjustThreshold", () => {
  it("no rule → base 0.70, neutral, 'Threshold unchanged'", () => {
    const adj = adjustThreshold({ user: plainUser, task: plainTask, environment: dev });
    expect(adj.adjustedThreshold).toBe(0.7);
    expect(adj.delta).toBe(0);
    expect(adj.appliedRules).toEqual([]);
    expect(adj.confidenceLevel).toBe("neutral");
    expect(adj.reasoning).toBe("Threshold unchanged (0.70). No rule applied");
  });

  it("the seed's reasoning sentence for user_history_positive (7%)", () => {
    const adj = adjustThreshold({
      user: { reputation: 0.85, successRate: 0.9, taskCount: 25 },
      task: plainTask,
      environment: dev,
    });
    // (0.70 − 0.65) / 0.70 = 7.14% → 7%
    expect(adj.reasoning).toBe(
      "Threshold decreased by 7% (0.70 → 0.65). Rule: user_history_positive. Reason: User has proven track record (≥80% reputation, ≥85% success, ≥10 tasks)",
    );
    expect(adj.delta).toBeCloseTo(-0.05, 12);
  });

  it("learned offset is added to the rule threshold: 0.65 + 0.02 = 0.67", () => {
    const adj = adjustThreshold({
      user: { reputation: 0.85, successRate: 0.9, taskCount: 25 },
      task: plainTask,
      environment: dev,
      learnedOffset: 0.02,
    });
    expect(adj.adjustedThreshold).toBeCloseTo(0.67, 9);
    expect(adj.reasoning).toContain("Learned offset for this context: +0.02");
  });

  it("AtRisk adds 0.05: base 0.70 → 0.75", () => {
    const adj = adjustThreshold({ user: plainUser, task: { ...plainTask, atRisk: true }, environment: dev });
    expect(adj.adjustedThreshold).toBeCloseTo(0.75, 9);
    expect(adj.healthPenalty).toBeCloseTo(0.05, 12);
    expect(adj.reasoning).toContain("Task health AtRisk: +0.05");
  });

  it("AtRisk and OffTrack add 0.05 each: 0.65 + 0.10 = 0.75", () => {
    const adj = adjustThreshold({
      user: { reputation: 0.85, successRate: 0.9, taskCount: 25 },
      task: { ...plainTask, atRisk: true, offTrack: true },
      environment: dev,
    });
    expect(adj.adjustedThreshold).toBeCloseTo(0.75, 9);
    expect(adj.clamped).toBe(false);
  });

  it("clamps at the top: critical production 0.80 + AtRisk 0.05 → 0.80", () => {
    const adj = adjustThreshold({
      user: plainUser,
      task: { ...plainTask, atRisk: true },
      environment: { isProduction: true, isCriticalTask: true },
    });
    expect(adj.adjustedThreshold).toBe(0.8);
    expect(adj.clamped).toBe(true);
    expect(adj.reasoning).toMatch(/Clamped to \[0\.60, 0\.80\]$/);
  });

  it("clamps at the bottom: similar_task_success 0.60 − 0.05 learned → 0.60", () => {
    const adj = adjustThreshold({
      user: { reputation: 0.7, successRate: 0.7, taskCount: 20, domains: { backend: { total: 10, successes: 9 } } },
      task: { ...plainTask, domain: "backend" },
      environment: dev,
      learnedOffset: -0.05,
    });
    expect(adj.appliedRules).toEqual(["similar_task_success"]);
    expect(adj.adjustedThreshold).toBe(0.6);
    expect(adj.clamped).toBe(true);
  });

  it("a wider configured range lets the offset through: 0.80 + 0.05 = 0.85 within [0.5, 0.9]", () => {
    const adj = adjustThreshold(
      {
        user: plainUser,
        task: plainTask,
        environment: { isProduction: true, isCriticalTask: true },
        learnedOffset: 0.05,
      },
      { minThreshold: 0.5, maxThreshold: 0.9 },
    );
    expect(adj.adjustedThreshold).toBeCloseTo(0.85, 9);
  });

  it("resource signals are reported but no rule reads them by default", () => {
    const adj = adjustThreshold({
      user: plainUser,
      task: plainTask,
      environment: dev,
      resources: { memory: 0.99, cpu: 0.5 },
    });
    expect(adj.signals.resource?.signals).toEqual(["resource_critical"]);
    expect(adj.adjustedThreshold).toBe(0.7);
  });

  it("a custom rule table can fire on a resource signal", () => {
    const adj = adjustThreshold(
      { user: plainUser, task: plainTask, environment: dev, resources: { memory: 0.99, cpu: 0.5 } },
      {
        rules: [
          {
            id: "resource_critical",
            signal: "resource_critical",
            threshold: 0.75,
            priority: 10,
            category: "up",
            reason: "r",
          },
        ],
      },
    );
    expect(adj.appliedRules).toEqual(["resource_critical"]);
    expect(adj.adjustedThreshold).toBe(0.75);
  });

  it("misuse: base outside [min, max], min > max, non-finite offset", () => {
    expect(() => createThresholdAdjuster({ baseThreshold: 0.9 })).toThrow(ThresholdError);
    expect(() => createThresholdAdjuster({ minThreshold: 0.8, maxThreshold: 0.6 })).toThrow(/exceeds/);
    expect(() =>
      adjustThreshold({ user: plainUser, task: plainTask, environment: dev, learnedOffset: Number.NaN }),
    ).toThrow(/learnedOffset/);
  });

  it("property: adjusted threshold always within [0.60, 0.80] and level matches the sign of delta", () => {
    fc.assert(
      fc.property(
        fc.record({
          reputation: fc.double({ min: 0, max: 1, noNaN: true }),
          successRate: fc.double({ min: 0, max: 1, noNaN: true }),
          taskCount: fc.nat(50),
          recentErrors: fc.nat(10),
          inactive: fc.boolean(),
        }),
        fc.constantFrom("low", "medium", "high") as fc.Arbitrary<"low" | "medium" | "high">,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.double({ min: -0.3, max: 0.3, noNaN: true }),
        (user, urgency, complexity, prod, crit, atRisk, offTrack, learnedOffset) => {
          const adj = adjustThreshold({
            user,
            task: { urgency, complexity, atRisk, offTrack },
            environment: { isProduction: prod, isCriticalTask: crit },
            learnedOffset,
          });
          const t = adj.adjustedThreshold;
          const levelOk =
            (adj.delta > 0 && adj.confidenceLevel === "strict") ||
            (adj.delta < 0 && adj.confidenceLevel === "lenient") ||
            (adj.delta === 0 && adj.confidenceLevel === "neutral");
          return t >= 0.6 && t <= 0.8 && levelOk && adj.appliedRules.length <= 1;
        },
      ),
    );
  });
});
