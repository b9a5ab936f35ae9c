import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildExecutionDag } from "../../../algorithms/dag/build-execution-dag.ts";
import {
  createSchemaScorer,
  DEFAULTS,
  fieldMatch,
  inputFields,
  outputFields,
  schemaDependencies,
  schemaScore,
  type ToolIo,
  typeFit,
} from "../../../algorithms/dag/schema-dependencies.ts";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import { expectDagErrorOf } from "./expect-dag-error.ts";

const expectDagError = expectDagErrorOf("dag/schema-dependencies");

describe("typeFit", () => {
  it("agreeing classes 1 (integer, float ⊂ number), unknown or into a string ½, else 0", () => {
    expect(typeFit({ name: "o", type: "number" }, { name: "i", type: "integer" })).toBe(1);
    expect(typeFit({ name: "o", type: "float" }, { name: "i", type: "number" })).toBe(1);
    expect(typeFit({ name: "o", type: "string" }, { name: "i", type: "string" })).toBe(1);
    expect(typeFit({ name: "o" }, { name: "i", type: "number" })).toBe(0.5);
    expect(typeFit({ name: "o", type: "number" }, { name: "i", type: "string" })).toBe(0.5);
    expect(typeFit({ name: "o", type: "array" }, { name: "i", type: "string" })).toBe(0.5);
    expect(typeFit({ name: "o", type: "string" }, { name: "i", type: "number" })).toBe(0);
    expect(typeFit({ name: "o", type: "boolean" }, { name: "i", type: "array" })).toBe(0);
  });
});

describe("fieldMatch = fit × (1 + name + text) / 3 (hand-computed)", () => {
  it("same name and type: (1 + 1 + 1) / 3 = 1", () => {
    expect(fieldMatch({ name: "distance", type: "number" }, { name: "distance", type: "number" })).toBe(1);
  });

  it("tip_amount → amount: name {amount} ⊂ {tip, amount} = 1, text Jaccard({amount, total}, {tip, amount}) = 1/3 → 7/9", () => {
    const m = fieldMatch(
      { name: "tip_amount", type: "number", description: "tip amount" },
      { name: "amount", type: "number", description: "Total amount" },
    );
    expect(m).toBeCloseTo(7 / 9, 12);
  });

  it("no shared word: 1/3 with agreeing types, 1/6 with an unknown type, 0 with clashing types", () => {
    expect(fieldMatch({ name: "joke", type: "string" }, { name: "message", type: "string" })).toBeCloseTo(1 / 3, 12);
    expect(fieldMatch({ name: "joke", type: "string" }, { name: "message" })).toBeCloseTo(1 / 6, 12);
    expect(fieldMatch({ name: "joke", type: "string" }, { name: "count", type: "integer" })).toBe(0);
  });

  it("a nested output is matched by its last name: presentation.title → title, unknown types: ½ × 3/3", () => {
    expect(fieldMatch({ name: "presentation.title" }, { name: "title" })).toBe(0.5);
  });
});

/*
 * 0 route:  in  locations (array, required)            out distance (number), time (number)
 * 1 pace:   in  distance (number, req), time (number, req)   out pace (number)
 * 2 sms:    in  phone_number (string, req), message (string, req)   out sms_status (string)
 * consumerRate: sms 1, others 0.
 *   B = route: every output is number/string into an array → score 0: none.
 *   B = pace (rate 0 < 0.7 → needs ≥ 0.4): route.distance → distance = 1 (pace ← sms: string into number = 0).
 *   B = sms (rate 1 → needs ≥ 0.1): route and pace both score ½ × 1/3 = 1/6 (number into string, no shared
 *       word); the tie goes to the earlier tool, route; first matching pair (distance → phone_number).
 */
const IO: ToolIo[] = [
  {
    inputs: [{ name: "locations", type: "array", required: true }],
    outputs: [
      { name: "distance", type: "number" },
      { name: "time", type: "number" },
    ],
  },
  {
    inputs: [
      { name: "distance", type: "number", required: true },
      { name: "time", type: "number", required: true },
    ],
    outputs: [{ name: "pace", type: "number" }],
  },
  {
    inputs: [
      { name: "phone_number", type: "string", required: true },
      { name: "message", type: "string", required: true },
    ],
    outputs: [{ name: "sms_status", type: "string" }],
  },
];
const rate = (v: number) => (v === 2 ? 1 : 0);
const summary = (es: ReturnType<typeof schemaDependencies>) =>
  es.map((e) => [e.from, e.to, e.schema.output, e.schema.input, e.schema.score, e.strength]);

describe("schemaDependencies", () => {
  it("defaults chosen by leave-one-out: consumer rate 0.7, scores 0.1 / 0.4, strength 0.3 × score", () => {
    expect(DEFAULTS).toEqual({ minScore: 0.1, minConsumerRate: 0.7, minScoreAnyConsumer: 0.4, strengthScale: 0.3 });
  });

  it("hand-computed proposals: route→pace (1, strength 0.3), route→sms (1/6, strength 0.05)", () => {
    const es = schemaDependencies([0, 1, 2], (v) => IO[v], { consumerRate: rate });
    expect(summary(es).map((r) => r.slice(0, 4))).toEqual([
      [0, 1, "distance", "distance"],
      [0, 2, "distance", "phone_number"],
    ]);
    expect(es[0]!.schema.score).toBe(1);
    expect(es[0]!.strength).toBeCloseTo(0.3, 12);
    expect(es[1]!.schema.score).toBeCloseTo(1 / 6, 12);
    expect(es[1]!.strength).toBeCloseTo(0.05, 12);
    for (const e of es) expect(e).toMatchObject({ hops: 1, direct: false, path: [e.from, e.to] });
  });

  it("a tool with a prerequisite gets none; a related pair is never proposed", () => {
    expect(
      summary(schemaDependencies([0, 1, 2], (v) => IO[v], { consumerRate: rate, hasPrerequisite: (b) => b === 1 })).map(
        (r) => [r[0], r[1]],
      ),
    ).toEqual([[0, 2]]);
    // route and pace related: pace's only other candidate is sms (score 0) → none; sms takes route.
    const rel = (a: number, b: number) => (a === 0 && b === 1) || (a === 1 && b === 0);
    expect(
      summary(schemaDependencies([0, 1, 2], (v) => IO[v], { consumerRate: rate, related: rel })).map((r) => [
        r[0],
        r[1],
      ]),
    ).toEqual([[0, 2]]);
  });

  it("below the consumer rate, 1/6 is under minScoreAnyConsumer 0.4: sms gets nothing", () => {
    const es = schemaDependencies([0, 1, 2], (v) => IO[v], { consumerRate: (v) => (v === 2 ? 0.69 : 0) });
    expect(summary(es).map((r) => [r[0], r[1]])).toEqual([[0, 1]]);
  });

  it("tools without schemas, a single tool and the empty selection propose nothing", () => {
    expect(schemaDependencies([0, 1, 2], () => undefined)).toEqual([]);
    expect(schemaDependencies([1], (v) => IO[v])).toEqual([]);
    expect(schemaDependencies([], (v) => IO[v])).toEqual([]);
  });

  it("bad options throw a DagError naming the option", () => {
    expectDagError(() => schemaDependencies([0], (v) => IO[v], { minScore: 2 }), "bad-option");
    expectDagError(() => schemaDependencies([0], (v) => IO[v], { strengthScale: Number.NaN }), "bad-option");
    expectDagError(() => schemaDependencies([0], (v) => IO[v], { minConsumerRate: -0.1 }), "bad-option");
  });

  it("schemaScore: no output or no required input gives empty names", () => {
    expect(schemaScore(IO[1]!, { inputs: [{ name: "distance", required: false }], outputs: [] })).toEqual({
      score: 0,
      output: "",
      input: "",
    });
  });

  const field = fc.record({
    name: fc.constantFrom("distance", "time", "amount", "text", "data", "total_amount", "id"),
    type: fc.option(fc.constantFrom("number", "integer", "string", "array"), { nil: undefined }),
  });
  const ioArb = fc.record({
    inputs: fc.array(
      fc.record({ name: field.map((f) => f.name), type: field.map((f) => f.type), required: fc.boolean() }),
      { maxLength: 3 },
    ),
    outputs: fc.array(field, { maxLength: 3 }),
  });

  it("createSchemaScorer: schemaScore over node ids (undefined without io); hand value route→pace = 1", () => {
    const score = createSchemaScorer((v) => IO[v]);
    expect(score(0, 1)).toEqual({ score: 1, output: "distance", input: "distance" });
    expect(score(0, 99)).toBeUndefined();
    for (let a = 0; a < IO.length; a++)
      for (let b = 0; b < IO.length; b++) expect(score(a, b)).toEqual(schemaScore(IO[a]!, IO[b]!));
  });

  it("property: at most one proposal per consumer, scores in [0, 1], strength = 0.3 × score ≤ 0.3, never into a tool with a prerequisite or across a related pair", () => {
    fc.assert(
      fc.property(
        fc.array(ioArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 0, max: 5 }),
        (ios, rates, pre) => {
          const sel = ios.map((_, i) => i);
          const rel = (a: number, b: number) => (a + b) % 3 === 0;
          const es = schemaDependencies(sel, (v) => ios[v], {
            consumerRate: (v) => rates[v]!,
            related: rel,
            hasPrerequisite: (b) => b === pre,
          });
          expect(new Set(es.map((e) => e.to)).size).toBe(es.length);
          for (const e of es) {
            expect(e.from).not.toBe(e.to);
            expect(e.to).not.toBe(pre);
            expect(rel(e.from, e.to)).toBe(false);
            expect(e.schema.score).toBeGreaterThan(0);
            expect(e.schema.score).toBeLessThanOrEqual(1);
            expect(e.strength).toBeCloseTo(0.3 * e.schema.score, 12);
            expect(e.schema.score).toBeGreaterThanOrEqual(rates[e.to]! >= 0.7 ? 0.1 : 0.4);
          }
        },
      ),
    );
  });
});

describe("inputFields / outputFields", () => {
  it("read JSON-Schema-like objects; nested outputs become dotted names", () => {
    expect(
      inputFields({
        type: "object",
        properties: { q: { type: "string", description: "query" }, n: {} },
        required: ["q"],
      }),
    ).toEqual([
      { name: "q", type: "string", description: "query", required: true },
      { name: "n", required: false },
    ]);
    expect(
      outputFields({
        type: "object",
        properties: {
          presentation: { type: "object", properties: { title: { type: "string" } } },
          id: { type: "string" },
        },
      }),
    ).toEqual([
      { name: "presentation", type: "object" },
      { name: "presentation.title", type: "string" },
      { name: "id", type: "string" },
    ]);
    expect(inputFields(null)).toEqual([]);
    expect(outputFields({ properties: "nope" })).toEqual([]);
  });
});

describe("buildExecutionDag with proposals", () => {
  it("a proposed edge weaker than a learned one loses the cycle; an unrelated proposal is kept", () => {
    // learned 1→0 (0.7); proposals 0→1 (0.3) and 0→2 (0.05): cycle {0→1, 1→0} drops 0→1.
    const csr = buildCsr(3, [{ from: 1, to: 0, weight: 0.7 }]);
    const dag = buildExecutionDag(csr, [0, 1, 2], {
      propose: () => schemaDependencies([0, 1, 2], (v) => IO[v], { consumerRate: rate }),
    });
    expect(dag.edges.map((e) => [e.from, e.to])).toEqual([
      [0, 2],
      [1, 0],
    ]);
    expect(dag.dropped.map((d) => [d.edge.from, d.edge.to, d.reason])).toEqual([[0, 1, "cycle"]]);
  });
});
