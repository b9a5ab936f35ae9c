import { describe, expect, it } from "vitest";
import { createRuleBasedDetector } from "../../../algorithms/thresholds/context-detection.ts";
import {
  appendToTimeline,
  type ContextDetector,
  NEUTRAL_CONTEXT,
  runDetectorChain,
  toTaskContext,
} from "../../../algorithms/thresholds/detector-chain.ts";
import { ThresholdError } from "../../../algorithms/thresholds/errors.ts";

const security: ContextDetector = {
  name: "SecurityReviewDetector",
  detect(input, partial) {
    if (!/security|vulnerab/i.test(input.text)) return {};
    // Reads what earlier detectors found, adds its own fields.
    return { operationType: "security-review", userStates: partial.atRisk ? ["needs-guidance"] : [] };
  },
};

describe("runDetectorChain", () => {
  it("an empty chain returns the neutral context", () => {
    expect(runDetectorChain([], { text: "anything" })).toEqual(NEUTRAL_CONTEXT);
  });

  it("each detector adds fields and names itself in detectedBy, in order", () => {
    const d = runDetectorChain([createRuleBasedDetector(), security], {
      text: "fix the security hole in the API",
      workflow: { steps: [{ success: false }, { success: false }, { success: false }, { success: false }], replans: 3 },
    });
    expect(d.detectedBy).toEqual(["RuleBasedDetector", "SecurityReviewDetector"]);
    expect(d.operationType).toBe("security-review"); // later detector overrides
    expect(d.operationTypes[0]).toBe("debugging"); // untouched field from the first detector
    expect(d.domain).toBe("backend");
    expect(d.userStates).toEqual(["frustrated", "needs-guidance"]); // union
    expect(d.taskHealth).toBe("OffTrack");
  });

  it("undefined fields from a detector do not erase earlier ones", () => {
    const blank: ContextDetector = { name: "Blank", detect: () => ({ domain: undefined }) };
    const d = runDetectorChain([createRuleBasedDetector(), blank], { text: "style the CSS" });
    expect(d.domain).toBe("frontend");
    expect(d.detectedBy).toEqual(["RuleBasedDetector", "Blank"]);
  });

  it("fields no detector set are filled from the neutral context", () => {
    const only: ContextDetector = { name: "Only", detect: () => ({ urgency: "high" }) };
    const d = runDetectorChain([only], { text: "" });
    expect(d).toEqual({ ...NEUTRAL_CONTEXT, urgency: "high", userStates: [], detectedBy: ["Only"] });
  });
});

describe("appendToTimeline", () => {
  it("appends and keeps the last maxLength entries without mutating", () => {
    const t = [1, 2, 3];
    expect(appendToTimeline(t, 4, 3)).toEqual([2, 3, 4]);
    expect(appendToTimeline(t, 4, 10)).toEqual([1, 2, 3, 4]);
    expect(t).toEqual([1, 2, 3]);
  });

  it("throws on a zero length", () => {
    expect(() => appendToTimeline([], 1, 0)).toThrow(ThresholdError);
  });
});

describe("toTaskContext", () => {
  it("maps a detected context to the gate's task context", () => {
    const d = runDetectorChain([createRuleBasedDetector()], {
      text: "urgent: fix the API",
      workflow: { steps: [], replans: 3 },
    });
    expect(toTaskContext(d, "proj")).toEqual({
      urgency: "high",
      hasUrgencyKeywords: true,
      complexity: d.complexity,
      domain: "backend",
      operationType: "debugging",
      project: "proj",
      atRisk: true,
      offTrack: false,
    });
  });
});
