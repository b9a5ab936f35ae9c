import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CachedEmbeddingProvider, DEFAULTS } from "../../src/embeddings/cached.ts";
import { HashingEmbedder } from "../../src/embeddings/hashing.ts";
import type { EmbeddingProvider, EmbedOptions } from "../../src/embeddings/provider.ts";

/** A real provider (hashing) that records what it was asked. */
class Recording implements EmbeddingProvider {
  readonly inner = new HashingEmbedder({ dimensions: 16 });
  readonly calls: string[][] = [];
  failNext = false;
  closed = false;
  get model() {
    return this.inner.model;
  }
  get dimensions() {
    return this.inner.dimensions;
  }
  async embed(texts: readonly string[], opts?: EmbedOptions) {
    this.calls.push([...texts]);
    if (this.failNext) {
      this.failNext = false;
      throw new Error("inner failed");
    }
    return this.inner.embed(texts, opts);
  }
  async close() {
    this.closed = true;
  }
}

describe("CachedEmbeddingProvider", () => {
  it("delegates model and dimensions; default capacity is 1,000", () => {
    const c = new CachedEmbeddingProvider(new Recording());
    expect(c.model).toBe("hash-v1-16");
    expect(c.dimensions).toBe(16);
    expect(c.capacity).toBe(DEFAULTS.capacity);
    expect(DEFAULTS.capacity).toBe(1000);
  });

  it("a repeated query is a hit and is not sent again", async () => {
    const inner = new Recording();
    const c = new CachedEmbeddingProvider(inner);
    const [first] = await c.embed(["send an email"]);
    const [second] = await c.embed(["send an email"]);
    expect(inner.calls).toEqual([["send an email"]]);
    expect(Array.from(second!)).toEqual(Array.from(first!));
    expect(c.stats()).toEqual({ hits: 1, misses: 1, size: 1, capacity: 1000 });
  });

  it("sends only the misses, deduplicated, in one call; fills every position", async () => {
    const inner = new Recording();
    const c = new CachedEmbeddingProvider(inner);
    await c.embed(["a"]);
    const out = await c.embed(["b", "a", "b", "c"]);
    expect(inner.calls).toEqual([["a"], ["b", "c"]]);
    const [b, a, b2, cc] = await inner.inner.embed(["b", "a", "b", "c"]);
    expect(out.map((v) => Array.from(v))).toEqual([b, a, b2, cc].map((v) => Array.from(v!)));
    expect(c.stats()).toMatchObject({ hits: 1, misses: 3, size: 3 });
  });

  it("evicts the least recently used entry when full", async () => {
    const inner = new Recording();
    const c = new CachedEmbeddingProvider(inner, { capacity: 2 });
    await c.embed(["a"]);
    await c.embed(["b"]);
    await c.embed(["a"]); // a is now more recent than b
    await c.embed(["c"]); // evicts b
    inner.calls.length = 0;
    await c.embed(["a"]);
    await c.embed(["c"]);
    expect(inner.calls).toEqual([]);
    await c.embed(["b"]);
    expect(inner.calls).toEqual([["b"]]);
    expect(c.stats().size).toBe(2);
  });

  it("capacity 0 caches nothing", async () => {
    const inner = new Recording();
    const c = new CachedEmbeddingProvider(inner, { capacity: 0 });
    await c.embed(["a"]);
    await c.embed(["a"]);
    expect(inner.calls).toEqual([["a"], ["a"]]);
    expect(c.stats()).toEqual({ hits: 0, misses: 2, size: 0, capacity: 0 });
  });

  it("returns copies: mutating a result does not change the cache", async () => {
    const c = new CachedEmbeddingProvider(new Recording());
    const [v] = await c.embed(["a"]);
    const original = Array.from(v!);
    v!.fill(42);
    const [again] = await c.embed(["a"]);
    expect(Array.from(again!)).toEqual(original);
  });

  it("an inner failure propagates and caches nothing", async () => {
    const inner = new Recording();
    const c = new CachedEmbeddingProvider(inner);
    inner.failNext = true;
    await expect(c.embed(["a"])).rejects.toThrow("inner failed");
    expect(c.stats().size).toBe(0);
    await c.embed(["a"]);
    expect(inner.calls).toEqual([["a"], ["a"]]);
  });

  it("reports progress over all requested texts, hits included", async () => {
    const c = new CachedEmbeddingProvider(new Recording());
    await c.embed(["a"]);
    const progress: number[][] = [];
    await c.embed(["a", "b", "c", "d"], { onProgress: (d, t) => progress.push([d, t]) });
    expect(progress.at(-1)).toEqual([4, 4]);
    const allHits: number[][] = [];
    await c.embed(["a", "b"], { onProgress: (d, t) => allHits.push([d, t]) });
    expect(allHits).toEqual([[2, 2]]);
  });

  it("keys by model: a different inner model never sees another's vectors", async () => {
    let model = "m1";
    const inner: EmbeddingProvider = {
      get model() {
        return model;
      },
      dimensions: 1,
      embed: async (texts) => texts.map(() => new Float32Array([model === "m1" ? 1 : -1])),
    };
    const c = new CachedEmbeddingProvider(inner);
    expect(Array.from((await c.embed(["q"]))[0]!)).toEqual([1]);
    model = "m2";
    expect(Array.from((await c.embed(["q"]))[0]!)).toEqual([-1]);
    expect(c.stats()).toMatchObject({ hits: 0, misses: 2 });
  });

  it("clear empties the cache and resets counters; close closes the inner provider", async () => {
    const inner = new Recording();
    const c = new CachedEmbeddingProvider(inner);
    await c.embed(["a", "a"]);
    c.clear();
    expect(c.stats()).toEqual({ hits: 0, misses: 0, size: 0, capacity: 1000 });
    await c.close();
    expect(inner.closed).toBe(true);
  });

  it("rejects a bad capacity with bad-option", () => {
    expect(() => new CachedEmbeddingProvider(new Recording(), { capacity: -1 })).toThrow(
      /capacity must be a non-negative integer, got -1/,
    );
  });

  it("property: answers equal the inner provider's, size never exceeds capacity, every distinct text misses at least once", async () => {
    const reference = new HashingEmbedder({ dimensions: 16 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", ""), { maxLength: 6 }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 4 }),
        async (calls, capacity) => {
          const c = new CachedEmbeddingProvider(new Recording(), { capacity });
          for (const texts of calls) {
            const got = await c.embed(texts);
            const want = await reference.embed(texts);
            expect(got.map((v) => Array.from(v))).toEqual(want.map((v) => Array.from(v)));
            expect(c.stats().size).toBeLessThanOrEqual(capacity);
          }
          const distinct = new Set(calls.flat()).size;
          expect(c.stats().misses).toBeGreaterThanOrEqual(distinct);
        },
      ),
    );
  });

  it("a shared store: read on a miss instead of the inner provider, written with what the provider computed", async () => {
    const shared = new Map<string, Float32Array>();
    const store = {
      get: (k: string) => shared.get(k)?.slice(),
      set: (k: string, v: Float32Array) => void shared.set(k, v.slice()),
    };
    const first = new Recording();
    const a = new CachedEmbeddingProvider(first, { store });
    const [va] = await a.embed(["roll back the last deploy"]);
    expect(first.calls).toEqual([["roll back the last deploy"]]);
    expect(shared.size).toBe(1);
    // A later process: a new LRU, the same store; the inner provider is never asked, and the vector is the same.
    const second = new Recording();
    const b = new CachedEmbeddingProvider(second, { store });
    const [vb, vc] = await b.embed(["roll back the last deploy", "something else"]);
    expect(second.calls).toEqual([["something else"]]);
    expect([...vb!]).toEqual([...va!]);
    expect([...vc!]).toEqual([...(await new HashingEmbedder({ dimensions: 16 }).embed(["something else"]))[0]!]);
    expect(b.stats()).toMatchObject({ hits: 1, misses: 1 });
    // A stored vector of another length (another layout) is not used.
    const [key] = [...shared.keys()];
    shared.set(key!, new Float32Array(3));
    const third = new Recording();
    const [vd] = await new CachedEmbeddingProvider(third, { store }).embed(["roll back the last deploy"]);
    expect(third.calls).toEqual([["roll back the last deploy"]]);
    expect([...vd!]).toEqual([...va!]);
  });
});
