import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildExecutionDag } from "../../../algorithms/dag/build-execution-dag.ts";
import {
  type DataFlowPriorOptions,
  DEFAULTS,
  dataFlowPrior,
  shrunkRate,
} from "../../../algorithms/dag/data-flow-prior.ts";
import type { DependencyEdge } from "../../../algorithms/dag/dependency-edge.ts";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import { expectDagErrorOf } from "./expect-dag-error.ts";

const expectDagError = expectDagErrorOf("dag/data-flow-prior");

const table = (scores: Record<string, number>) => (a: number, b: number) => {
  const s = scores[`${a}>${b}`];
  return s === undefined ? undefined : { score: s, output: `out${a}`, input: `in${b}` };
};
const rates = (xs: number[]) => (v: number) => xs[v]!;

const oneEdge: DependencyEdge = {
  from: 0,
  to: 1,
  path: [0, 1],
  hops: 1,
  cost: 1,
  meanWeight: 1,
  strength: 1,
  direct: true,
};

describe("dataFlowPrior: lexicographic key (schema, consumer diff, producer diff, first diff), hand-computed", () => {
  it("schema first, consumer(B) − consumer(A) breaks the tie; role = max(consumer(B), producer(A))", () => {
    // Schema 0.5 ties for 0→1, 1→0, 2→1. consumer = [0, 0.5, 1]: 0→1 +0.5, 1→0 −0.5, 2→1 −0.5 → 0→1.
    // role = max(consumer(1) 0.5, producer(0) 0.6) = 0.6 → strength 0.3 × 0.6 = 0.18.
    const r = dataFlowPrior([0, 1, 2], [], {
      schemaMatch: table({ "0>1": 0.5, "1>0": 0.5, "0>2": 0.2, "2>1": 0.5 }),
      consumerRate: rates([0, 0.5, 1]),
      producerRate: rates([0.6, 0, 0]),
    });
    expect(r).toHaveLength(1);
    const e = r[0]!;
    expect([e.from, e.to, e.hops, e.direct]).toEqual([0, 1, 1, false]);
    expect(e.path).toEqual([0, 1]);
    expect(e.strength).toBeCloseTo(0.18, 12);
    expect(e.meanWeight).toBeCloseTo(0.18, 12);
    expect(e.cost).toBeCloseTo(1 / 0.18, 9);
    expect(e.prior).toEqual({
      role: 0.6,
      consumer: 0.5,
      producer: 0.6,
      schema: { output: "out0", input: "in1", score: 0.5 },
    });
  });

  it("equal schema and consumer rates: producer(A) − producer(B) decides (2 → 0)", () => {
    // No schemas; consumer all 0.4; producer = [0.1, 0.2, 0.9]: best producer diff 0.9 − 0.1 = 0.8 → 2→0.
    const r = dataFlowPrior([0, 1, 2], [], { consumerRate: () => 0.4, producerRate: rates([0.1, 0.2, 0.9]) });
    expect(r.map((e) => [e.from, e.to])).toEqual([[2, 0]]);
    expect(r[0]!.prior.role).toBe(0.9);
    expect(r[0]!.prior.schema).toEqual({ output: "", input: "", score: 0 });
  });

  it("all rates equal: first(A) − first(B) decides (1 → 0)", () => {
    const r = dataFlowPrior([0, 1], [], {
      consumerRate: () => 0.5,
      producerRate: () => 0.5,
      firstShare: rates([0.2, 0.8]),
    });
    expect(r.map((e) => [e.from, e.to])).toEqual([[1, 0]]);
    expect(r[0]!.strength).toBeCloseTo(0.15, 12);
  });

  it("a higher schema score beats any rate difference", () => {
    const r = dataFlowPrior([0, 1], [], {
      schemaMatch: table({ "1>0": 0.34, "0>1": 0.33 }),
      consumerRate: rates([0.5, 1]),
      producerRate: rates([1, 0]),
    });
    // 1→0 although consumer(0) − consumer(1) = −0.5; role = max(consumer(0) 0.5, producer(1) 0) = 0.5
    expect(r.map((e) => [e.from, e.to, e.prior.role])).toEqual([[1, 0, 0.5]]);
    // role = max(consumer(0) 0, producer(1) 0) = 0 < 0.2: nothing after all
    expect(dataFlowPrior([0, 1], [], { schemaMatch: table({ "1>0": 0.34 }) })).toEqual([]);
  });

  it("role below minRoleRate: no proposal; minRoleRate 0 always proposes", () => {
    const opts: DataFlowPriorOptions = { consumerRate: rates([0, 0.19]), producerRate: rates([0.1, 0]) };
    // best 0→1 (consumer diff +0.19); role = max(0.19, 0.1) = 0.19 < 0.2
    expect(dataFlowPrior([0, 1], [], opts)).toEqual([]);
    expect(dataFlowPrior([0, 1], [], { ...opts, minRoleRate: 0.19 }).map((e) => [e.from, e.to])).toEqual([[0, 1]]);
    expect(dataFlowPrior([0, 1], [], { minRoleRate: 0 }).map((e) => [e.from, e.to, e.strength])).toEqual([[0, 1, 0]]);
  });

  it("silent when candidates exist or fewer than 2 tools are selected", () => {
    const opts: DataFlowPriorOptions = { consumerRate: () => 1 };
    expect(dataFlowPrior([0, 1], [oneEdge], opts)).toEqual([]);
    expect(dataFlowPrior([0], [], opts)).toEqual([]);
    expect(dataFlowPrior([], [], opts)).toEqual([]);
    expect(dataFlowPrior([0, 1], [], opts)).toHaveLength(1);
  });

  it("exact ties everywhere: the smallest node ids (3 → 5), whatever the input order", () => {
    expect(dataFlowPrior([5, 3], [], { consumerRate: () => 1 }).map((e) => [e.from, e.to])).toEqual([[3, 5]]);
    expect(dataFlowPrior([3, 5, 9], [], { consumerRate: () => 1 }).map((e) => [e.from, e.to])).toEqual([[3, 5]]);
    expect(dataFlowPrior([9, 5, 3], [], { consumerRate: () => 1 }).map((e) => [e.from, e.to])).toEqual([[3, 5]]);
  });

  it("shrunkRate = min(1, (k + w·base) / (n + w)), hand-computed", () => {
    // one consuming run out of one, Seal-Tools base 0.019, w 5: (1 + 0.095) / 6 = 0.1825
    expect(shrunkRate(1, 1, 0.019)).toBeCloseTo(1.095 / 6, 12);
    // never run: the base rate itself
    expect(shrunkRate(0, 0, 0.45)).toBeCloseTo(0.45, 12);
    // w = 0: the raw share; capped at 1 (a run may read two outputs)
    expect(shrunkRate(3, 4, 0.5, 0)).toBe(0.75);
    expect(shrunkRate(6, 4, 0.5, 0)).toBe(1);
    expect(shrunkRate(0, 0, 0.5, 0)).toBe(0);
    // 10 of 10 with base 0.2, w 5: (10 + 1) / 15
    expect(shrunkRate(10, 10, 0.2)).toBeCloseTo(11 / 15, 12);
  });

  it("strengthScale scales the strength; bad options throw", () => {
    expect(dataFlowPrior([0, 1], [], { consumerRate: () => 1, strengthScale: 0.5 })[0]!.strength).toBe(0.5);
    expect(DEFAULTS).toEqual({ minRoleRate: 0.2, strengthScale: 0.3, priorWeight: 5 });
    expectDagError(() => dataFlowPrior([0, 1], [], { minRoleRate: 1.5 }), "bad-option");
    expectDagError(() => dataFlowPrior([0, 1], [], { strengthScale: -0.1 }), "bad-option");
    expectDagError(() => dataFlowPrior([0, 1], [], { minRoleRate: Number.NaN }), "bad-option");
  });

  it("through buildExecutionDag as `propose`: the one edge is kept and layers follow it", () => {
    const csr = buildCsr(3, []);
    const dag = buildExecutionDag(csr, [0, 1, 2], {
      propose: (inferred) => dataFlowPrior([0, 1, 2], inferred, { consumerRate: rates([0, 0, 1]) }),
    });
    // best: consumer diff 1 into 2, from the smaller of 0 and 1 → 0→2
    expect(dag.edges.map((e) => [e.from, e.to])).toEqual([[0, 2]]);
    expect(dag.layers).toEqual([[0, 1], [2]]);
  });
});

describe("dataFlowPrior properties", () => {
  const k = 5;
  // Distinct key values: scores and rates from disjoint grids so no two pairs tie on the whole key.
  const arbInput = fc.record({
    n: fc.integer({ min: 2, max: k }),
    schema: fc.uniqueArray(fc.integer({ min: 0, max: 1000 }), { minLength: k * k, maxLength: k * k }),
    consumer: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: k, maxLength: k }),
    producer: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: k, maxLength: k }),
    perm: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: k, maxLength: k }),
  });

  it("with distinct keys the proposal does not depend on the order of `selected`; at most one edge, between selected tools, strength ≤ 0.3", () => {
    fc.assert(
      fc.property(arbInput, ({ n, schema, consumer, producer, perm }) => {
        const selected = Array.from({ length: n }, (_, i) => i);
        const opts: DataFlowPriorOptions = {
          schemaMatch: (a, b) => ({ score: schema[a * k + b]! / 1000, output: "o", input: "i" }),
          consumerRate: rates(consumer),
          producerRate: rates(producer),
        };
        const shuffled = selected.slice().sort((a, b) => perm[a]! - perm[b]! || a - b);
        const x = dataFlowPrior(selected, [], opts);
        const y = dataFlowPrior(shuffled, [], opts);
        expect(y.map((e) => [e.from, e.to, e.strength])).toEqual(x.map((e) => [e.from, e.to, e.strength]));
        expect(x.length).toBeLessThanOrEqual(1);
        for (const e of x) {
          expect(e.from).not.toBe(e.to);
          expect(selected).toContain(e.from);
          expect(selected).toContain(e.to);
          expect(e.strength).toBeLessThanOrEqual(0.3 + 1e-12);
          expect(e.prior.role).toBeGreaterThanOrEqual(DEFAULTS.minRoleRate);
          // the chosen pair has the highest schema score
          let max = 0;
          for (const a of selected)
            for (const b of selected) if (a !== b) max = Math.max(max, schema[a * k + b]! / 1000);
          expect(e.prior.schema.score).toBe(max);
        }
      }),
    );
  });
});
