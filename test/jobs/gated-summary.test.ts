import { describe, expect, it } from "vitest";
import { adjustThreshold } from "../../algorithms/thresholds/adjust-threshold.ts";
import { NEUTRAL_CONTEXT } from "../../algorithms/thresholds/detector-chain.ts";
import { gatedSummary, preparedGate, summarizeAdjustment, summarizeHealth } from "../../src/gate/gatekeeper.ts";

const adjustment = adjustThreshold({
  user: { reputation: 0.5, successRate: 0.7, taskCount: 5 },
  environment: { isProduction: false, isCriticalTask: false },
  task: { urgency: "medium", complexity: 0.5 },
});
const prepared = preparedGate({
  project: "p",
  adjustment,
  detected: NEUTRAL_CONTEXT,
  user: undefined,
  contextKey: "p/-/-",
});

describe("gatedSummary", () => {
  it("lists the accepted ids and no abstention when one item passes", () => {
    const s = gatedSummary(
      [
        { id: "a", gate: { decision: "abstained" } },
        { id: "b", gate: { decision: "accepted-with-caution" } },
      ],
      (x) => x.id,
      prepared,
      ["f"],
      { empty: "none" },
    );
    expect(s.accepted).toEqual(["b"]);
    expect(s.abstained).toBe(false);
    expect("reason" in s).toBe(false);
    expect(s.threshold.adjusted).toBeCloseTo(0.7, 12);
  });

  it("abstains with the threshold reason and the fallbacks when nothing passes", () => {
    const s = gatedSummary([{ id: "a", gate: { decision: "abstained" } }], (x) => x.id, prepared, ["f"], {
      empty: "none",
    });
    expect(s).toMatchObject({
      accepted: [],
      abstained: true,
      reason: "nothing reached the threshold 0.70",
      fallbacks: ["f"],
    });
  });

  it("says why an empty answer is empty", () => {
    const s = gatedSummary([] as { id: string; gate: { decision: string } }[], (x) => x.id, prepared, [], {
      empty: "the project has no capabilities",
    });
    expect(s).toMatchObject({ abstained: true, reason: "the project has no capabilities", fallbacks: [] });
  });

  it("shows the gate's threshold and health, built once and frozen: answers of one prepared gate share them", () => {
    const items = [{ id: "a", gate: { decision: "accepted" } }];
    const one = gatedSummary(items, (x) => x.id, prepared, [], { empty: "none" });
    const two = gatedSummary([], (x: { id: string }) => x.id, prepared, ["f"], { empty: "none" });
    expect(one.threshold).toBe(prepared.threshold);
    expect(two.threshold).toBe(one.threshold);
    expect(two.health).toBe(one.health);
    // Equal to the summaries built afresh, field by field.
    expect(one.threshold).toEqual(summarizeAdjustment(adjustment));
    expect(one.health).toEqual(summarizeHealth(prepared));
    // Nobody can change what another answer shows.
    expect(Object.isFrozen(one.threshold)).toBe(true);
    expect(Object.isFrozen(one.threshold.appliedRules)).toBe(true);
    expect(Object.isFrozen(one.threshold.signals)).toBe(true);
    expect(Object.isFrozen(one.health.userStates)).toBe(true);
    expect(() => (one.threshold.appliedRules as string[]).push("x")).toThrow(TypeError);
    // The answer's own lists stay its own.
    expect(Object.isFrozen(one.accepted)).toBe(false);
    expect(Object.isFrozen(two.fallbacks)).toBe(false);
  });
});
