import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CapabilityNode, discoverCapabilities } from "../../../algorithms/prediction/capability-discovery.ts";

/**
 * Fixture: 8 tools, spectral cluster per tool [0, 0, 0, 1, 1, 1, 2, -1].
 *   c0 {0,1,2} cluster 0 · c1 {0,3} cluster 1 · c2 {3,4,5,6} cluster 1 · c3 {6,7} cluster 2
 *   c4 {} cluster 0 · c5 {0,0,1} cluster -1 (duplicate tool, unclustered)
 */
const toolCluster = Int32Array.from([0, 0, 0, 1, 1, 1, 2, -1]);
const capabilities: CapabilityNode[] = [
  { tools: [0, 1, 2], cluster: 0 },
  { tools: [0, 3], cluster: 1 },
  { tools: [3, 4, 5, 6], cluster: 1 },
  { tools: [6, 7], cluster: 2 },
  { tools: [], cluster: 0 },
  { tools: [0, 0, 1], cluster: -1 },
];

const ids = (r: { capabilities: { capability: number }[] }) => r.capabilities.map((c) => c.capability);

describe("discoverCapabilities by hand", () => {
  it("own-cluster boost, ties by capability index", () => {
    // context {0,1,3,7}: clusters 0,0,1,(−1) → counts {0: 2, 1: 1} → dominant {0}
    // c0: overlap 2/3, own cluster 0 dominant → 2/3 × 1.5 = 1.0
    // c1: overlap 2/2 = 1, cluster 1 → 1.0 · c5: overlap {0,1} 2/2 = 1, unclustered → 1.0
    // c3: overlap 1/2 → 0.5 · c2: overlap 1/4 → 0.25 · c4: empty, skipped
    const r = discoverCapabilities({ capabilities, toolCluster, context: [0, 1, 3, 7] });
    expect(r.dominantClusters).toEqual([0]);
    expect(ids(r)).toEqual([0, 1, 5, 3, 2]);
    const [c0, c1, , c3, c2] = r.capabilities;
    expect(c0!.overlap).toBeCloseTo(2 / 3, 12);
    expect(c0!.boost).toBe(0.5);
    expect(c0!.inDominantCluster).toBe(true);
    expect(c0!.score).toBeCloseTo(1, 12);
    expect(c0!.matchedTools).toEqual([0, 1]);
    expect(c1!.score).toBe(1);
    expect(c1!.boost).toBe(0);
    expect(c3!.score).toBe(0.5);
    expect(c2!.score).toBe(0.25);
    expect(r.reason).toBeUndefined();
  });

  it("the tie-breaker (hypergraph PageRank) orders equal scores", () => {
    const r = discoverCapabilities({
      capabilities,
      toolCluster,
      context: [0, 1, 3, 7],
      tieBreaker: [0.1, 0.3, 0, 0, 0, 0.2],
    });
    expect(ids(r)).toEqual([1, 5, 0, 3, 2]);
    expect(r.capabilities[0]!.tieBreaker).toBe(0.3);
  });

  it("fractional boost: 0.5 × share of the capability's tools in the dominant cluster", () => {
    // dominant {0}: c5 {0,1} 2/2 → 1 × 1.5 = 1.5; c1 {0,3} 1/2 → 1 × 1.25 = 1.25;
    // c0 3/3 → 2/3 × 1.5 = 1.0; c3 0/2 → 0.5; c2 0/4 → 0.25
    const r = discoverCapabilities({ capabilities, toolCluster, context: [0, 1, 3, 7] }, { boostMode: "fractional" });
    expect(ids(r)).toEqual([5, 1, 0, 3, 2]);
    expect(r.capabilities[0]!.score).toBe(1.5);
    expect(r.capabilities[1]!.score).toBe(1.25);
    expect(r.capabilities[1]!.boost).toBe(0.25);
  });

  it("tied dominant clusters all count", () => {
    // context {0,3}: counts {0: 1, 1: 1} → dominant {0, 1}
    // c1: 2/2 × 1.5 = 1.5; c0: 1/3 × 1.5 = 0.5; c5: 1/2, unclustered → 0.5; c2: 1/4 × 1.5 = 0.375
    const r = discoverCapabilities({ capabilities, toolCluster, context: [0, 3] });
    expect(r.dominantClusters).toEqual([0, 1]);
    expect(ids(r)).toEqual([1, 0, 5, 2]);
    expect(r.capabilities.map((c) => c.score)).toEqual([1.5, 0.5, 0.5, 0.375]);
  });

  it("custom boost and limit", () => {
    const r = discoverCapabilities({ capabilities, toolCluster, context: [0, 3] }, { clusterBoost: 1, limit: 1 });
    expect(r.capabilities).toHaveLength(1);
    expect(r.capabilities[0]!.score).toBe(2); // 1 × (1 + 1)
  });
});

describe("discoverCapabilities edge cases", () => {
  it("empty context → empty with reason", () => {
    const r = discoverCapabilities({ capabilities, toolCluster, context: [] });
    expect(r.capabilities).toEqual([]);
    expect(r.reason).toBe("empty context");
  });

  it("no capability overlaps the context → empty with reason", () => {
    const r = discoverCapabilities({ capabilities: [{ tools: [4], cluster: 1 }], toolCluster, context: [0] });
    expect(r.capabilities).toEqual([]);
    expect(r.reason).toMatch(/no capability/);
  });

  it("only unclustered context tools → no dominant cluster, no boost", () => {
    const r = discoverCapabilities({ capabilities, toolCluster, context: [7] });
    expect(r.dominantClusters).toEqual([]);
    expect(r.capabilities).toHaveLength(1);
    expect(r.capabilities[0]!.score).toBe(0.5);
    expect(r.capabilities[0]!.boost).toBe(0);
  });

  it("no capabilities → empty with reason", () => {
    expect(discoverCapabilities({ capabilities: [], toolCluster, context: [0] }).reason).toMatch(/no capability/);
  });

  it("misuse: tool outside the cluster array, tie-breaker of the wrong length, negative boost", () => {
    expect(() => discoverCapabilities({ capabilities, toolCluster, context: [8] })).toThrow(
      expect.objectContaining({ code: "bad-tool" }),
    );
    expect(() =>
      discoverCapabilities({ capabilities: [{ tools: [9], cluster: 0 }], toolCluster, context: [0] }),
    ).toThrow(expect.objectContaining({ code: "bad-tool" }));
    expect(() => discoverCapabilities({ capabilities, toolCluster, context: [0], tieBreaker: [1] })).toThrow(
      expect.objectContaining({ code: "bad-length" }),
    );
    expect(() => discoverCapabilities({ capabilities, toolCluster, context: [0] }, { clusterBoost: -1 })).toThrow(
      expect.objectContaining({ code: "bad-option" }),
    );
  });
});

describe("discoverCapabilities properties", () => {
  it("score = overlap × (1 + boost), bounds, sorted, deterministic", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1, max: 3 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.record({ tools: fc.array(fc.nat(), { maxLength: 6 }), cluster: fc.integer({ min: -1, max: 3 }) }), {
          maxLength: 10,
        }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom("own-cluster" as const, "fractional" as const),
        (clusters, rawCaps, rawCtx, mode) => {
          const n = clusters.length;
          const tc = Int32Array.from(clusters);
          const caps = rawCaps.map((c) => ({ tools: c.tools.map((t) => t % n), cluster: c.cluster }));
          const input = { capabilities: caps, toolCluster: tc, context: rawCtx.map((t) => t % n) };
          const r = discoverCapabilities(input, { boostMode: mode, limit: 100 });
          let prev = Number.POSITIVE_INFINITY;
          for (const c of r.capabilities) {
            expect(c.overlap).toBeGreaterThan(0);
            expect(c.overlap).toBeLessThanOrEqual(1);
            expect(c.boost).toBeGreaterThanOrEqual(0);
            expect(c.boost).toBeLessThanOrEqual(0.5);
            expect(c.score).toBeCloseTo(c.overlap * (1 + c.boost), 12);
            expect(c.score).toBeLessThanOrEqual(prev);
            prev = c.score;
          }
          expect(discoverCapabilities(input, { boostMode: mode, limit: 100 })).toEqual(r);
        },
      ),
      { numRuns: 200 },
    );
  });
});
