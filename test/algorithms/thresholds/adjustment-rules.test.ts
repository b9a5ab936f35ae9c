import { describe, expect, it } from "vitest";
import {
  matchingRules,
  RESOURCE_RULES,
  RULES,
  selectRule,
  type ThresholdRule,
  validateRules,
} from "../../../algorithms/thresholds/adjustment-rules.ts";
import { ThresholdError } from "../../../algorithms/thresholds/errors.ts";

const fire = (...s: string[]) => new Set(s);

describe("RULES table", () => {
  it("has the seed's six rules and its two complexity rules with their thresholds, priorities and categories", () => {
    expect(RULES.map((r) => [r.id, r.threshold, r.priority, r.category])).toEqual([
      ["critical_production", 0.8, 10, "up"],
      ["error_rate_high", 0.75, 10, "up"],
      ["task_urgency_high", 0.62, 9, "down"],
      ["new_user", 0.75, 9, "up"],
      ["user_history_positive", 0.65, 8, "down"],
      ["complex_task", 0.72, 8, "up"],
      ["similar_task_success", 0.6, 7, "down"],
      ["simple_task", 0.65, 7, "down"],
    ]);
  });
  it("complex beats trusted on their tie (up first); similar_task_success beats simple_task (table order)", () => {
    expect(selectRule(fire("trusted_user", "complex_task"))?.id).toBe("complex_task");
    expect(selectRule(fire("simple_task", "similar_success"))?.id).toBe("similar_task_success");
    expect(selectRule(fire("simple_task", "urgent_task"))?.id).toBe("task_urgency_high");
  });
});

describe("selectRule: each rule alone", () => {
  const cases: [string, string, number][] = [
    ["critical_production", "critical_production", 0.8],
    ["high_error_rate", "error_rate_high", 0.75],
    ["urgent_task", "task_urgency_high", 0.62],
    ["new_unproven_user", "new_user", 0.75],
    ["trusted_user", "user_history_positive", 0.65],
    ["similar_success", "similar_task_success", 0.6],
    ["complex_task", "complex_task", 0.72],
    ["simple_task", "simple_task", 0.65],
  ];
  for (const [signal, id, threshold] of cases) {
    it(`${signal} → ${id} (${threshold})`, () => {
      const r = selectRule(fire(signal));
      expect(r?.id).toBe(id);
      expect(r?.threshold).toBe(threshold);
    });
  }

  it("no signal → no rule", () => {
    expect(selectRule(fire())).toBeUndefined();
  });

  it("resource signals select nothing in the default table, their rules with RESOURCE_RULES", () => {
    expect(selectRule(fire("resource_critical", "low_resources", "resource_healthy", "disk_pressure"))).toBeUndefined();
    expect(selectRule(fire("resource_critical"), [...RULES, ...RESOURCE_RULES])?.threshold).toBe(0.75);
    expect(selectRule(fire("resource_healthy"), [...RULES, ...RESOURCE_RULES])?.threshold).toBe(0.65);
  });
});

describe("selectRule: priority and tie-breaking", () => {
  it("higher priority wins: urgent (9) over trusted (8)", () => {
    expect(selectRule(fire("trusted_user", "urgent_task"))?.id).toBe("task_urgency_high");
  });

  it("priority 10 beats 9: error rate over urgency", () => {
    expect(selectRule(fire("urgent_task", "high_error_rate"))?.id).toBe("error_rate_high");
  });

  it("tie at priority 9: up (new_user) beats down (task_urgency_high)", () => {
    expect(selectRule(fire("urgent_task", "new_unproven_user"))?.id).toBe("new_user");
  });

  it("tie at priority 10 between two up rules: table order (critical_production first)", () => {
    expect(selectRule(fire("high_error_rate", "critical_production"))?.id).toBe("critical_production");
  });

  it("a custom down rule tied with an up rule loses even when listed first", () => {
    const rules: ThresholdRule[] = [
      { id: "lenient", signal: "a", threshold: 0.6, priority: 5, category: "down", reason: "a" },
      { id: "strict", signal: "b", threshold: 0.8, priority: 5, category: "up", reason: "b" },
    ];
    expect(selectRule(fire("a", "b"), rules)?.id).toBe("strict");
  });

  it("matchingRules lists every match in selection order", () => {
    const ids = matchingRules(
      fire(
        "similar_success",
        "trusted_user",
        "urgent_task",
        "new_unproven_user",
        "high_error_rate",
        "critical_production",
      ),
    ).map((r) => r.id);
    expect(ids).toEqual([
      "critical_production",
      "error_rate_high",
      "new_user",
      "task_urgency_high",
      "user_history_positive",
      "similar_task_success",
    ]);
  });
});

describe("validateRules", () => {
  it("throws on a threshold outside [0, 1]", () => {
    expect(() =>
      validateRules([{ id: "bad", signal: "x", threshold: 1.2, priority: 1, category: "up", reason: "" }]),
    ).toThrow(ThresholdError);
  });
});
