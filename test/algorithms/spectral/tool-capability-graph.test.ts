import { describe, expect, it } from "vitest";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import {
  ToolCapabilityGraphError,
  toolCapabilityAdjacency,
  toolCapabilityDigraph,
} from "../../../algorithms/spectral/tool-capability-graph.ts";

function dense(a: { n: number; offsets: Uint32Array; targets: Uint32Array; weights: Float64Array }): number[][] {
  const m = Array.from({ length: a.n }, () => new Array<number>(a.n).fill(0));
  for (let u = 0; u < a.n; u++)
    for (let j = a.offsets[u]!; j < a.offsets[u + 1]!; j++) m[u]![a.targets[j]!] = a.weights[j]!;
  return m;
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

const input = {
  nTools: 3,
  memberships: [[0, 1, 1], [2]],
  capabilityDeps: [
    { from: 0, to: 1, weight: 0.4 },
    { from: 1, to: 0, weight: 0.2 },
  ],
  toolGraph: buildCsr(3, [
    { from: 0, to: 2, weight: 0.5 },
    { from: 2, to: 0, weight: 0.25 },
  ]),
};

describe("toolCapabilityAdjacency", () => {
  it("sums orientations; memberships once; factors applied", () => {
    // Nodes: tools 0,1,2; capability 0 → node 3, capability 1 → node 4.
    // tool 0–2: 0.5·2 + 0.25·2 = 1.5; cap 3–4: (0.4 + 0.2)·0.5 = 0.3; memberships weight 1 (duplicate tool 1 once).
    const a = dense(toolCapabilityAdjacency(input, { dependencyFactor: 0.5, toolEdgeFactor: 2 }));
    const expected = [
      [0, 0, 1.5, 1, 0],
      [0, 0, 0, 1, 0],
      [1.5, 0, 0, 0, 1],
      [1, 1, 0, 0, 0.3],
      [0, 0, 1, 0.3, 0],
    ];
    for (let u = 0; u < 5; u++) for (let v = 0; v < 5; v++) expect(a[u]![v]).toBeCloseTo(expected[u]![v]!, 15);
  });

  it("toolEdgeFactor 0 ignores the tool graph", () => {
    const a = dense(toolCapabilityAdjacency(input, { toolEdgeFactor: 0 }));
    expect(a[0]![2]).toBe(0);
  });
});

describe("toolCapabilityDigraph", () => {
  it("memberships both ways, dependencies and tool edges directed", () => {
    const a = dense(toolCapabilityDigraph(input));
    expect(a).toEqual([
      [0, 0, 0.5, 1, 0],
      [0, 0, 0, 1, 0],
      [0.25, 0, 0, 0, 1],
      [1, 1, 0, 0, 0.4],
      [0, 0, 1, 0.2, 0],
    ]);
  });

  it("empty input gives an empty graph", () => {
    expect(toolCapabilityDigraph({ nTools: 0, memberships: [] }).n).toBe(0);
  });
});

describe("validation", () => {
  it("names the offending dependency", () => {
    expect(() =>
      toolCapabilityDigraph({ nTools: 1, memberships: [[0]], capabilityDeps: [{ from: 0, to: 3, weight: 1 }] }),
    ).toThrow(/dependency 0->3 names capability 3/);
  });

  it("rejects negative dependency weight, bad nTools, mismatched tool graph and negative factors", () => {
    expect(
      codeOf(() =>
        toolCapabilityDigraph({ nTools: 1, memberships: [[0]], capabilityDeps: [{ from: 0, to: 0, weight: -1 }] }),
      ),
    ).toBe("bad-weight");
    expect(codeOf(() => toolCapabilityDigraph({ nTools: -1, memberships: [] }))).toBe("bad-n");
    expect(codeOf(() => toolCapabilityDigraph({ nTools: 2, memberships: [], toolGraph: buildCsr(3, []) }))).toBe(
      "bad-tool-graph",
    );
    expect(codeOf(() => toolCapabilityAdjacency({ nTools: 1, memberships: [] }, { membershipWeight: -1 }))).toBe(
      "bad-weight",
    );
    expect(() => toolCapabilityDigraph({ nTools: 2, memberships: [[2]] })).toThrow(ToolCapabilityGraphError);
  });
});
