import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { KmeansError, kmeansPlusPlus } from "../../../algorithms/spectral/kmeans-pp.ts";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

/** Same partition up to relabelling. */
function samePartition(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  const ab = new Map<number, number>();
  const ba = new Map<number, number>();
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ((ab.get(x) ?? y) !== y || (ba.get(y) ?? x) !== x) return false;
    ab.set(x, y);
    ba.set(y, x);
  }
  return true;
}

describe("kmeansPlusPlus", () => {
  it("two pairs: centres (0,1) and (10,1), inertia 4 × 1² = 4", () => {
    const data = new Float64Array([0, 0, 0, 2, 10, 0, 10, 2]);
    const r = kmeansPlusPlus(data, 2, 2, { rng: mulberry32(1) });
    expect(samePartition(r.assignments, [0, 0, 1, 1])).toBe(true);
    expect(r.inertia).toBeCloseTo(4, 12);
    const cents = [0, 1].map((c) => Array.from(r.centroids.subarray(c * 2, c * 2 + 2))).sort((x, y) => x[0]! - y[0]!);
    expect(cents).toEqual([
      [0, 1],
      [10, 1],
    ]);
    expect(r.converged).toBe(true);
  });

  it("k = 1: the centre is the mean; inertia = Σ squared distances", () => {
    // points 1, 2, 6 (dim 1): mean 3; inertia 4 + 1 + 9 = 14
    const r = kmeansPlusPlus(new Float64Array([1, 2, 6]), 1, 1, { rng: mulberry32(2) });
    expect(r.centroids[0]).toBeCloseTo(3, 14);
    expect(r.inertia).toBeCloseTo(14, 12);
  });

  it("k = n: every point its own cluster, inertia 0", () => {
    const r = kmeansPlusPlus(new Float64Array([0, 5, 9, 20]), 1, 4, { rng: mulberry32(3) });
    expect(new Set(r.assignments).size).toBe(4);
    expect(r.inertia).toBe(0);
  });

  it("recovers three separated blobs", () => {
    const rng = mulberry32(10);
    const centres = [
      [0, 0],
      [5, 5],
      [-5, 5],
    ];
    const pts: number[] = [];
    const truth: number[] = [];
    for (let i = 0; i < 90; i++) {
      const c = i % 3;
      pts.push(centres[c]![0]! + rng() - 0.5, centres[c]![1]! + rng() - 0.5);
      truth.push(c);
    }
    const r = kmeansPlusPlus(new Float64Array(pts), 2, 3, { rng: mulberry32(4), restarts: 2 });
    expect(samePartition(r.assignments, truth)).toBe(true);
  });

  it("is deterministic for a fixed seed", () => {
    const rng = mulberry32(7);
    const data = new Float64Array(Array.from({ length: 300 }, () => rng()));
    const a = kmeansPlusPlus(data, 3, 5, { rng: mulberry32(1) });
    const b = kmeansPlusPlus(data, 3, 5, { rng: mulberry32(1) });
    expect(Array.from(a.assignments)).toEqual(Array.from(b.assignments));
    expect(a.inertia).toBe(b.inertia);
  });

  it("fewer distinct points than k: no crash, inertia 0", () => {
    const r = kmeansPlusPlus(new Float64Array([1, 1, 1, 2]), 1, 3, { rng: mulberry32(1) });
    expect(r.inertia).toBe(0);
    expect(r.assignments.length).toBe(4);
  });

  it("no points and k = 0: empty result", () => {
    const r = kmeansPlusPlus(new Float64Array(0), 2, 0, { rng: mulberry32(1) });
    expect(r.assignments.length).toBe(0);
    expect(r.converged).toBe(true);
  });

  it("at convergence every point sits with its nearest centre (property)", () => {
    const arb = fc.record({
      pts: fc
        .array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 2, maxLength: 60 })
        .map((a) => (a.length % 2 ? a.slice(1) : a)),
      k: fc.integer({ min: 1, max: 4 }),
      seed: fc.integer(),
    });
    fc.assert(
      fc.property(arb, ({ pts, k, seed }) => {
        const n = pts.length / 2;
        fc.pre(n >= k);
        const data = new Float64Array(pts);
        const r = kmeansPlusPlus(data, 2, k, { rng: mulberry32(seed) });
        if (!r.converged) return;
        let inertia = 0;
        for (let i = 0; i < n; i++) {
          const d = (c: number) =>
            (data[2 * i]! - r.centroids[2 * c]!) ** 2 + (data[2 * i + 1]! - r.centroids[2 * c + 1]!) ** 2;
          const own = d(r.assignments[i]!);
          inertia += own;
          for (let c = 0; c < k; c++) expect(own).toBeLessThanOrEqual(d(c) + 1e-9);
        }
        expect(r.inertia).toBeCloseTo(inertia, 9);
      }),
      { numRuns: 150, seed: 2 },
    );
  });

  it("rejects bad k, dim and data with coded errors", () => {
    const rng = mulberry32(1);
    expect(codeOf(() => kmeansPlusPlus(new Float64Array([1, 2]), 1, 3, { rng }))).toBe("bad-k");
    expect(codeOf(() => kmeansPlusPlus(new Float64Array([1, 2]), 1, 0, { rng }))).toBe("bad-k");
    expect(codeOf(() => kmeansPlusPlus(new Float64Array([1, 2, 3]), 2, 1, { rng }))).toBe("bad-data");
    expect(codeOf(() => kmeansPlusPlus(new Float64Array([1, Number.NaN]), 1, 1, { rng }))).toBe("bad-data");
    expect(() => kmeansPlusPlus(new Float64Array([1]), 0, 1, { rng })).toThrow(KmeansError);
    expect(() => kmeansPlusPlus(new Float64Array([1]), 1, 1, { rng, restarts: 0 })).toThrow(/restarts/);
  });
});

describe("kmeansPlusPlus with Hamerly's bounds (skipped scans)", () => {
  /** Plain Lloyd from the given centres: every point scanned every iteration (the reference the bounds must equal). */
  function plainAssign(data: Float64Array, dim: number, cents: Float64Array, k: number): Int32Array {
    const n = data.length / dim;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestD = Number.POSITIVE_INFINITY;
      for (let c = 0; c < k; c++) {
        let d2 = 0;
        for (let j = 0; j < dim; j++) d2 += (data[i * dim + j]! - cents[c * dim + j]!) ** 2;
        if (d2 < bestD) {
          bestD = d2;
          best = c;
        }
      }
      out[i] = best;
    }
    return out;
  }

  it("property: a converged run is a fixed point of the plain scan (every point at its nearest centre, lowest index on ties), clustered data with duplicates", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 1, max: 6 }),
        (seed, k, dim) => {
          const rng = mulberry32(seed);
          const n = 200;
          const centres = Array.from({ length: k }, () => Array.from({ length: dim }, () => rng() * 4));
          const data = new Float64Array(n * dim);
          for (let i = 0; i < n; i++) {
            if (i % 17 === 16)
              data.set(data.subarray((i - 1) * dim, i * dim), i * dim); // exact duplicates
            else for (let j = 0; j < dim; j++) data[i * dim + j] = centres[i % k]![j]! + (rng() - 0.5);
          }
          const r = kmeansPlusPlus(data, dim, k, { rng: mulberry32(seed ^ 3), maxIterations: 500 });
          fc.pre(r.converged);
          expect(Array.from(plainAssign(data, dim, r.centroids, k))).toEqual(Array.from(r.assignments));
        },
      ),
      { numRuns: 60 },
    );
  });
});
