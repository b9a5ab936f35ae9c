import { EigenvalueDecomposition, Matrix } from "ml-matrix";
import { describe, expect, it } from "vitest";
import { defaultSteps, LanczosError, lanczos } from "../../../algorithms/linalg/lanczos.ts";
import { mulberry32 } from "../../../algorithms/random/rng.ts";

function randomSymmetric(n: number, seed: number): number[][] {
  const rng = mulberry32(seed);
  const a = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) a[i]![j] = a[j]![i] = rng() * 2 - 1;
  return a;
}

/** Laplacian L = D − W of a random weighted graph (about `p` density). */
function randomLaplacian(n: number, p: number, seed: number): number[][] {
  const rng = mulberry32(seed);
  const l = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < i; j++) {
      if (rng() < p) {
        const w = 0.1 + 0.9 * rng();
        l[i]![j] = l[j]![i] = -w;
        l[i]![i]! += w;
        l[j]![j]! += w;
      }
    }
  }
  return l;
}

function matvecOf(a: number[][]): (x: Float64Array, out: Float64Array) => void {
  return (x, out) => {
    for (let i = 0; i < a.length; i++) {
      let s = 0;
      const row = a[i]!;
      for (let j = 0; j < row.length; j++) s += row[j]! * x[j]!;
      out[i] = s;
    }
  };
}

/** Dense reference: eigenvalues descending with matching eigenvectors (columns). */
function denseTop(a: number[][]): { values: number[]; vectors: number[][] } {
  const evd = new EigenvalueDecomposition(new Matrix(a), { assumeSymmetric: true });
  const vals = evd.realEigenvalues;
  const order = vals.map((_, i) => i).sort((x, y) => vals[y]! - vals[x]!);
  return { values: order.map((i) => vals[i]!), vectors: order.map((i) => evd.eigenvectorMatrix.getColumn(i)) };
}

function expectSameUpToSign(y: Float64Array, v: number[], tol: number): void {
  let d = 0;
  for (let i = 0; i < y.length; i++) d += y[i]! * v[i]!;
  const s = Math.sign(d) || 1;
  for (let i = 0; i < y.length; i++) expect(Math.abs(y[i]! - s * v[i]!)).toBeLessThan(tol);
}

describe("lanczos", () => {
  it("matches ml-matrix on random symmetric 30×30 (top 5 pairs, 1e-8)", () => {
    const a = randomSymmetric(30, 1);
    const ref = denseTop(a);
    const r = lanczos(30, matvecOf(a), 5, { rng: mulberry32(9) });
    expect(r.steps).toBe(30); // default steps = min(n, 60): the whole space
    expect(r.converged).toBe(true);
    for (let i = 0; i < 5; i++) {
      expect(Math.abs(r.values[i]! - ref.values[i]!)).toBeLessThan(1e-8);
      expectSameUpToSign(r.vectors[i]!, ref.vectors[i]!, 1e-8);
      expect(r.residuals[i]!).toBeLessThan(1e-8);
    }
  });

  it("matches ml-matrix on a random weighted graph Laplacian (all 25 eigenvalues, top 4 vectors)", () => {
    const l = randomLaplacian(25, 0.3, 2);
    const ref = denseTop(l);
    const r = lanczos(25, matvecOf(l), 25, { rng: mulberry32(4) });
    for (let i = 0; i < 25; i++) expect(Math.abs(r.values[i]! - ref.values[i]!)).toBeLessThan(1e-8);
    for (let i = 0; i < 4; i++) expectSameUpToSign(r.vectors[i]!, ref.vectors[i]!, 1e-8);
    // Smallest Laplacian eigenvalue is 0 (connected or not).
    expect(Math.abs(r.values[24]!)).toBeLessThan(1e-8);
  });

  it("Krylov dimension below n (steps 60 < n = 200): top eigenpairs of a matrix with separated top spectrum", () => {
    // A = Q diag(λ) Qᵀ, λ = 10, 9, 8 then a bulk in [0, 1]; Q from a dense EVD of a random symmetric matrix.
    const n = 200;
    const q = new EigenvalueDecomposition(new Matrix(randomSymmetric(n, 3)), { assumeSymmetric: true })
      .eigenvectorMatrix;
    const rng = mulberry32(5);
    const lambda = Array.from({ length: n }, (_, i) => (i < 3 ? 10 - i : rng()));
    const qt = q.transpose();
    const a = q.clone().mulRowVector(lambda).mmul(qt).to2DArray();
    const r = lanczos(n, matvecOf(a), 3, { rng: mulberry32(6), steps: 60 });
    expect(r.steps).toBeLessThanOrEqual(60);
    expect(r.converged).toBe(true);
    for (let i = 0; i < 3; i++) {
      expect(Math.abs(r.values[i]! - (10 - i))).toBeLessThan(1e-8);
      expectSameUpToSign(r.vectors[i]!, q.getColumn(i), 1e-7);
    }
  });

  it("finds repeated eigenvalues when steps = n (cycle C6 Laplacian: 4, 3, 3, 1, 1, 0)", () => {
    // Eigenvalues of the cycle Laplacian: 2 − 2cos(2πj/6), j = 0..5 → 0, 1, 3, 4, 3, 1.
    const l = Array.from({ length: 6 }, (_, i) =>
      Array.from({ length: 6 }, (_, j) => (i === j ? 2 : (i - j + 6) % 6 === 1 || (j - i + 6) % 6 === 1 ? -1 : 0)),
    );
    const r = lanczos(6, matvecOf(l), 6, { rng: mulberry32(2) });
    const expected = [4, 3, 3, 1, 1, 0];
    for (let i = 0; i < 6; i++) expect(r.values[i]!).toBeCloseTo(expected[i]!, 10);
  });

  it("deflate removes a known eigenvector: diag(5,4,3,2,1) without e₁ → 4, 3", () => {
    const d = [5, 4, 3, 2, 1];
    const diag = (x: Float64Array, out: Float64Array): void => {
      for (let i = 0; i < 5; i++) out[i] = d[i]! * x[i]!;
    };
    const r = lanczos(5, diag, 2, {
      deflate: (x) => {
        x[0] = 0;
      },
    });
    expect(r.values[0]).toBeCloseTo(4, 12);
    expect(r.values[1]).toBeCloseTo(3, 12);
    expect(Math.abs(r.vectors[0]![1]!)).toBeCloseTo(1, 12);
  });

  it("returns fewer pairs than k when the deflated space is smaller", () => {
    const r = lanczos(2, (x, out) => out.set(x), 2, {
      deflate: (x) => {
        x[0] = 0;
      },
    });
    expect(r.values.length).toBe(1);
    expect(r.values[0]).toBeCloseTo(1, 14);
  });

  it("vectorCount forms only the requested Ritz vectors (number or function of the values)", () => {
    const a = randomSymmetric(20, 6);
    const ref = denseTop(a);
    const fixed = lanczos(20, matvecOf(a), 4, { vectorCount: 1 });
    expect(fixed.values.length).toBe(4);
    expect(fixed.vectors.length).toBe(1);
    let seen: number[] = [];
    const byFn = lanczos(20, matvecOf(a), 4, {
      vectorCount: (values) => {
        seen = Array.from(values);
        return 2;
      },
    });
    expect(byFn.vectors.length).toBe(2);
    for (let i = 0; i < 4; i++) expect(Math.abs(seen[i]! - ref.values[i]!)).toBeLessThan(1e-8);
    // Residuals of pairs without a vector are the Lanczos estimate, also tiny here (full space).
    for (const r of byFn.residuals) expect(r).toBeLessThan(1e-8);
    expect(() => lanczos(20, matvecOf(a), 2, { vectorCount: -1 })).toThrow(/vectorCount/);
  });

  it("is deterministic for a fixed rng seed", () => {
    const a = randomSymmetric(40, 8);
    const r1 = lanczos(40, matvecOf(a), 3, { rng: mulberry32(1), steps: 20 });
    const r2 = lanczos(40, matvecOf(a), 3, { rng: mulberry32(1), steps: 20 });
    expect(Array.from(r1.values)).toEqual(Array.from(r2.values));
    expect(Array.from(r1.vectors[0]!)).toEqual(Array.from(r2.vectors[0]!));
  });

  it("reports converged: false when the Krylov space is too small", () => {
    const a = randomSymmetric(50, 4);
    const r = lanczos(50, matvecOf(a), 2, { steps: 3 });
    expect(r.steps).toBe(3);
    expect(r.converged).toBe(false);
    expect(r.residuals[0]!).toBeGreaterThan(1e-8);
  });

  it("1×1 operator", () => {
    const r = lanczos(1, (x, out) => (out[0] = 7 * x[0]!), 1);
    expect(r.values[0]).toBeCloseTo(7, 14);
    expect(r.vectors[0]![0]).toBeCloseTo(1, 14);
  });

  it("zero operator: eigenvalue 0 with converged residual", () => {
    const r = lanczos(4, (_x, out) => out.fill(0), 2);
    expect(Array.from(r.values)).toEqual([0, 0]);
    expect(r.converged).toBe(true);
  });

  it("empty operator (n = 0) gives no pairs", () => {
    const r = lanczos(0, () => {}, 1);
    expect(r.values.length).toBe(0);
    expect(r.converged).toBe(true);
  });

  it("default steps = min(n, max(2k + 20, 60))", () => {
    expect(defaultSteps(1000, 8)).toBe(60);
    expect(defaultSteps(1000, 51)).toBe(122);
    expect(defaultSteps(30, 5)).toBe(30);
  });

  it("rejects bad k, steps and tolerance with coded errors", () => {
    const mv = (x: Float64Array, out: Float64Array) => out.set(x);
    expect(() => lanczos(3, mv, 4)).toThrow(LanczosError);
    expect(() => lanczos(3, mv, 0)).toThrow(/k must be an integer in 1..3, got 0/);
    expect(() => lanczos(3, mv, 1, { steps: 4 })).toThrow(/steps/);
    expect(() => lanczos(3, mv, 1, { tolerance: 0 })).toThrow(/tolerance/);
  });
});
