import { describe, expect, it } from "vitest";
import { ResultCache } from "../../src/library/result-cache.ts";

describe("ResultCache", () => {
  it("answers a repeated key from the cache with a fresh copy the caller may mutate", async () => {
    const c = new ResultCache(10, 1000, () => 0);
    let calls = 0;
    const compute = async () => ({ n: ++calls, items: [{ tool: "a", score: 0.5 }], at: new Date(5) });
    const first = await c.get("k", compute);
    first.items.push({ tool: "mutated", score: 1 });
    const second = await c.get("k", compute);
    const third = await c.get("k", compute);
    expect(calls).toBe(1);
    expect(second).toEqual({ n: 1, items: [{ tool: "a", score: 0.5 }], at: new Date(5) });
    second.items[0]!.score = 9;
    expect(third.items[0]!.score).toBe(0.5);
    expect(c.stats()).toMatchObject({ hits: 2, misses: 1, size: 1 });
    expect(c.stats().bytes).toBeGreaterThan(0);
  });

  it("evicts the least recently used entry beyond the capacity", async () => {
    const c = new ResultCache(2, 1000, () => 0);
    let calls = 0;
    const compute = async () => ++calls;
    await c.get("a", compute); // 1
    await c.get("b", compute); // 2
    await c.get("a", compute); // hit: a is now the most recent
    await c.get("c", compute); // 3, evicts b
    expect(await c.get("a", compute)).toBe(1);
    expect(await c.get("b", compute)).toBe(4);
    expect(c.stats()).toMatchObject({ size: 2, hits: 2, misses: 4 });
  });

  it("recomputes after the ttl and drops expired entries on the next write", async () => {
    let now = 0;
    const c = new ResultCache(100, 10, () => now);
    let calls = 0;
    const compute = async () => ++calls;
    await c.get("a", compute);
    await c.get("b", compute);
    now = 10;
    expect(await c.get("a", compute)).toBe(1); // age 10 ≤ ttl: still fresh
    now = 11;
    const oneEntry = c.stats().bytes / 2;
    expect(await c.get("c", compute)).toBe(3); // a and b (stored at 0) have expired: dropped on this write
    expect(c.stats().size).toBe(1);
    expect(c.stats().bytes).toBe(oneEntry);
    expect(await c.get("a", compute)).toBe(4); // recomputed
    expect(await c.get("c", compute)).toBe(3); // c (stored at 11) is fresh
    expect(c.stats()).toMatchObject({ size: 2, hits: 2, misses: 4 });
  });

  it("capacity 0 disables caching", async () => {
    const c = new ResultCache(0);
    let calls = 0;
    await c.get("a", async () => ++calls);
    await c.get("a", async () => ++calls);
    expect(calls).toBe(2);
    expect(c.stats().size).toBe(0);
  });
});
