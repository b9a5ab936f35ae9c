import { describe, expect, it } from "vitest";
import { fitCalibration } from "../../algorithms/thresholds/calibration.ts";
import type { ContextKey, ContextThresholdState } from "../../algorithms/thresholds/context-learning.ts";
import { toTaskContext } from "../../algorithms/thresholds/detector-chain.ts";
import type { UserHistory } from "../../algorithms/thresholds/user-history.ts";
import { AdaptiveThresholdManager, environmentFromProcess } from "../../src/gate/adaptive-threshold-manager.ts";
import { ContextDetectorChain } from "../../src/gate/context-detector-chain.ts";
import { ContextThresholdLearner, type ContextThresholdStore } from "../../src/gate/context-threshold-learner.ts";
import { ResourceMonitor } from "../../src/gate/resource-monitor.ts";
import { type UserHistoryStore, UserHistoryTracker } from "../../src/gate/user-history-tracker.ts";

// In-memory fakes of the two narrow persistence seams (allowed: each is a two-method interface that the store
// layer implements on the database and tests there).
class MemoryUserHistoryStore implements UserHistoryStore {
  readonly rows = new Map<string, UserHistory>();
  async load(p: string, u: string) {
    return this.rows.get(`${p}/${u}`);
  }
  async save(p: string, u: string, h: UserHistory) {
    this.rows.set(`${p}/${u}`, h);
  }
}
class MemoryContextThresholdStore implements ContextThresholdStore {
  readonly rows = new Map<string, ContextThresholdState>();
  async load(k: ContextKey) {
    return this.rows.get(JSON.stringify(k));
  }
  async save(k: ContextKey, s: ContextThresholdState) {
    this.rows.set(JSON.stringify(k), s);
  }
}

const dev = { isProduction: false, isCriticalTask: false };
const calmResources = { memory: 0.3, cpu: 0.2, disk: 0.4 };

describe("AdaptiveThresholdManager: the rule table's worked scenarios (docs/decisions/gate-thresholds.md)", () => {
  const m = new AdaptiveThresholdManager({ resources: false });

  it("Scenario 1: 0.68 with a trusted user on an urgent task is accepted with caution under 0.62", () => {
    const adj = m.adjustThreshold({ reputation: 0.85, successRate: 0.9, taskCount: 25 }, dev, {
      urgency: "high",
      complexity: 0.5,
      domain: "frontend",
    });
    const d = m.gate(0.68, adj);
    expect(adj.adjustedThreshold).toBe(0.62);
    expect(d).toMatchObject({
      decision: "accepted-with-caution",
      confidence: "medium",
      caution: true,
      threshold: 0.62,
    });
    expect(d.appliedRules).toEqual(["task_urgency_high"]);
  });

  it("Scenario 2: 0.72 for a new user in critical production abstains under 0.80 with fallbacks", () => {
    const adj = m.adjustThreshold(
      { reputation: 0.25, successRate: 0.4, taskCount: 2 },
      { isProduction: true, isCriticalTask: true },
      { urgency: "medium", complexity: 0.6, domain: "backend" },
    );
    const d = m.gate(0.72, adj, { fallbacks: ["search:web"] });
    expect(d).toMatchObject({ decision: "abstained", confidence: "low", threshold: 0.8, fallbacks: ["search:web"] });
    expect(d.gap).toBeCloseTo(0.08, 9);
  });
});

describe("AdaptiveThresholdManager", () => {
  it("reads the cached resource snapshot from its monitor", () => {
    const monitor = new ResourceMonitor({ now: () => 0 });
    const m = new AdaptiveThresholdManager({ resources: monitor });
    const task = { urgency: "medium" as const, complexity: 0.5 };
    const a = m.adjustThreshold({ reputation: 0.6, successRate: 0.6, taskCount: 8 }, dev, task);
    m.adjustThreshold({ reputation: 0.6, successRate: 0.6, taskCount: 8 }, dev, task);
    expect(monitor.samples).toBe(1);
    expect(a.resources).toBe(monitor.snapshot());
    expect(a.signals.resource).toBeDefined();
  });

  it("explicit resources win over the monitor", () => {
    const m = new AdaptiveThresholdManager({ now: () => 0 });
    const a = m.adjustThreshold(
      { reputation: 0.6, successRate: 0.6, taskCount: 8 },
      dev,
      { urgency: "low", complexity: 0.5 },
      {
        memory: 0.99,
        cpu: 0.1,
      },
    );
    expect(a.signals.resource?.signals).toEqual(["resource_critical"]);
  });

  it("uses the learned offset of the task's context once warmed", async () => {
    const learner = new ContextThresholdLearner(new MemoryContextThresholdStore());
    const m = new AdaptiveThresholdManager({ resources: false, learner });
    const task = {
      urgency: "medium" as const,
      complexity: 0.5,
      project: "p",
      operationType: "debugging",
      domain: "backend",
    };
    const user = { reputation: 0.6, successRate: 0.6, taskCount: 8 };
    const key = { project: "p", operation: "debugging", domain: "backend" };
    for (let i = 0; i < 3; i++) await learner.recordOutcome(key, "accepted-failed");
    await m.warm(task);
    // 0.70 + 3 × 0.01 = 0.73
    const adj = m.adjustThreshold(user, dev, task);
    expect(adj.adjustedThreshold).toBeCloseTo(0.73, 9);
    expect(adj.learnedOffset).toBeCloseTo(0.03, 12);
    // Another context is unaffected.
    expect(m.adjustThreshold(user, dev, { ...task, domain: "frontend" }).adjustedThreshold).toBe(0.7);
  });

  it("calibration: a high score whose calibrated success rate is below 0.80 is not high confidence", () => {
    // Scores ≥ 0.85 succeeded only half the time in the calibration data.
    const cal = fitCalibration([0.5, 0.6, 0.9, 0.9, 0.95, 0.95], [0, 1, 1, 0, 1, 0], { z: 0 }); // plain isotonic fit (no Wilson bound)
    const m = new AdaptiveThresholdManager({ resources: false, calibration: cal });
    const adj = m.adjustThreshold({ reputation: 0.6, successRate: 0.6, taskCount: 8 }, dev, {
      urgency: "medium",
      complexity: 0.5,
    });
    const d = m.gate(0.92, adj);
    expect(d.decision).toBe("accepted-with-caution");
    // PAV: 0.6 (1/1) > 0.9 (1/2) → pool [0.6, 0.9] = 2/3 > 0.95 (1/2) → pool [0.6, 0.95] = 3/5 = 0.6
    expect(d.probability).toBeCloseTo(0.6, 12);
    m.setCalibration(undefined);
    expect(m.gate(0.92, adj).decision).toBe("accepted");
  });

  it("report renders JSON and text", () => {
    const m = new AdaptiveThresholdManager({ resources: false });
    const adj = m.adjustThreshold(
      { reputation: 0.6, successRate: 0.6, taskCount: 8 },
      dev,
      { urgency: "medium", complexity: 0.8 },
      calmResources,
    );
    const d = m.gate(0.9, adj);
    const r = m.report({ chosen: { id: "fs:read" }, decision: d, adjustment: adj, scoreBreakdown: { semantic: 0.9 } });
    expect(r.json.risk).toEqual({ complexity: "high", resource: "low", uncertainty: "low" });
    expect(r.text).toContain("**Confidence Score**: 90% (high) — accepted");
  });

  it("environmentFromProcess reads NODE_ENV", () => {
    expect(environmentFromProcess(true, { NODE_ENV: "production" })).toEqual({
      isProduction: true,
      isCriticalTask: true,
      deploymentStage: "production",
    });
    expect(environmentFromProcess(false, {}).isProduction).toBe(false);
  });
});

describe("end to end: tracker → detection → manager", () => {
  it("a struggling workflow of a trusted user in production becomes strict", async () => {
    const tracker = new UserHistoryTracker(new MemoryUserHistoryStore(), { now: () => 1_000 });
    for (let i = 0; i < 12; i++) await tracker.trackTaskCompletion("p", "u", { success: true, domain: "backend" });
    const chain = new ContextDetectorChain({ now: () => 1_000 });
    const detected = chain.detect(
      {
        text: "the API keeps failing, investigate the endpoint",
        workflow: { steps: [{ success: false }, { success: false }, { success: true }], replans: 3 },
      },
      "wf-1",
    );
    const m = new AdaptiveThresholdManager({ resources: false });
    const adj = m.adjustThreshold(await tracker.getUserContext("p", "u"), dev, toTaskContext(detected, "p"));
    // trusted_user → 0.65 (similar_success also fires at 100% but has lower priority);
    // AtRisk (replans 3) + OffTrack (1/3 success) → +0.10 → 0.75
    expect(adj.appliedRules).toEqual(["user_history_positive"]);
    expect(adj.matchedRules.map((r) => r.id)).toContain("similar_task_success");
    expect(adj.adjustedThreshold).toBeCloseTo(0.75, 9);
    expect(m.gate(0.7, adj).decision).toBe("abstained");
  });
});
