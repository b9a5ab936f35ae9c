/**
 * The gate is usable on its own from the package entry, with the rule table of
 * docs/decisions/gate-thresholds.md: no rule → 0.70; production and critical → 0.80; complexity > 0.7 → 0.72.
 * A score ≥ max(0.85, threshold) is accepted, ≥ threshold accepted with caution, below it abstained with the gap.
 */
import { describe, expect, it } from "vitest";
import { AdaptiveThresholdManager, OPERATIONS } from "../../src/index.ts";

describe("AdaptiveThresholdManager from the package entry", () => {
  const gate = new AdaptiveThresholdManager({ resources: false });
  const calm = { isProduction: false, isCriticalTask: false };
  // An established user with an ordinary record: no user rule matches (new_user needs < 5 tasks).
  const user = { taskCount: 20, successRate: 0.7, reputation: 0.7 };

  it("moves the threshold by the strongest matching rule", () => {
    expect(gate.adjustThreshold(user, calm, { urgency: "medium", complexity: 0.3 }).adjustedThreshold).toBe(0.7);
    expect(
      gate.adjustThreshold(user, { isProduction: true, isCriticalTask: true }, { urgency: "medium", complexity: 0.3 })
        .adjustedThreshold,
    ).toBeCloseTo(0.8, 12);
    expect(gate.adjustThreshold(user, calm, { urgency: "medium", complexity: 0.8 }).adjustedThreshold).toBeCloseTo(
      0.72,
      12,
    );
  });

  it("decides accepted / with caution / abstained with the gap", () => {
    const strict = gate.adjustThreshold(
      user,
      { isProduction: true, isCriticalTask: true },
      { urgency: "medium", complexity: 0.3 },
    );
    expect(gate.gate(0.9, strict).decision).toBe("accepted");
    expect(gate.gate(0.82, strict).decision).toBe("accepted-with-caution");
    const out = gate.gate(0.75, strict, { fallbacks: ["ask.user"] });
    expect(out).toMatchObject({ decision: "abstained" });
    expect((out as { gap: number }).gap).toBeCloseTo(0.05, 12);
  });

  it("the operation table is exported with every door's spelling", () => {
    expect(OPERATIONS.toolInfo).toMatchObject({
      http: { path: "/v1/tools/info" },
      mcp: { name: "tool_info" },
      cli: { command: "tool-info" },
    });
  });
});
