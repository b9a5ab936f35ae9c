import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import type { Rng } from "../../../algorithms/random/rng.ts";
import {
  KMEANS_WORK_PER_STEP,
  KmeansError,
  type KmeansResult,
  kmeansPlusPlus,
  kmeansPlusPlusSteps,
} from "../../../algorithms/spectral/kmeans-pp.ts";

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

/**
 * An independent k-means++ / Lloyd as the header states it, written plainly: every point scanned every iteration
 * (no bounds), no pauses. The same arithmetic in the same order, so its result must equal the module's bit for bit.
 */
function referenceKmeans(
  data: Float64Array,
  dim: number,
  k: number,
  o: { rng: Rng; maxIterations: number; restarts: number; changeTolerance: number },
): KmeansResult {
  const n = data.length / dim;
  const dist = (a: Float64Array, i: number, b: Float64Array, c: number): number => {
    let s = 0;
    for (let j = 0; j < dim; j++) {
      const t = a[i * dim + j]! - b[c * dim + j]!;
      s += t * t;
    }
    return s;
  };
  let best: KmeansResult | undefined;
  for (let r = 0; r < o.restarts; r++) {
    const cents = new Float64Array(k * dim);
    const first = Math.min(n - 1, Math.floor(o.rng() * n));
    cents.set(data.subarray(first * dim, (first + 1) * dim), 0);
    const d2 = Array.from({ length: n }, (_, i) => dist(data, i, cents, 0));
    for (let c = 1; c < k; c++) {
      const total = d2.reduce((a, b) => a + b, 0);
      let pick = n - 1;
      if (total > 0) {
        let x = o.rng() * total;
        for (let i = 0; i < n; i++) {
          x -= d2[i]!;
          if (x < 0) {
            pick = i;
            break;
          }
        }
        while (d2[pick] === 0 && pick > 0) pick--;
      } else pick = Math.min(n - 1, Math.floor(o.rng() * n));
      cents.set(data.subarray(pick * dim, (pick + 1) * dim), c * dim);
      for (let i = 0; i < n; i++) d2[i] = Math.min(d2[i]!, dist(data, i, cents, c));
    }
    const assign = new Int32Array(n).fill(-1);
    let iterations = 0;
    let converged = false;
    while (iterations < o.maxIterations) {
      iterations++;
      let changed = 0;
      for (let i = 0; i < n; i++) {
        let bc = 0;
        let bd = Number.POSITIVE_INFINITY;
        for (let c = 0; c < k; c++) {
          const d = dist(data, i, cents, c);
          if (d < bd) {
            bd = d;
            bc = c;
          }
        }
        if (assign[i] !== bc) changed++;
        assign[i] = bc;
      }
      if (changed <= Math.floor(o.changeTolerance * n)) {
        converged = true;
        break;
      }
      const counts = new Float64Array(k);
      cents.fill(0);
      for (let i = 0; i < n; i++) {
        counts[assign[i]!]!++;
        for (let j = 0; j < dim; j++) cents[assign[i]! * dim + j]! += data[i * dim + j]!;
      }
      for (let c = 0; c < k; c++) if (counts[c]! > 0) for (let j = 0; j < dim; j++) cents[c * dim + j]! /= counts[c]!;
      if (counts.some((x) => x === 0)) {
        const far = Array.from({ length: n }, (_, i) => dist(data, i, cents, assign[i]!));
        for (let c = 0; c < k; c++) {
          if (counts[c]! > 0) continue;
          let f = 0;
          for (let i = 1; i < n; i++) if (far[i]! > far[f]!) f = i;
          far[f] = -1;
          cents.set(data.subarray(f * dim, (f + 1) * dim), c * dim);
        }
      }
    }
    let inertia = 0;
    for (let i = 0; i < n; i++) inertia += dist(data, i, cents, assign[i]!);
    const res = { assignments: assign, centroids: cents, inertia, iterations, converged };
    if (best === undefined || res.inertia < best.inertia) best = res;
  }
  return best!;
}

/** Runs kmeansPlusPlusSteps to its end: the result and the number of pauses. */
function drain(steps: Generator<void, KmeansResult, void>): { result: KmeansResult; pauses: number } {
  let pauses = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { result: r.value, pauses };
    pauses++;
  }
}

function plain(r: KmeansResult) {
  return { ...r, assignments: Array.from(r.assignments), centroids: Array.from(r.centroids) };
}

describe("kmeansPlusPlusSteps (pauses between blocks of points)", () => {
  it("property: the same result as an independent plain k-means bit for bit, whatever the pause size", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom(0, 0.005, 0.1),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 2_000 }),
        (seed, n, dim, kWanted, restarts, changeTolerance, maxIterations, workPerStep) => {
          const k = Math.min(kWanted, n);
          const rng = mulberry32(seed);
          const data = new Float64Array(n * dim);
          for (let i = 0; i < n; i++) {
            // a few clusters, every fifth point a duplicate of the one before (ties and emptied clusters)
            if (i % 5 === 4) data.set(data.subarray((i - 1) * dim, i * dim), i * dim);
            else for (let j = 0; j < dim; j++) data[i * dim + j] = (i % 3) * 2 + rng() - 0.5;
          }
          const o = { maxIterations, restarts, changeTolerance };
          const expected = referenceKmeans(data, dim, k, { ...o, rng: mulberry32(seed ^ 7) });
          const stepped = drain(kmeansPlusPlusSteps(data, dim, k, { ...o, rng: mulberry32(seed ^ 7), workPerStep }));
          expect(plain(stepped.result)).toEqual(plain(expected));
          expect(plain(kmeansPlusPlus(data, dim, k, { ...o, rng: mulberry32(seed ^ 7) }))).toEqual(plain(expected));
          // The seeding alone does k passes over the n points, dim each: a pause every ⌈workPerStep / dim⌉ points.
          expect(stepped.pauses).toBeGreaterThanOrEqual(Math.floor((k * n) / Math.ceil(workPerStep / dim)));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("pauses within one Lloyd iteration at the default pace: 2,272 points × 71 centres × 64 dims", () => {
    // The IVF stage's k-means at 20k vectors: one full scan is 2,272 · 71 · 64 ≈ 10.3 M operations, ≈ 4.9 pauses.
    const n = 2272;
    const dim = 64;
    const k = 71;
    const rng = mulberry32(5);
    const data = Float64Array.from({ length: n * dim }, () => rng());
    const scan = n * k * dim;
    const seeding = drain(kmeansPlusPlusSteps(data, dim, k, { rng: mulberry32(1), maxIterations: 1 }));
    // maxIterations 1: seeding (k passes of n × dim) + one full scan, so ⌊2 · scan / KMEANS_WORK_PER_STEP⌋ pauses.
    expect(seeding.pauses).toBe(Math.floor((2 * scan) / KMEANS_WORK_PER_STEP));
    expect(plain(seeding.result)).toEqual(
      plain(kmeansPlusPlus(data, dim, k, { rng: mulberry32(1), maxIterations: 1 })),
    );
  });

  it("rejects a workPerStep below 1, naming it", () => {
    expect(codeOf(() => kmeansPlusPlus(new Float64Array([1, 2]), 1, 1, { rng: mulberry32(1), workPerStep: 0 }))).toBe(
      "bad-work-per-step",
    );
  });
});
