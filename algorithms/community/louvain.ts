/**
 * Louvain communities of a CSR graph, on its undirected weighted view.
 *
 *   Q = (1 / 2m) Σ_{u,v} [A_uv − γ · k_u k_v / 2m] · δ(c_u, c_v)
 *
 * maximised greedily by local moves and graph aggregation (graphology-communities-louvain 2.0.2). The
 * undirected view merges the two orientations by summing: A_uv = w(u→v) + w(v→u), so a reciprocated
 * co-occurrence weighs more than a one-way one; zero-weight edges carry no information and are dropped.
 * Communities are renumbered 0..c−1 in order of their smallest node id, so output does not depend on the
 * library's internal ids. Nodes without (positive-weight) edges are each their own community. Deterministic
 * for a fixed rng seed (the rng drives the library's random node order).
 *
 * Source: Blondel, Guillaume, Lambiotte, Lefebvre, "Fast unfolding of communities in large networks"
 * (J. Stat. Mech. 2008); implementation graphology-communities-louvain (`rng`, `resolution` options).
 */

import { UndirectedGraph } from "graphology";
import louvainLib from "graphology-communities-louvain";
import { AlgorithmError } from "../errors.ts";
import type { Csr } from "../graph/csr.ts";
import { buildSymmetricCsr } from "../linalg/symmetric-csr.ts";
import { mulberry32, type Rng } from "../random/rng.ts";

export const DEFAULTS = {
  resolution: 1,
  /** Seed of the default rng (mulberry32) when none is given. */
  seed: 1,
} as const;

export interface LouvainOptions {
  /** Modularity resolution γ > 0 (higher → more, smaller communities). Default 1. */
  readonly resolution?: number;
  /** Random source for the node visiting order. Default mulberry32(1). */
  readonly rng?: Rng;
}

export interface LouvainResult {
  /** Community id per node, 0..count−1, numbered in order of first node. */
  readonly communities: Int32Array;
  /** Number of communities. */
  readonly count: number;
  /** Modularity Q of the partition on the undirected view (0 when the graph has no positive-weight edge). */
  readonly modularity: number;
}

export class LouvainError extends AlgorithmError {
  constructor(code: string, message: string) {
    super("louvain", code, message);
    this.name = "LouvainError";
  }
}

/** Community id per node (Int32Array, renumbered 0..c−1 in order of first node). */
export function louvain(g: Csr, options: LouvainOptions = {}): Int32Array {
  return louvainDetailed(g, options).communities;
}

/** Communities plus count and modularity. */
export function louvainDetailed(g: Csr, options: LouvainOptions = {}): LouvainResult {
  const resolution = options.resolution ?? DEFAULTS.resolution;
  if (!(resolution > 0) || !Number.isFinite(resolution)) {
    throw new LouvainError("bad-resolution", `resolution must be a finite positive number, got ${resolution}`);
  }
  const rng = options.rng ?? mulberry32(DEFAULTS.seed);
  const n = g.n;
  const us = new Uint32Array(g.m);
  const vs = g.targets;
  for (let u = 0; u < n; u++) {
    const b = g.offsets[u + 1]!;
    for (let j = g.offsets[u]!; j < b; j++) us[j] = u;
  }
  const sym = buildSymmetricCsr(n, us, vs, g.weights);
  const communities = new Int32Array(n);
  if (sym.targets.length === 0) {
    for (let u = 0; u < n; u++) communities[u] = u;
    return { communities, count: n, modularity: 0 };
  }
  const graph = new UndirectedGraph<Record<string, never>, { weight: number }>();
  for (let u = 0; u < n; u++) graph.addNode(u);
  for (let u = 0; u < n; u++) {
    const b = sym.offsets[u + 1]!;
    for (let j = sym.offsets[u]!; j < b; j++) {
      const v = sym.targets[j]!;
      if (v > u) graph.addEdge(u, v, { weight: sym.weights[j]! });
    }
  }
  const detailed = louvainLib.detailed(graph, { getEdgeWeight: "weight", resolution, rng });
  const renumber = new Map<number, number>();
  for (let u = 0; u < n; u++) {
    const raw = detailed.communities[String(u)]!;
    let id = renumber.get(raw);
    if (id === undefined) {
      id = renumber.size;
      renumber.set(raw, id);
    }
    communities[u] = id;
  }
  return { communities, count: renumber.size, modularity: detailed.modularity };
}
