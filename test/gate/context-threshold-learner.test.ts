import { describe, expect, it } from "vitest";
import type { ContextKey, ContextThresholdState } from "../../algorithms/thresholds/context-learning.ts";
import { ContextThresholdLearner, type ContextThresholdStore } from "../../src/gate/context-threshold-learner.ts";

/**
 * In-memory fake of the narrow ContextThresholdStore seam (two methods). Allowed because the seam is narrow;
 * the database implementation belongs to the store layer and is tested there.
 */
class MemoryContextThresholdStore implements ContextThresholdStore {
  readonly rows = new Map<string, ContextThresholdState>();
  loads = 0;
  async load(key: ContextKey): Promise<ContextThresholdState | undefined> {
    this.loads++;
    await Promise.resolve();
    return this.rows.get(JSON.stringify(key));
  }
  async save(key: ContextKey, state: ContextThresholdState): Promise<void> {
    await Promise.resolve();
    this.rows.set(JSON.stringify(key), state);
  }
}

const key: ContextKey = { project: "p", operation: "debugging", domain: "backend" };

describe("ContextThresholdLearner", () => {
  it("peek is 0 before anything is loaded", () => {
    const l = new ContextThresholdLearner(new MemoryContextThresholdStore());
    expect(l.peek(key)).toBe(0);
  });

  it("warm loads a stored offset, then peek reads it without I/O", async () => {
    const store = new MemoryContextThresholdStore();
    const writer = new ContextThresholdLearner(store);
    await writer.recordOutcome(key, "accepted-failed");
    const reader = new ContextThresholdLearner(store);
    expect(await reader.warm(key)).toBeCloseTo(0.01, 12);
    const loads = store.loads;
    expect(reader.peek(key)).toBeCloseTo(0.01, 12);
    await reader.warm(key);
    expect(store.loads).toBe(loads); // cached
  });

  it("version counts every load and learned step; freshUntil is the load time plus the TTL", async () => {
    let t = 1_000;
    const store = new MemoryContextThresholdStore();
    const l = new ContextThresholdLearner(store, { now: () => t, cacheTtlMs: 500 });
    expect(l.version).toBe(0);
    expect(l.freshUntil(key)).toBe(Number.NEGATIVE_INFINITY);
    await l.warm(key);
    expect(l.version).toBe(1);
    expect(l.freshUntil(key)).toBe(1_500);
    t = 1_200;
    await l.warm(key); // cached and fresh: nothing changes
    expect(l.version).toBe(1);
    await l.recordOutcome(key, "accepted-failed");
    expect(l.version).toBe(2);
    expect(l.freshUntil(key)).toBe(1_700);
    t = 1_800;
    await l.warm(key); // stale: reloaded
    expect(l.version).toBe(3);
    expect(l.freshUntil(key)).toBe(2_300);
    expect(l.freshUntil({ ...key, domain: "frontend" })).toBe(Number.NEGATIVE_INFINITY);
  });

  it("outcomes move the offset by one step each and persist", async () => {
    const store = new MemoryContextThresholdStore();
    const l = new ContextThresholdLearner(store);
    await l.recordOutcome(key, "accepted-failed");
    await l.recordOutcome(key, "accepted-failed");
    await l.recordOutcome(key, "abstained-followed-succeeded");
    await l.recordOutcome(key, "accepted-succeeded");
    // +0.01 +0.01 −0.01 +0 = +0.01
    expect(l.peek(key)).toBeCloseTo(0.01, 12);
    expect(store.rows.get(JSON.stringify(key))?.counts["accepted-failed"]).toBe(2);
  });

  it("stays within bounds under many outcomes, also concurrently", async () => {
    const l = new ContextThresholdLearner(new MemoryContextThresholdStore());
    await Promise.all(Array.from({ length: 30 }, () => l.recordOutcome(key, "accepted-failed")));
    expect(l.peek(key)).toBeCloseTo(0.1, 12);
  });

  it("contexts are independent", async () => {
    const l = new ContextThresholdLearner(new MemoryContextThresholdStore());
    await l.recordOutcome(key, "abstained-followed-succeeded");
    expect(l.peek({ ...key, domain: "frontend" })).toBe(0);
  });

  it("a configured step and floor apply", async () => {
    const l = new ContextThresholdLearner(new MemoryContextThresholdStore(), { step: 0.05, floor: 0.5 });
    for (let i = 0; i < 6; i++) await l.recordOutcome(key, "abstained-followed-succeeded");
    expect(l.peek(key)).toBeCloseTo(-0.2, 12);
  });
});
