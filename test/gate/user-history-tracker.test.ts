import { describe, expect, it } from "vitest";
import type { UserHistory } from "../../algorithms/thresholds/user-history.ts";
import { extractUserHistorySignals } from "../../algorithms/thresholds/user-history-signals.ts";
import { type UserHistoryStore, UserHistoryTracker } from "../../src/gate/user-history-tracker.ts";

/**
 * In-memory fake of the narrow UserHistoryStore seam (two methods). Allowed here because the seam is narrow;
 * the database implementation belongs to the store layer and is tested there. It counts calls so the cache
 * behaviour can be observed.
 */
class MemoryUserHistoryStore implements UserHistoryStore {
  readonly rows = new Map<string, UserHistory>();
  loads = 0;
  saves = 0;
  async load(project: string, user: string): Promise<UserHistory | undefined> {
    this.loads++;
    await Promise.resolve();
    return this.rows.get(`${project}/${user}`);
  }
  async save(project: string, user: string, h: UserHistory): Promise<void> {
    this.saves++;
    await Promise.resolve();
    this.rows.set(`${project}/${user}`, h);
  }
}

const DAY = 24 * 60 * 60 * 1000;

function setup(start = 1_000_000) {
  const clock = { t: start };
  const store = new MemoryUserHistoryStore();
  const tracker = new UserHistoryTracker(store, { now: () => clock.t });
  return { clock, store, tracker };
}

describe("UserHistoryTracker", () => {
  it("a new user gets an empty context and the new_unproven_user signal", async () => {
    const { tracker } = setup();
    const c = await tracker.getUserContext("p", "alice");
    expect(c).toMatchObject({ taskCount: 0, reputation: 0, inactive: false });
    expect(extractUserHistorySignals(c).signals).toEqual(["new_unproven_user"]);
  });

  it("tracks completions: reputation, domain rates, errors, persisted", async () => {
    const { tracker, store } = setup();
    await tracker.trackTaskCompletion("p", "u", { success: true, domain: "backend" });
    await tracker.trackTaskCompletion("p", "u", { success: false, domain: "backend", errorMessage: "x" });
    const c = await tracker.trackTaskCompletion("p", "u", { success: true, domain: "frontend" });
    // 2 of 3: recent = overall = 2/3 → reputation 2/3
    expect(c.reputation).toBeCloseTo(2 / 3, 12);
    expect(c.domains).toEqual({ backend: { total: 2, successes: 1 }, frontend: { total: 1, successes: 1 } });
    expect(c.errorCount).toBe(1);
    expect(store.rows.get("p/u")?.taskCount).toBe(3);
  });

  it("serves repeated reads from the cache", async () => {
    const { tracker, store } = setup();
    await tracker.getUserContext("p", "u");
    await tracker.getUserContext("p", "u");
    await tracker.getUserContext("p", "u");
    expect(store.loads).toBe(1);
  });

  it("invalidates the cached context when the user's history changes", async () => {
    const { tracker } = setup();
    const before = await tracker.getUserContext("p", "u");
    await tracker.trackTaskCompletion("p", "u", { success: true });
    const after = await tracker.getUserContext("p", "u");
    expect(after).not.toBe(before);
    expect(after.taskCount).toBe(1);
    expect(tracker.peekUserContext("p", "u")).toBe(after);
  });

  it("reloads after the TTL (another process may have written)", async () => {
    const { tracker, store, clock } = setup();
    await tracker.getUserContext("p", "u");
    // Another process (another tracker on the same store) records an outcome.
    const other = new UserHistoryTracker(store, { now: () => clock.t });
    await other.trackTaskCompletion("p", "u", { success: true });
    expect((await tracker.getUserContext("p", "u")).taskCount).toBe(0); // still cached
    clock.t += 60_000;
    expect(tracker.peekUserContext("p", "u")).toBeUndefined();
    expect((await tracker.getUserContext("p", "u")).taskCount).toBe(1);
  });

  it("invalidate() forces the next read to the store", async () => {
    const { tracker, store } = setup();
    await tracker.getUserContext("p", "u");
    tracker.invalidate("p", "u");
    await tracker.getUserContext("p", "u");
    expect(store.loads).toBe(2);
  });

  it("concurrent completions for one user are all recorded", async () => {
    const { tracker, store } = setup();
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => tracker.trackTaskCompletion("p", "u", { success: i % 2 === 0 })),
    );
    expect(store.rows.get("p/u")?.taskCount).toBe(12);
    expect(store.rows.get("p/u")?.recent).toHaveLength(10);
  });

  it("users and projects are separate", async () => {
    const { tracker } = setup();
    await tracker.trackTaskCompletion("p1", "u", { success: true });
    expect((await tracker.getUserContext("p2", "u")).taskCount).toBe(0);
    expect((await tracker.getUserContext("p1", "v")).taskCount).toBe(0);
  });

  it("an inactive user (last task > 30 days ago) is treated as unproven", async () => {
    const { tracker, clock } = setup();
    for (let i = 0; i < 20; i++) await tracker.trackTaskCompletion("p", "u", { success: true });
    const active = await tracker.getUserContext("p", "u");
    expect(extractUserHistorySignals(active).signals).toEqual(["trusted_user"]);
    clock.t += 31 * DAY;
    const c = await tracker.getUserContext("p", "u");
    expect(c.inactive).toBe(true);
    expect(extractUserHistorySignals(c).signals).toEqual(["new_unproven_user", "trusted_user"]);
  });

  it("extreme users: all success → trusted; all fail → high error rate", async () => {
    const { tracker } = setup();
    for (let i = 0; i < 15; i++) {
      await tracker.trackTaskCompletion("p", "good", { success: true });
      await tracker.trackTaskCompletion("p", "bad", { success: false });
    }
    const good = await tracker.getUserContext("p", "good");
    const bad = await tracker.getUserContext("p", "bad");
    expect(good.reputation).toBe(1);
    expect(bad.reputation).toBe(0);
    expect(bad.recentErrors).toBe(10);
    expect(extractUserHistorySignals(good).signals).toEqual(["trusted_user"]);
    expect(extractUserHistorySignals(bad).signals).toEqual(["high_error_rate", "new_unproven_user"]);
  });

  it("a failed save leaves the cache and later writes intact", async () => {
    const { tracker, store } = setup();
    const orig = store.save.bind(store);
    store.save = async () => {
      throw new Error("disk full");
    };
    await expect(tracker.trackTaskCompletion("p", "u", { success: true })).rejects.toThrow("disk full");
    store.save = orig;
    const c = await tracker.trackTaskCompletion("p", "u", { success: true });
    expect(c.taskCount).toBe(1);
  });
});
