import { describe, expect, it } from "vitest";
import { type ContextDetector, NEUTRAL_CONTEXT } from "../../algorithms/thresholds/detector-chain.ts";
import { ThresholdError } from "../../algorithms/thresholds/errors.ts";
import { ContextDetectorChain } from "../../src/gate/context-detector-chain.ts";

const tagger: ContextDetector = { name: "Tagger", detect: () => ({ userStates: ["tagged"] }) };

describe("ContextDetectorChain", () => {
  it("runs the rule-based detector by default", () => {
    const chain = new ContextDetectorChain({ now: () => 0 });
    expect(chain.detectorNames).toEqual(["RuleBasedDetector"]);
    const d = chain.detect({ text: "urgent: debug the API" });
    expect(d).toMatchObject({
      operationType: "debugging",
      domain: "backend",
      urgency: "high",
      detectedBy: ["RuleBasedDetector"],
    });
  });

  it("project-configured domains reach the rule-based detector", () => {
    const chain = new ContextDetectorChain({ ruleBased: { domains: { payments: ["invoice"] } } });
    expect(chain.detect({ text: "resend the invoice" }).domain).toBe("payments");
  });

  it("registerDetector appends a custom detector to the chain", () => {
    const chain = new ContextDetectorChain();
    chain.registerDetector(tagger);
    const d = chain.detect({ text: "x" });
    expect(d.detectedBy).toEqual(["RuleBasedDetector", "Tagger"]);
    expect(d.userStates).toEqual(["tagged"]);
  });

  it("registering two detectors with one name is a misuse", () => {
    const chain = new ContextDetectorChain();
    chain.registerDetector(tagger);
    expect(() => chain.registerDetector(tagger)).toThrow(ThresholdError);
  });

  it("unregisterDetector removes by name", () => {
    const chain = new ContextDetectorChain();
    chain.registerDetector(tagger);
    expect(chain.unregisterDetector("Tagger")).toBe(true);
    expect(chain.unregisterDetector("Tagger")).toBe(false);
    expect(chain.detectorNames).toEqual(["RuleBasedDetector"]);
  });

  it("disabled: returns the constant neutral context, runs nothing, records nothing", () => {
    let calls = 0;
    const counting: ContextDetector = {
      name: "Counting",
      detect: () => {
        calls++;
        return {};
      },
    };
    const chain = new ContextDetectorChain({ enabled: false, detectors: [counting] });
    expect(chain.detect({ text: "urgent" }, "wf")).toBe(NEUTRAL_CONTEXT);
    expect(calls).toBe(0);
    expect(chain.timeline("wf")).toEqual([]);
    chain.setEnabled(true);
    chain.detect({ text: "urgent" }, "wf");
    expect(calls).toBe(1);
  });

  it("keeps a bounded timeline per workflow, oldest first", () => {
    let t = 0;
    const chain = new ContextDetectorChain({ timelineLength: 3, now: () => t });
    for (let i = 0; i < 5; i++) {
      t = i;
      chain.detect({ text: "x", workflow: { steps: [], replans: i } }, "wf");
    }
    const tl = chain.timeline("wf");
    expect(tl.map((e) => e.at)).toEqual([2, 3, 4]);
    expect(tl.map((e) => e.detected.atRisk)).toEqual([false, true, true]); // replans 2, 3, 4
    expect(chain.latest("wf")?.atRisk).toBe(true);
  });

  it("detection without a workflow id records no timeline", () => {
    const chain = new ContextDetectorChain();
    chain.detect({ text: "x" });
    expect(chain.latest("wf")).toBeUndefined();
  });

  it("keeps at most maxWorkflows timelines, dropping the least recently detected", () => {
    const chain = new ContextDetectorChain({ maxWorkflows: 2 });
    chain.detect({ text: "a" }, "w1");
    chain.detect({ text: "b" }, "w2");
    chain.detect({ text: "a again" }, "w1");
    chain.detect({ text: "c" }, "w3");
    expect(chain.timeline("w2")).toEqual([]);
    expect(chain.timeline("w1")).toHaveLength(2);
    expect(chain.timeline("w3")).toHaveLength(1);
  });

  it("clearTimeline forgets a workflow", () => {
    const chain = new ContextDetectorChain();
    chain.detect({ text: "a" }, "w");
    chain.clearTimeline("w");
    expect(chain.timeline("w")).toEqual([]);
  });

  it("rejects a zero timeline length", () => {
    expect(() => new ContextDetectorChain({ timelineLength: 0 })).toThrow(/timelineLength/);
  });
});
