import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { criticalPath, DEFAULTS } from "../../../algorithms/dag/critical-path.ts";
import type { Arc } from "../../../algorithms/dag/dependency-edge.ts";
import { expectDagErrorOf } from "./expect-dag-error.ts";

const a = (from: number, to: number): Arc => ({ from, to });
const table = (ms: Record<number, number>) => (v: number) => ms[v];

const expectDagError = expectDagErrorOf("dag/critical-path");

const diamond = [a(0, 1), a(0, 2), a(1, 3), a(2, 3)];

describe("criticalPath", () => {
  it("exports the documented defaults", () => {
    expect(DEFAULTS).toEqual({ unknownLatencyMs: 0 });
  });

  it("diamond: wall time follows the slower branch", () => {
    // Latencies 0:10, 1:30, 2:20, 3:5. Paths 0-1-3 = 45, 0-2-3 = 35. Sequential 10+30+20+5 = 65.
    const r = criticalPath([0, 1, 2, 3], diamond, table({ 0: 10, 1: 30, 2: 20, 3: 5 }));
    expect(r).toEqual({
      path: [0, 1, 3],
      wallTimeMs: 45,
      sequentialMs: 65,
      speedup: 65 / 45,
      unknownLatency: [],
      reason: null,
    });
  });

  it("ties pick the branch earlier in input order", () => {
    expect(criticalPath([0, 2, 1, 3], diamond, table({ 0: 1, 1: 5, 2: 5, 3: 1 })).path).toEqual([0, 2, 3]);
    expect(criticalPath([0, 1, 2, 3], diamond, table({ 0: 1, 1: 5, 2: 5, 3: 1 })).path).toEqual([0, 1, 3]);
  });

  it("no edges: wall time is the slowest tool; fully parallel", () => {
    // sequential 4 + 9 + 2 = 15, wall 9, speedup 15/9.
    const r = criticalPath([0, 1, 2], [], table({ 0: 4, 1: 9, 2: 2 }));
    expect(r).toMatchObject({ path: [1], wallTimeMs: 9, sequentialMs: 15, speedup: 15 / 9 });
  });

  it("a chain runs sequentially: wall = sequential, speedup 1", () => {
    const r = criticalPath([0, 1, 2], [a(0, 1), a(1, 2)], table({ 0: 4, 1: 9, 2: 2 }));
    expect(r).toMatchObject({ path: [0, 1, 2], wallTimeMs: 15, sequentialMs: 15, speedup: 1 });
  });

  it("unknown latencies count as unknownLatencyMs and are listed with a reason", () => {
    const r = criticalPath([0, 1, 2, 3], diamond, table({ 0: 10, 2: 20, 3: 5 }));
    // 1 counts as 0: 0-2-3 = 35 is critical; sequential 35.
    expect(r).toMatchObject({ path: [0, 2, 3], wallTimeMs: 35, sequentialMs: 35, unknownLatency: [1] });
    expect(r.reason).toContain("latency unknown for 1 of 4");
    // Counted as 100: 0-1-3 = 115; sequential 135.
    const s = criticalPath([0, 1, 2, 3], diamond, table({ 0: 10, 2: 20, 3: 5 }), { unknownLatencyMs: 100 });
    expect(s).toMatchObject({ path: [0, 1, 3], wallTimeMs: 115, sequentialMs: 135 });
  });

  it("all latencies zero: speedup 1", () => {
    expect(criticalPath([0, 1], [a(0, 1)], () => 0)).toMatchObject({ wallTimeMs: 0, sequentialMs: 0, speedup: 1 });
  });

  it("no nodes: empty path with a reason", () => {
    expect(criticalPath([], [], () => 1)).toEqual({
      path: [],
      wallTimeMs: 0,
      sequentialMs: 0,
      speedup: 1,
      unknownLatency: [],
      reason: "no nodes",
    });
  });

  it("rejects negative or non-finite latencies and cycles", () => {
    expectDagError(() => criticalPath([0], [], () => -1), "bad-latency");
    expectDagError(() => criticalPath([0], [], () => Number.POSITIVE_INFINITY), "bad-latency");
    expectDagError(() => criticalPath([0], [], () => 1, { unknownLatencyMs: -1 }), "bad-latency");
    expectDagError(() => criticalPath([0, 1], [a(0, 1), a(1, 0)], () => 1), "cyclic");
  });

  it("property: wall time equals the heaviest path found by exhaustive enumeration", () => {
    const dag = fc.integer({ min: 1, max: 9 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        raw: fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 })), {
          selector: ([x, y]) => `${Math.min(x, y)}>${Math.max(x, y)}`,
          maxLength: 25,
        }),
        lat: fc.array(fc.integer({ min: 0, max: 100 }), { minLength: n, maxLength: n }),
      }),
    );
    fc.assert(
      fc.property(dag, ({ n, raw, lat }) => {
        const edges = raw.filter(([x, y]) => x !== y).map(([x, y]) => a(Math.min(x, y), Math.max(x, y)));
        const nodes = Array.from({ length: n }, (_, i) => i);
        const r = criticalPath(nodes, edges, (v) => lat[v]);
        let best = 0;
        const walk = (v: number, sum: number) => {
          best = Math.max(best, sum);
          for (const e of edges) if (e.from === v) walk(e.to, sum + lat[e.to]!);
        };
        for (const v of nodes) walk(v, lat[v]!);
        expect(r.wallTimeMs).toBe(best);
        expect(r.path.reduce((s, v) => s + lat[v]!, 0)).toBe(best);
        for (let i = 1; i < r.path.length; i++) {
          expect(edges.some((e) => e.from === r.path[i - 1] && e.to === r.path[i])).toBe(true);
        }
        expect(r.sequentialMs).toBe(lat.reduce((s, x) => s + x, 0));
        expect(r.wallTimeMs).toBeLessThanOrEqual(r.sequentialMs);
      }),
      { numRuns: 300 },
    );
  });
});
