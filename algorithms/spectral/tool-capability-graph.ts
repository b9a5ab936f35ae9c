/**
 * The tool–capability graph shared by hypergraph PageRank and spectral clustering.
 *
 * Nodes: tools 0..nTools−1, then capabilities nTools..nTools+nCaps−1 (capability c is node nTools + c).
 * Edges:
 *   - membership: tool t ∈ capability c  ↔  t — c with weight `membershipWeight` (each pair once);
 *   - capability dependency c₁ → c₂ with weight w (table `capability_dependency`): w · `dependencyFactor`;
 *   - optionally tool → tool edges of the tool CSR: w · `toolEdgeFactor`.
 * The undirected (symmetric) view sums both orientations: A[u][v] = W(u→v) + W(v→u) for dependency and tool
 * edges, and `membershipWeight` for a membership pair.
 *
 * Source: strategic discovery on the tools–capabilities bipartite hypergraph, with capability→capability
 * hyperedges enriching spectral clustering and PageRank (algorithms/README.md, "Spectral clustering",
 * docs/decisions/capability-scoring.md); the clique-free bipartite
 * ("star") expansion of a hypergraph, Zhou, Huang & Schölkopf, "Learning with hypergraphs" (NIPS 2006).
 */
import { AlgorithmError } from "../errors.ts";
import type { Csr } from "../graph/csr.ts";
import { buildSparseRows, type SparseRows } from "../linalg/sparse-rows.ts";
import { buildSymmetricCsr, type SymmetricCsr } from "../linalg/symmetric-csr.ts";

export const DEFAULTS = {
  membershipWeight: 1,
  dependencyFactor: 1,
  toolEdgeFactor: 1,
} as const;

/** A capability→capability dependency (table `capability_dependency`); capability indices, weight ≥ 0. */
export interface CapabilityDependency {
  readonly from: number;
  readonly to: number;
  readonly weight: number;
}

export interface ToolCapabilityInput {
  /** Number of tools (tool ids 0..nTools−1). */
  readonly nTools: number;
  /** memberships[c] = ids of the tools of capability c (capability ids 0..memberships.length−1). */
  readonly memberships: readonly (readonly number[])[];
  /** Capability→capability dependency edges. Default none. */
  readonly capabilityDeps?: readonly CapabilityDependency[];
  /** Tool→tool graph over the same tool ids (n must equal nTools). Default none. */
  readonly toolGraph?: Csr;
}

export interface ToolCapabilityWeights {
  /** Weight of a tool–capability membership edge. Default 1. */
  readonly membershipWeight?: number;
  /** Multiplier of capability dependency weights. Default 1. */
  readonly dependencyFactor?: number;
  /** Multiplier of tool→tool CSR weights (0 ignores them). Default 1. */
  readonly toolEdgeFactor?: number;
}

export class ToolCapabilityGraphError extends AlgorithmError {
  constructor(code: string, message: string) {
    super("tool-capability-graph", code, message);
    this.name = "ToolCapabilityGraphError";
  }
}

function checkFactor(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0)
    throw new ToolCapabilityGraphError("bad-weight", `${name} must be finite and ≥ 0, got ${v}`);
  return v;
}

/** Validates ids and weights; throws ToolCapabilityGraphError naming the offending value. */
export function validateToolCapabilityInput(input: ToolCapabilityInput): void {
  const { nTools, memberships } = input;
  if (!Number.isInteger(nTools) || nTools < 0)
    throw new ToolCapabilityGraphError("bad-n", `nTools must be a non-negative integer, got ${nTools}`);
  const nCaps = memberships.length;
  memberships.forEach((tools, c) => {
    for (const t of tools) {
      if (!Number.isInteger(t) || t < 0 || t >= nTools) {
        throw new ToolCapabilityGraphError(
          "bad-membership",
          `capability ${c} lists tool ${t}, outside 0..${nTools - 1}`,
        );
      }
    }
  });
  for (const d of input.capabilityDeps ?? []) {
    for (const c of [d.from, d.to]) {
      if (!Number.isInteger(c) || c < 0 || c >= nCaps) {
        throw new ToolCapabilityGraphError(
          "bad-dependency",
          `dependency ${d.from}->${d.to} names capability ${c}, outside 0..${nCaps - 1}`,
        );
      }
    }
    if (!Number.isFinite(d.weight) || d.weight < 0) {
      throw new ToolCapabilityGraphError(
        "bad-weight",
        `dependency ${d.from}->${d.to} weight ${d.weight} is not finite and ≥ 0`,
      );
    }
  }
  if (input.toolGraph !== undefined && input.toolGraph.n !== nTools) {
    throw new ToolCapabilityGraphError(
      "bad-tool-graph",
      `toolGraph has ${input.toolGraph.n} nodes, expected nTools = ${nTools}`,
    );
  }
}

/** Parallel arrays of weighted (from, to, weight) triples over the n = nTools + nCaps nodes. */
export interface Triples {
  readonly n: number;
  readonly us: number[];
  readonly vs: number[];
  readonly ws: number[];
}

function collect(input: ToolCapabilityInput, weights: ToolCapabilityWeights, membershipBothWays: boolean): Triples {
  validateToolCapabilityInput(input);
  const mw = checkFactor("membershipWeight", weights.membershipWeight ?? DEFAULTS.membershipWeight);
  const df = checkFactor("dependencyFactor", weights.dependencyFactor ?? DEFAULTS.dependencyFactor);
  const tf = checkFactor("toolEdgeFactor", weights.toolEdgeFactor ?? DEFAULTS.toolEdgeFactor);
  const { nTools, memberships } = input;
  const us: number[] = [];
  const vs: number[] = [];
  const ws: number[] = [];
  if (mw > 0) {
    memberships.forEach((tools, c) => {
      // A capability listing the same tool twice is still one membership.
      for (const t of new Set(tools)) {
        us.push(t);
        vs.push(nTools + c);
        ws.push(mw);
        if (membershipBothWays) {
          us.push(nTools + c);
          vs.push(t);
          ws.push(mw);
        }
      }
    });
  }
  if (df > 0) {
    for (const d of input.capabilityDeps ?? []) {
      us.push(nTools + d.from);
      vs.push(nTools + d.to);
      ws.push(d.weight * df);
    }
  }
  const g = input.toolGraph;
  if (g !== undefined && tf > 0) {
    for (let u = 0; u < g.n; u++) {
      const b = g.offsets[u + 1]!;
      for (let j = g.offsets[u]!; j < b; j++) {
        us.push(u);
        vs.push(g.targets[j]!);
        ws.push(g.weights[j]! * tf);
      }
    }
  }
  return { n: nTools + memberships.length, us, vs, ws };
}

/**
 * Directed combined graph as rows (membership edges in both directions, dependencies and tool edges as
 * given, scaled); parallel edges keep the largest weight, zero weights and self-loops are dropped.
 */
export function toolCapabilityDigraph(input: ToolCapabilityInput, weights: ToolCapabilityWeights = {}): SparseRows {
  const t = collect(input, weights, true);
  return buildSparseRows(t.n, t.us, t.vs, t.ws, "max");
}

/** Symmetric adjacency A of the combined graph (n = nTools + nCaps), orientations summed as documented above. */
export function toolCapabilityAdjacency(input: ToolCapabilityInput, weights: ToolCapabilityWeights = {}): SymmetricCsr {
  const t = collect(input, weights, false);
  return buildSymmetricCsr(t.n, t.us, t.vs, t.ws);
}
