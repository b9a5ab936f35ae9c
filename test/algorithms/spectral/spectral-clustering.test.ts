import { EigenvalueDecomposition, Matrix } from "ml-matrix";
import { describe, expect, it } from "vitest";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { SpectralError, spectralClustering } from "../../../algorithms/spectral/spectral-clustering.ts";
import {
  type ToolCapabilityInput,
  toolCapabilityAdjacency,
} from "../../../algorithms/spectral/tool-capability-graph.ts";

/** Same partition up to relabelling. */
function samePartition(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
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

/**
 * `groups` groups of `toolsPer` tools; each group has `capsPer` capabilities holding 5 tools of the
 * group (see below); a little noise: one capability per group also lists one tool of the next group, and one dependency
 * links consecutive groups' first capabilities.
 */
function planted(
  groups: number,
  toolsPer: number,
  capsPer: number,
  seed: number,
): { input: ToolCapabilityInput; truth: number[] } {
  const rng = mulberry32(seed);
  const nTools = groups * toolsPer;
  const memberships: number[][] = [];
  const truth: number[] = [];
  for (let t = 0; t < nTools; t++) truth.push(Math.floor(t / toolsPer));
  for (let g = 0; g < groups; g++) {
    for (let c = 0; c < capsPer; c++) {
      const tools = new Set<number>();
      // Capability c takes tools 2c .. 2c+3 (mod toolsPer) plus random ones: with 2·capsPer ≥ toolsPer every
      // tool sits in at least two capabilities of its own group.
      for (let d = 0; d < 4; d++) tools.add(g * toolsPer + ((2 * c + d) % toolsPer));
      while (tools.size < 5) tools.add(g * toolsPer + Math.floor(rng() * toolsPer));
      if (c === 0) tools.add(((g + 1) % groups) * toolsPer + Math.floor(rng() * toolsPer)); // noise
      memberships.push([...tools]);
    }
  }
  for (let c = 0; c < groups * capsPer; c++) truth.push(Math.floor(c / capsPer));
  const capabilityDeps = [];
  for (let g = 0; g < groups; g++)
    capabilityDeps.push({ from: g * capsPer, to: ((g + 1) % groups) * capsPer, weight: 0.3 });
  return { input: { nTools, memberships, capabilityDeps }, truth };
}

describe("spectralClustering", () => {
  it("recovers 3 planted groups (tools with their capabilities) exactly, k by eigengap", () => {
    const { input, truth } = planted(3, 10, 6, 1);
    const r = spectralClustering(input, { rng: mulberry32(5) });
    expect(r.kSource).toBe("eigengap");
    expect(r.k).toBe(3);
    expect(samePartition([...r.toolClusters, ...r.capabilityClusters], truth)).toBe(true);
    expect(r.eigenvalues[0]).toBeCloseTo(0, 12);
    expect(r.eigengap).toBeCloseTo(r.eigenvalues[3]! - r.eigenvalues[2]!, 15);
    expect(r.converged).toBe(true);
  });

  it("recovers 5 planted groups with tool→tool edges inside groups", () => {
    const { input, truth } = planted(5, 12, 6, 2);
    const edges = [];
    for (let t = 0; t < 60; t++) edges.push({ from: t, to: Math.floor(t / 12) * 12 + ((t + 1) % 12), weight: 0.5 });
    const r = spectralClustering({ ...input, toolGraph: buildCsr(60, edges) }, { rng: mulberry32(1) });
    expect(r.k).toBe(5);
    expect(samePartition([...r.toolClusters, ...r.capabilityClusters], truth)).toBe(true);
  });

  it("recovers planted groups for several generator seeds", () => {
    for (let seed = 10; seed < 18; seed++) {
      const { input, truth } = planted(3, 10, 6, seed);
      const r = spectralClustering(input, { rng: mulberry32(seed) });
      expect(r.k).toBe(3);
      expect(samePartition([...r.toolClusters, ...r.capabilityClusters], truth)).toBe(true);
    }
  });

  it("larger graph (Krylov space smaller than n): 6 groups of 30 tools and 15 capabilities", () => {
    const { input, truth } = planted(6, 30, 15, 7);
    const r = spectralClustering(input, { rng: mulberry32(3) });
    expect(r.k).toBe(6);
    expect(samePartition([...r.toolClusters, ...r.capabilityClusters], truth)).toBe(true);
  });

  it("eigenvalues match the dense normalised Laplacian (ml-matrix)", () => {
    const { input } = planted(3, 8, 4, 3);
    const r = spectralClustering(input, { rng: mulberry32(2) });
    const a = toolCapabilityAdjacency(input);
    const n = a.n;
    const deg = new Array<number>(n).fill(0);
    for (let u = 0; u < n; u++) for (let j = a.offsets[u]!; j < a.offsets[u + 1]!; j++) deg[u]! += a.weights[j]!;
    const l = Matrix.eye(n, n);
    for (let u = 0; u < n; u++)
      for (let j = a.offsets[u]!; j < a.offsets[u + 1]!; j++)
        l.set(u, a.targets[j]!, -a.weights[j]! / Math.sqrt(deg[u]! * deg[a.targets[j]!]!));
    const ref = new EigenvalueDecomposition(l, { assumeSymmetric: true }).realEigenvalues.sort((x, y) => x - y);
    for (let i = 0; i < r.eigenvalues.length; i++) expect(Math.abs(r.eigenvalues[i]! - ref[i]!)).toBeLessThan(1e-8);
  });

  it("is deterministic for a fixed seed", () => {
    const { input } = planted(4, 10, 5, 4);
    const a = spectralClustering(input, { rng: mulberry32(11) });
    const b = spectralClustering(input, { rng: mulberry32(11) });
    expect(Array.from(a.toolClusters)).toEqual(Array.from(b.toolClusters));
    expect(Array.from(a.capabilityClusters)).toEqual(Array.from(b.capabilityClusters));
    expect(Array.from(a.eigenvalues)).toEqual(Array.from(b.eigenvalues));
  });

  it("cluster ids are numbered in order of first node (tools, then capabilities)", () => {
    const { input } = planted(3, 10, 6, 1);
    const r = spectralClustering(input);
    let next = 0;
    for (const c of [...r.toolClusters, ...r.capabilityClusters]) {
      expect(c).toBeLessThanOrEqual(next);
      if (c === next) next++;
    }
    expect(next).toBe(r.clusterCount);
  });

  it("disconnected parts: two components with no shared edge become the two clusters", () => {
    // Two complete bipartite parts K(4,2): L has eigenvalues 0, 0, 1 (×8), 2, 2 → largest gap at k = 2.
    const input = {
      nTools: 8,
      memberships: [
        [0, 1, 2, 3],
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [4, 5, 6, 7],
      ],
    };
    const r = spectralClustering(input);
    expect(r.components).toBe(2);
    expect(r.k).toBe(2);
    expect(Array.from(r.toolClusters)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(Array.from(r.capabilityClusters)).toEqual([0, 0, 1, 1]);
    expect(r.eigenvalues[2]).toBeCloseTo(1, 10);
    expect(r.eigenvalues[0]).toBe(0);
    expect(r.eigenvalues[1]).toBe(0);
  });

  it("more components than kMax: each component is a cluster", () => {
    // 4 disjoint tool–capability pairs plus a triangle; kMax = 2 → k = 5 components.
    const input = { nTools: 7, memberships: [[0], [1], [2], [3], [4, 5], [5, 6], [4, 6]] };
    const r = spectralClustering(input, { kMax: 2 });
    expect(r.kSource).toBe("components");
    expect(r.k).toBe(5);
    expect(Array.from(r.toolClusters)).toEqual([0, 1, 2, 3, 4, 4, 4]);
    expect(Array.from(r.capabilityClusters)).toEqual([0, 1, 2, 3, 4, 4, 4]);
  });

  it("isolated nodes get their own singleton clusters", () => {
    const { input } = planted(3, 10, 6, 1);
    const withLoners = { ...input, nTools: 32, memberships: [...input.memberships, []] };
    const r = spectralClustering(withLoners, { rng: mulberry32(5) });
    expect(r.isolated).toBe(3); // tools 30, 31 and the empty capability
    expect(r.k).toBe(3);
    expect(r.clusterCount).toBe(6);
    expect(r.toolClusters[30]).toBe(3);
    expect(r.toolClusters[31]).toBe(4);
    expect(r.capabilityClusters[18]).toBe(5);
  });

  it("a given k overrides the eigengap", () => {
    const { input } = planted(3, 10, 6, 1);
    const r = spectralClustering(input, { k: 2 });
    expect(r.kSource).toBe("given");
    expect(r.k).toBe(2);
    expect(new Set([...r.toolClusters, ...r.capabilityClusters]).size).toBe(2);
  });

  it("a given k below the number of components groups whole components", () => {
    const input = {
      nTools: 6,
      memberships: [
        [0, 1],
        [2, 3],
        [4, 5],
      ],
    };
    const r = spectralClustering(input, { k: 2 });
    const all = [...r.toolClusters, ...r.capabilityClusters];
    expect(new Set(all).size).toBe(2);
    // Each component (tools 2i, 2i+1 and capability i) stays whole.
    for (let i = 0; i < 3; i++) {
      expect(r.toolClusters[2 * i]).toBe(r.toolClusters[2 * i + 1]);
      expect(r.toolClusters[2 * i]).toBe(r.capabilityClusters[i]);
    }
  });

  it("single tool, no capability: one singleton cluster, k = 0", () => {
    const r = spectralClustering({ nTools: 1, memberships: [] });
    expect(Array.from(r.toolClusters)).toEqual([0]);
    expect(r.k).toBe(0);
    expect(r.kSource).toBe("none");
    expect(r.isolated).toBe(1);
  });

  it("single tool in a single capability: one cluster", () => {
    const r = spectralClustering({ nTools: 1, memberships: [[0]] });
    expect(Array.from(r.toolClusters)).toEqual([0]);
    expect(Array.from(r.capabilityClusters)).toEqual([0]);
    expect(r.k).toBe(1);
    // L of a single edge: eigenvalues 0 and 2.
    expect(r.eigenvalues[0]).toBe(0);
    expect(r.eigenvalues[1]).toBeCloseTo(2, 12);
  });

  it("empty input: empty result", () => {
    const r = spectralClustering({ nTools: 0, memberships: [] });
    expect(r.toolClusters.length).toBe(0);
    expect(r.capabilityClusters.length).toBe(0);
    expect(r.k).toBe(0);
    expect(r.clusterCount).toBe(0);
    expect(r.eigenvalues.length).toBe(0);
  });

  it("rejects bad k bounds with coded errors", () => {
    const input = { nTools: 2, memberships: [[0, 1]] };
    expect(() => spectralClustering(input, { kMin: 3, kMax: 2 })).toThrow(SpectralError);
    expect(() => spectralClustering(input, { k: 0 })).toThrow(/k must be an integer ≥ 1, got 0/);
    expect(() => spectralClustering(input, { k: 4 })).toThrow(/exceeds the 3 non-isolated nodes/);
  });
});
