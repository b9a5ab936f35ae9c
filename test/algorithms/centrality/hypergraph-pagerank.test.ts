import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hypergraphPagerank } from "../../../algorithms/centrality/hypergraph-pagerank.ts";
import { pagerank } from "../../../algorithms/centrality/pagerank.ts";
import { buildCsr, type CsrEdge } from "../../../algorithms/graph/csr.ts";
import { ToolCapabilityGraphError } from "../../../algorithms/spectral/tool-capability-graph.ts";

const tight = { tolerance: 1e-14, maxIterations: 10_000 };
const sum = (a: Float64Array) => a.reduce((x, y) => x + y, 0);

describe("hypergraphPagerank", () => {
  it("one tool in one capability: 0.5 each", () => {
    const r = hypergraphPagerank({ nTools: 1, memberships: [[0]] }, tight);
    expect(r.tools[0]).toBeCloseTo(0.5, 12);
    expect(r.capabilities[0]).toBeCloseTo(0.5, 12);
  });

  it("two tools in one capability (star): t = 0.475/1.85, c = 1 − 2t", () => {
    // c = 0.05 + 0.85·(t0 + t1); t = 0.05 + 0.85·c/2; 2t + c = 1 → 1.85·t = 0.475
    const r = hypergraphPagerank({ nTools: 2, memberships: [[0, 1]] }, tight);
    const t = 0.475 / 1.85;
    expect(r.tools[0]).toBeCloseTo(t, 12);
    expect(r.tools[1]).toBeCloseTo(t, 12);
    expect(r.capabilities[0]).toBeCloseTo(1 - 2 * t, 12);
  });

  it("equals plain PageRank on the hand-built joint graph (memberships, deps, tool edges)", () => {
    const toolGraph = buildCsr(4, [
      { from: 0, to: 1, weight: 0.5 },
      { from: 3, to: 2, weight: 0.8 },
    ]);
    const input = {
      nTools: 4,
      memberships: [[0, 1], [1, 2, 3], [3]],
      capabilityDeps: [
        { from: 0, to: 1, weight: 0.7 },
        { from: 2, to: 1, weight: 0.2 },
      ],
      toolGraph,
    };
    const r = hypergraphPagerank(input, { ...tight, dependencyFactor: 0.5, toolEdgeFactor: 2 });
    // Nodes: tools 0..3, capabilities 4..6.
    const e: CsrEdge[] = [];
    const link = (t: number, c: number) => e.push({ from: t, to: 4 + c, weight: 1 }, { from: 4 + c, to: t, weight: 1 });
    link(0, 0);
    link(1, 0);
    link(1, 1);
    link(2, 1);
    link(3, 1);
    link(3, 2);
    e.push({ from: 4, to: 5, weight: 0.35 }, { from: 6, to: 5, weight: 0.1 }); // 0.7·0.5, 0.2·0.5
    e.push({ from: 0, to: 1, weight: 1 }, { from: 3, to: 2, weight: 1.6 }); // 0.5·2, 0.8·2
    const expected = pagerank(buildCsr(7, e), tight);
    for (let t = 0; t < 4; t++) expect(r.tools[t]).toBeCloseTo(expected[t]!, 12);
    for (let c = 0; c < 3; c++) expect(r.capabilities[c]).toBeCloseTo(expected[4 + c]!, 12);
  });

  it("a dependency raises the score of the capability depended on", () => {
    const base = {
      nTools: 4,
      memberships: [
        [0, 1],
        [2, 3],
      ],
    };
    const without = hypergraphPagerank(base, tight);
    const withDep = hypergraphPagerank({ ...base, capabilityDeps: [{ from: 0, to: 1, weight: 1 }] }, tight);
    expect(without.capabilities[0]).toBeCloseTo(without.capabilities[1]!, 12);
    expect(withDep.capabilities[1]! > withDep.capabilities[0]!).toBe(true);
  });

  it("tools and capabilities share one distribution summing to 1 (property)", () => {
    const arb = fc.integer({ min: 1, max: 12 }).chain((nTools) =>
      fc.record({
        nTools: fc.constant(nTools),
        memberships: fc.array(fc.array(fc.integer({ min: 0, max: nTools - 1 }), { maxLength: 5 }), { maxLength: 6 }),
      }),
    );
    fc.assert(
      fc.property(arb, (input) => {
        const r = hypergraphPagerank(input);
        expect(r.tools.length).toBe(input.nTools);
        expect(r.capabilities.length).toBe(input.memberships.length);
        expect(sum(r.tools) + sum(r.capabilities)).toBeCloseTo(1, 12);
      }),
      { numRuns: 100, seed: 5 },
    );
  });

  it("empty input: empty arrays", () => {
    const r = hypergraphPagerank({ nTools: 0, memberships: [] });
    expect(r.tools.length).toBe(0);
    expect(r.capabilities.length).toBe(0);
    expect(r.converged).toBe(true);
  });

  it("a tool in no capability only gets teleport and dangling mass", () => {
    // Tool 2 is isolated: x2 = 0.15/4 + 0.85·(dangling mass = x2)/4 → x2 (1 − 0.2125) = 0.0375 → x2 = 0.047619…
    const r = hypergraphPagerank({ nTools: 3, memberships: [[0, 1]] }, tight);
    expect(r.tools[2]).toBeCloseTo(0.0375 / 0.7875, 12);
  });

  it("rejects a membership naming an unknown tool", () => {
    expect(() => hypergraphPagerank({ nTools: 2, memberships: [[0, 5]] })).toThrow(ToolCapabilityGraphError);
    expect(() => hypergraphPagerank({ nTools: 2, memberships: [[0, 5]] })).toThrow(/capability 0 lists tool 5/);
  });
});
