import { describe, expect, it } from "vitest";
import type { DependencyEdge } from "../../../algorithms/dag/dependency-edge.ts";
import { DEFAULTS, orientByRoles, roleLean } from "../../../algorithms/dag/role-orientation.ts";
import { expectDagErrorOf } from "./expect-dag-error.ts";

const expectDagError = expectDagErrorOf("dag/role-orientation");

function edge(from: number, to: number, hops: number, direct = false): DependencyEdge {
  const path = hops === 1 ? [from, to] : [from, ...Array.from({ length: hops - 1 }, (_, k) => 100 + k), to];
  const strength = 0.6 / hops;
  return { from, to, path, hops, cost: hops / 0.6, meanWeight: 0.6, strength, direct };
}

// consumer rates: 0 reads others' output in 20 % of its runs, 1 in 80 %, 2 in 50 %, 3 in 50 %.
const consumer = [0.2, 0.8, 0.5, 0.5];
const roles = { consumerRate: (v: number) => consumer[v]! };

describe("roleLean", () => {
  it("compares consumer rates, then schema fit, then first share", () => {
    expect(roleLean(0, 1, roles)).toBe(1); // 0.8 − 0.2 > 0
    expect(roleLean(1, 0, roles)).toBe(-1);
    expect(roleLean(2, 3, roles)).toBe(0); // all tied (schema 0, first ½)
    const schema = (a: number, b: number) => (a === 3 && b === 2 ? 0.5 : 0.1);
    expect(roleLean(2, 3, { ...roles, schemaScore: schema })).toBe(-1); // 0.1 − 0.5
    expect(roleLean(2, 3, { ...roles, firstShare: (v) => (v === 2 ? 0.7 : 0.4) })).toBe(1); // 0.7 − 0.4
  });

  it("rejects non-finite rates", () => {
    expectDagError(() => roleLean(0, 1, { consumerRate: () => Number.NaN }), "bad-rate");
  });
});

describe("orientByRoles", () => {
  it("reverses a multi-hop edge that points from the consumer to the producer, keeping the path as evidence", () => {
    const e = edge(1, 0, 2);
    const r = orientByRoles([e], roles);
    expect(r.dropped).toEqual([]);
    expect(r.edges).toHaveLength(1);
    expect(r.edges[0]).toMatchObject({ from: 0, to: 1, path: [0, 1], hops: 1, strength: 0.3, direct: false });
    expect((r.edges[0] as { orientation?: unknown }).orientation).toEqual({
      evidence: [1, 100, 0],
      consumerFrom: 0.2,
      consumerTo: 0.8,
    });
  });

  it("leaves observed pairs, direct edges, one-hop edges (minHops 2) and tied leans as found", () => {
    const observed = orientByRoles([edge(1, 0, 2)], { ...roles, observed: (a, b) => a === 0 && b === 1 });
    expect(observed.edges).toEqual([edge(1, 0, 2)]);
    expect(orientByRoles([edge(1, 0, 1, true)], roles).edges).toEqual([edge(1, 0, 1, true)]);
    expect(DEFAULTS.minHops).toBe(2);
    expect(orientByRoles([edge(1, 0, 1)], roles).edges).toEqual([edge(1, 0, 1)]);
    expect(orientByRoles([edge(1, 0, 1)], { ...roles, minHops: 1 }).edges[0]).toMatchObject({ from: 0, to: 1 });
    expect(orientByRoles([edge(3, 2, 2)], roles).edges).toEqual([edge(3, 2, 2)]);
  });

  it("of both directions of an unobserved pair drops the one against the roles", () => {
    const r = orientByRoles([edge(1, 2, 2), edge(2, 1, 3)], roles);
    // lean(1 → 2) = 0.5 − 0.8 < 0: 1→2 dropped whatever its strength; 2→1 kept as found.
    expect(r.edges).toEqual([edge(2, 1, 3)]);
    expect(r.dropped.map((d) => [d.edge.from, d.edge.to, d.reason, d.witness])).toEqual([
      [1, 2, "orientation", [2, 1]],
    ]);
    const swapped = orientByRoles([edge(2, 1, 3), edge(1, 2, 2)], roles);
    expect(swapped.edges).toEqual(r.edges);
  });

  it("rejects duplicate edges", () => {
    expectDagError(() => orientByRoles([edge(0, 1, 2), edge(0, 1, 2)], roles), "duplicate-edge");
  });
});
