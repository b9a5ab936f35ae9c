/**
 * Gate preparation of requests without a user or workflow id reuses the prepared gate of the same inputs
 * (Gatekeeper.prepareAnonymous): same detection, project, environment, urgency, similar-past success, resource
 * sample and learned offset → the same prepared gate; any of them changed → a new one, whose adjustment equals
 * what adjustThreshold computes directly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Gatekeeper, gatedItem } from "../../src/gate/gatekeeper.ts";
import type { Connection } from "../../src/store/connection.ts";
import { pgliteBackend } from "../helpers/backends.ts";

// One embedded database for the file; the describes use their own projects, so learned offsets never cross.
let conn: Connection;
beforeAll(async () => {
  conn = await pgliteBackend().open();
});
afterAll(async () => {
  await conn?.close();
});

describe("Gatekeeper prepared-gate memo", () => {
  let t = Date.parse("2026-11-01T12:00:00Z");

  it("reuses the adjustment of identical anonymous requests and recomputes it when an input changes", async () => {
    const g = new Gatekeeper(conn.db, { now: () => t, resources: false });
    const req = { project: "p", text: "deploy the hotfix to production now" };
    const a = await g.prepare(req);
    const b = await g.prepare(req);
    expect(b).toBe(a);
    expect(b.adjustment).toBe(a.adjustment);
    expect(a).toMatchObject({
      project: "p",
      user: undefined,
      workflowId: undefined,
      timeline: undefined,
      contextKey: `p/${a.detected.operationType ?? "unknown"}/${a.detected.domain ?? "unknown"}`,
    });
    // Another project: its own gate (and its own context key).
    const other = await g.prepare({ ...req, project: "q" });
    expect(other).not.toBe(a);
    expect(other.contextKey.startsWith("q/")).toBe(true);
    // An explicit urgency that differs from the detected one: a new gate.
    const urgent = await g.prepare({ ...req, urgency: a.detected.urgency === "high" ? "low" : "high" });
    expect(urgent).not.toBe(a);
    expect(urgent.adjustment).toEqual(
      g.manager.adjustThreshold(
        { reputation: 0.5, successRate: 0.7, taskCount: 5, recentErrors: 0 },
        { isProduction: false, isCriticalTask: a.detected.critical },
        { ...toTask(a), urgency: a.detected.urgency === "high" ? "low" : "high" },
      ),
    );
    const direct = g.manager.adjustThreshold(
      { reputation: 0.5, successRate: 0.7, taskCount: 5, recentErrors: 0 },
      { isProduction: false, isCriticalTask: a.detected.critical },
      toTask(a),
    );
    expect(a.adjustment).toEqual(direct);

    const prod = await g.prepare({ ...req, environment: { production: true, critical: true } });
    expect(prod.adjustment).not.toBe(a.adjustment);
    expect(prod.adjustment.adjustedThreshold).toBeGreaterThan(a.adjustment.adjustedThreshold); // critical production is stricter

    const similar = await g.prepare({ ...req, similarPastSuccess: { rate: 0.95, executions: 20 } });
    expect(similar.adjustment).not.toBe(a.adjustment);

    // A learned step for this context moves the offset: the next request gets a new adjustment with it.
    const ctx = a.detected;
    for (let k = 0; k < 3; k++) await g.recordOutcome("p", ctx.operationType, ctx.domain, "accepted-failed");
    t += 120_000; // past the learner's cache TTL, so warm() reloads the stored offset
    const after = await g.prepare(req);
    expect(after).not.toBe(a);
    expect(after.adjustment).not.toBe(a.adjustment);
    expect(after.adjustment.learnedOffset).toBeGreaterThan(0);
    expect(await g.prepare(req)).toBe(after);
    // A learned step in this process replaces the loaded offset at once, without waiting for the TTL.
    await g.recordOutcome("p", ctx.operationType, ctx.domain, "accepted-failed");
    const stepped = await g.prepare(req);
    expect(stepped).not.toBe(after);
    expect(stepped.adjustment.learnedOffset).toBeGreaterThan(after.adjustment.learnedOffset);

    // A named user is never memoised (their history moves the threshold).
    const u1 = await g.prepare({ ...req, user: "ann" });
    const u2 = await g.prepare({ ...req, user: "ann" });
    expect(u2.adjustment).not.toBe(u1.adjustment);
    expect(u2.adjustment).toEqual(u1.adjustment);
  });

  it("shares the adjustment between workflows whose detections are equal, not between different ones", async () => {
    const g = new Gatekeeper(conn.db, { now: () => t, resources: false });
    const wf = (tools: string[], success = true) => ({ steps: tools.map((tool) => ({ tool, success })), replans: 0 });
    const a = await g.prepare({ project: "p", text: "", workflow: wf(["a.x", "a.y", "a.z"]) });
    const b = await g.prepare({ project: "p", text: "", workflow: wf(["b.u", "b.v", "b.w"]) });
    // Other tools, same length and outcomes: the same detected values, so the same objects.
    expect(b.detected).toEqual(a.detected);
    expect(b.detected).toBe(a.detected);
    expect(b).toBe(a);
    // A failed step changes the detection (success rate, health): a new adjustment, equal to the direct one.
    const c = await g.prepare({ project: "p", text: "", workflow: wf(["b.u", "b.v", "b.w"], false) });
    expect(c.detected).not.toEqual(a.detected);
    expect(c.adjustment).not.toBe(a.adjustment);
    const direct = g.manager.adjustThreshold(
      { reputation: 0.5, successRate: 0.7, taskCount: 5, recentErrors: 0 },
      { isProduction: false, isCriticalTask: c.detected.critical },
      toTask(c),
    );
    expect(c.adjustment).toEqual(direct);
  });
});

describe("Gatekeeper prepared-gate memo with the resource monitor on", () => {
  it("answers from the memo within one resource sample and prepares again after a new sample", async () => {
    let t = Date.parse("2026-11-01T12:00:00Z");
    const g = new Gatekeeper(conn.db, { now: () => t });
    const req = { project: "r", text: "list the files" };
    const a = await g.prepare(req);
    t += 500; // within the monitor's 1 s interval: the same sample
    expect(await g.prepare(req)).toBe(a);
    t += 1_000; // a new sample
    const b = await g.prepare(req);
    expect(b).not.toBe(a);
    expect(b.adjustment.resources).toBe(g.manager.resources());
    expect(await g.prepare(req)).toBe(b);
  });
});

function toTask(p: {
  project: string;
  detected: import("../../algorithms/thresholds/detector-chain.ts").DetectedContext;
}) {
  const d = p.detected;
  return {
    urgency: d.urgency,
    hasUrgencyKeywords: d.urgentKeywords.length > 0,
    complexity: d.complexity,
    domain: d.domain,
    operationType: d.operationType,
    project: p.project,
    atRisk: d.atRisk,
    offTrack: d.offTrack,
    similarPastSuccess: undefined,
  };
}

describe("Gatekeeper detection memo", () => {
  it("never answers from a detection of an older chain (detector added or removed, detection off or on)", async () => {
    const g = new Gatekeeper(conn.db, { now: () => Date.parse("2026-11-01T12:00:00Z"), resources: false });
    const req = {
      project: "d",
      text: "deploy the hotfix to production now",
      workflow: { steps: [{ tool: "a.x", success: true }], replans: 0 },
    };
    const before = await g.prepare(req);
    expect(before.detected.detectedBy).toEqual(["RuleBasedDetector"]);
    // A custom detector without an input key: the memo keys on the whole input under the new chain.
    g.detectors.registerDetector({ name: "Tagger", detect: () => ({ userStates: ["tagged"] }) });
    const tagged = await g.prepare(req);
    expect(tagged.detected.userStates).toEqual(["tagged"]);
    expect(tagged.detected.detectedBy).toEqual(["RuleBasedDetector", "Tagger"]);
    g.detectors.unregisterDetector("Tagger");
    expect((await g.prepare(req)).detected).toEqual(before.detected);
    g.detectors.setEnabled(false);
    const off = await g.prepare(req);
    expect(off.detected.detectedBy).toEqual([]);
    expect(off.detected.urgency).toBe("medium");
    g.detectors.setEnabled(true);
    expect((await g.prepare(req)).detected).toEqual(before.detected);
  });
});

describe("Gatekeeper.gateItem", () => {
  it("equals gatedItem(gate(…)) field by field, with and without a calibration, for scores outside [0, 1] too", async () => {
    const g = new Gatekeeper(conn.db, { now: () => Date.parse("2026-11-01T12:00:00Z"), resources: false });
    const prepared = await g.prepare({ project: "g", text: "deploy the hotfix to production now" });
    const scores = [-0.2, 0, 0.1, 0.3, prepared.adjustment.adjustedThreshold, 0.75, 0.85, 0.9, 1, 1.3];
    const check = () => {
      for (const s of scores) {
        const item = g.gateItem("search", s, prepared);
        const expected = gatedItem(g.gate("search", s, prepared, ["fallback"]));
        expect(item).toEqual(expected);
        expect(Object.keys(item)).toEqual(Object.keys(expected));
      }
    };
    check();
    expect(g.gateItem("search", 0.95, prepared).decision).toBe("accepted");
    // A calibration that maps every score to P = 0.5: the gate decides on P, below this threshold.
    expect(prepared.adjustment.adjustedThreshold).toBeGreaterThan(0.5);
    g.setCalibration("g", "search", { blocks: [{ lo: 0, hi: 1, p: 0.5, rate: 0.5, n: 10 }] });
    expect(g.gateItem("search", 0.95, prepared)).toMatchObject({
      decision: "abstained",
      gap: Math.round((prepared.adjustment.adjustedThreshold - 0.5) * 1e6) / 1e6,
    });
    check();
  });
});
