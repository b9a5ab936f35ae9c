import { describe, expect, it } from "vitest";
import { adjustThreshold } from "../../../algorithms/thresholds/adjust-threshold.ts";
import { decide } from "../../../algorithms/thresholds/gate-decision.ts";
import {
  buildReasoningReport,
  complexityRisk,
  renderReasoningReport,
  resourceRisk,
  uncertaintyRisk,
} from "../../../algorithms/thresholds/reasoning-report.ts";

// Scenario 1 of the rule table (trusted user, urgent task → 0.62; docs/decisions/gate-thresholds.md) as the
// gated answer.
const adjustment = adjustThreshold({
  user: { reputation: 0.85, successRate: 0.9, taskCount: 25 },
  task: { urgency: "high", complexity: 0.5, domain: "frontend" },
  environment: { isProduction: false, isCriticalTask: false },
  resources: { memory: 0.4, cpu: 0.2, disk: 0.5 },
});
const decision = decide(0.68, adjustment);

describe("risk cut-offs", () => {
  it("complexity: < 0.3 low, ≤ 0.7 medium, > 0.7 high", () => {
    expect(complexityRisk(0.29)).toBe("low");
    expect(complexityRisk(0.3)).toBe("medium");
    expect(complexityRisk(0.7)).toBe("medium");
    expect(complexityRisk(0.71)).toBe("high");
  });

  it("resource: max(memory, cpu) < 0.60 low, < 0.85 medium, else high; disk > 0.90 raises low", () => {
    expect(resourceRisk({ memory: 0.59, cpu: 0.1 })).toBe("low");
    expect(resourceRisk({ memory: 0.6, cpu: 0.1 })).toBe("medium");
    expect(resourceRisk({ memory: 0.1, cpu: 0.85 })).toBe("high");
    expect(resourceRisk({ memory: 0.1, cpu: 0.1, disk: 0.91 })).toBe("medium");
    expect(resourceRisk(undefined)).toBe("unknown");
  });

  it("uncertainty: ≥ 0.85 low, ≥ threshold medium, below high; a close alternative raises low", () => {
    expect(uncertaintyRisk(0.9, 0.7, undefined)).toBe("low");
    expect(uncertaintyRisk(0.9, 0.7, 0.86)).toBe("medium");
    expect(uncertaintyRisk(0.9, 0.7, 0.85)).toBe("low");
    expect(uncertaintyRisk(0.72, 0.7, undefined)).toBe("medium");
    expect(uncertaintyRisk(0.6, 0.7, undefined)).toBe("high");
  });
});

describe("buildReasoningReport", () => {
  const report = buildReasoningReport({
    chosen: { id: "fs:read", label: "Read file" },
    decision,
    adjustment,
    scoreBreakdown: { semantic: 0.51, graph: 0.17 },
    alternatives: [
      { id: "fs:grep", score: 0.61 },
      { id: "web:search", score: 0.66, reason: "no network" },
      { id: "fs:stat", score: 0.64 },
    ],
  });

  it("carries the chosen item, confidence and decision", () => {
    expect(report.chosen).toEqual({ id: "fs:read", label: "Read file" });
    expect(report.confidence).toEqual({ score: 0.68, level: "medium", decision: "accepted-with-caution" });
  });

  it("derives key factors from the breakdown: 0.51/0.68 = 75%, 0.17/0.68 = 25%", () => {
    expect(report.keyFactors.map((f) => f.name)).toEqual(["semantic", "graph"]);
    expect(report.keyFactors[0]!.weight).toBeCloseTo(0.75, 12);
    expect(report.keyFactors[1]!.weight).toBeCloseTo(0.25, 12);
  });

  it("explains why each alternative lost", () => {
    expect(report.alternatives.map((a) => a.reason)).toEqual([
      "below threshold 0.62",
      "no network",
      "0.04 below the chosen score", // 0.68 − 0.64
    ]);
  });

  it("records the threshold adjustment and rule", () => {
    expect(report.threshold).toMatchObject({
      original: 0.7,
      adjusted: 0.62,
      rules: ["task_urgency_high"],
      level: "lenient",
    });
  });

  it("assesses risks: complexity 0.5 medium, resources low, uncertainty medium", () => {
    expect(report.risk).toEqual({ complexity: "medium", resource: "low", uncertainty: "medium" });
  });

  it("adds the caution flag", () => {
    expect(report.flags).toEqual(["caution"]);
  });

  it("given key factors are used as is", () => {
    const r = buildReasoningReport({
      chosen: { id: "x" },
      decision,
      adjustment,
      keyFactors: [{ name: "cooccurrence", weight: 0.6 }],
    });
    expect(r.keyFactors).toEqual([{ name: "cooccurrence", weight: 0.6 }]);
  });

  it("empty breakdown and no alternatives → empty lists", () => {
    const r = buildReasoningReport({ chosen: { id: "x" }, decision, adjustment });
    expect(r.scoreBreakdown).toEqual([]);
    expect(r.keyFactors).toEqual([]);
    expect(r.alternatives).toEqual([]);
    expect(r.chosen.label).toBe("x");
  });

  it("an abstained answer is flagged and has high uncertainty", () => {
    const r = buildReasoningReport({ chosen: { id: "x" }, decision: decide(0.5, adjustment), adjustment });
    expect(r.flags).toEqual(["abstained"]);
    expect(r.risk.uncertainty).toBe("high");
  });
});

describe("renderReasoningReport", () => {
  it("renders the seed's sections in order", () => {
    const text = renderReasoningReport(
      buildReasoningReport({
        chosen: { id: "fs:read", label: "Read file" },
        decision,
        adjustment,
        scoreBreakdown: { semantic: 0.51, graph: 0.17 },
        alternatives: [{ id: "fs:grep", score: 0.61 }],
      }),
    );
    expect(text).toBe(
      [
        "🤖 **Tool Selection Report**",
        "",
        "**Selected**: Read file (fs:read)",
        "**Confidence Score**: 68% (medium) — accepted with caution",
        "",
        "**Selection Reasoning**:",
        "├─ semantic → Score: 0.51",
        "└─ graph → Score: 0.17",
        "",
        "**Key Decision Factors**:",
        "1. semantic — 75%",
        "2. graph — 25%",
        "",
        "**Alternatives Considered**:",
        "• fs:grep: Confidence 61% — below threshold 0.62",
        "",
        "**Auto-Activated Flags**:",
        "caution",
        "",
        "**Threshold Adjustment**:",
        "0.70 → 0.62 (lenient, rule task_urgency_high)",
        "Threshold decreased by 11% (0.70 → 0.62). Rule: task_urgency_high. Reason: High urgency task detected - prioritize speed over strictness",
        "",
        "**Risk Assessment**:",
        "• Complexity Risk: medium",
        "• Resource Risk: low",
        "• Uncertainty Risk: medium",
      ].join("\n"),
    );
  });

  it("renders empty sections as (none)", () => {
    const text = renderReasoningReport(
      buildReasoningReport({ chosen: { id: "x" }, decision: decide(0.9, adjustment), adjustment }),
    );
    expect(text).toContain("└─ (no breakdown)");
    expect(text).toContain("**Alternatives Considered**:\n(none)");
    expect(text).toContain("**Auto-Activated Flags**:\n(none)");
  });
});
