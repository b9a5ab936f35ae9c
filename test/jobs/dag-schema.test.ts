/**
 * Schema proposals in buildDag (algorithms/dag/schema-dependencies.ts) through the library on both real backends.
 *
 * Catalog: route (in: locations array, required; out: distance number), pace (in: distance number, required;
 * out: pace number), sms (in: message string, required; out: status string), x (no schemas).
 * Project "plain": 2 traces x → sms (dependsOn) ⇒ consumerRate(sms) = 2/2 = 1; pace never ran (rate 0).
 *   buildDag [route, pace, sms]: no learned relation among them.
 *     pace (rate 0 → needs ≥ 0.4): route.distance → distance = (1 + 1 + 1)/3 = 1 → route→pace, strength 0.3
 *     sms  (rate 1 → needs ≥ 0.1): route and pace both ½ × 1/3 = 1/6 (number into a string); tie → route
 *     route: nothing fits an array input.
 * Data-flow prior (default on): an edgeless set gets its best edge when role = max(consumer(B), producer(A)) ≥ 0.2,
 * rates shrunk to the project's base rate (Σ dependency counts / Σ runs; plain: 2 / 4 = ½) with weight 5.
 * Project "learned": also 3 traces pace → sms ⇒ pace→sms learned (weight 1); sms has a prerequisite, so no
 *   schema edge into it; route→pace still proposed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dagOver } from "../../src/jobs/dag.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { backends, freshProject } from "../helpers/backends.ts";

const obj = (properties: Record<string, unknown>, required?: string[]) => ({
  type: "object",
  properties,
  ...(required ? { required } : {}),
});
const TOOLS = [
  {
    id: "route",
    description: "plan a route",
    inputSchema: obj({ locations: { type: "array" } }, ["locations"]),
    outputSchema: obj({ distance: { type: "number" } }),
  },
  {
    id: "pace",
    description: "running pace",
    inputSchema: obj({ distance: { type: "number" } }, ["distance"]),
    outputSchema: obj({ pace: { type: "number" } }),
  },
  {
    id: "sms",
    description: "send a text",
    inputSchema: obj({ message: { type: "string" } }, ["message"]),
    outputSchema: obj({ status: { type: "string" } }),
  },
  { id: "x", description: "something else" },
];

const trace = (id: string, k: number, steps: unknown[]) => ({
  id,
  startedAt: new Date(Date.UTC(2026, 9, 1, 0, k)).toISOString(),
  success: true,
  steps,
});

for (const backend of backends()) {
  describe(`buildDag schema proposals on ${backend.name}`, () => {
    let tg: Toolgraph;
    let plain: string;
    let learned: string;
    beforeAll(async () => {
      plain = freshProject("dagschema");
      learned = freshProject("dagschemalearned");
      tg = await openToolgraph({
        ...(await backend.options()),
        project: plain,
        embeddings: "hash:64",
        now: () => Date.parse("2026-11-01T12:00:00Z"),
      });
      const xs = [0, 1].map((k) => trace(`x${k}`, k, [{ tool: "x" }, { tool: "sms", dependsOn: [0] }]));
      const ps = [0, 1, 2].map((k) => trace(`p${k}`, 10 + k, [{ tool: "pace" }, { tool: "sms", dependsOn: [0] }]));
      for (const p of [plain, learned]) {
        await tg.importCatalog({ tools: TOOLS }, { project: p });
        await tg.importTraces(xs, { project: p });
      }
      await tg.importTraces(ps, { project: learned });
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("unrelated tools get schema edges, weaker than learned ones, each explained", async () => {
      const r = await tg.buildDag({ tools: ["route", "pace", "sms"], schemaEdges: true, project: plain });
      expect(r.graph).toBe("dependency");
      expect(r.edges.map((e) => [e.from, e.to, e.evidence, e.schema?.output, e.schema?.input])).toEqual([
        ["route", "pace", "schema", "distance", "distance"],
        ["route", "sms", "schema", "distance", "message"],
      ]);
      expect(r.edges[0]!.strength).toBeCloseTo(0.3, 12);
      expect(r.edges[1]!.schema!.score).toBeCloseTo(1 / 6, 12);
      expect(r.edges[1]!.strength).toBeCloseTo(0.05, 12);
      expect(r.edges[0]!.explanation).toContain("output distance of route fits required input distance of pace");
      expect(r.layers).toEqual([["route"], ["pace", "sms"]]);
    });

    it("learned evidence keeps priority: sms keeps its learned prerequisite and gets no schema edge", async () => {
      const r = await tg.buildDag({ tools: ["route", "pace", "sms"], schemaEdges: true, project: learned });
      expect(r.edges.map((e) => [e.from, e.to, e.evidence])).toEqual([
        ["route", "pace", "schema"],
        ["pace", "sms", "dependency"],
      ]);
      expect(r.edges[1]!.strength).toBe(1);
      expect(r.layers).toEqual([["route"], ["pace"], ["sms"]]);
    });

    it("schema edges are off unless asked for (schemaEdges), and then the tools stay unrelated roots", async () => {
      const s = await engineOf(tg).snapshot(plain);
      const i = (t: string) => s.index.get(t)!;
      const dag = dagOver(s, ["route", "pace", "sms"].map(i), "auto", 3, false, { dataFlowPrior: false });
      expect(dag.edges).toEqual([]);
      expect(dag.layers).toEqual([["route", "pace", "sms"].map(i)]);
      // With the data-flow prior (default): one edge, the best schema fit route → pace (score 1); base = 2
      // dependency observations / 4 runs = ½, route and pace never ran → role ½, strength 0.15.
      const r = await tg.buildDag({ tools: ["route", "pace", "sms"], project: plain });
      expect(r.edges.map((e) => [e.from, e.to, e.evidence, e.prior?.schema.score])).toEqual([
        ["route", "pace", "prior", 1],
      ]);
      expect(r.edges[0]!.strength).toBeCloseTo(0.15, 12);
      await expect(
        tg.buildDag({ tools: ["route"], schemaEdges: "yes" as unknown as boolean, project: plain }),
      ).rejects.toThrow(/schemaEdges/);
    });

    it("tools without output schemas get no schema proposal; the data-flow prior then links x → pace", async () => {
      const r = await tg.buildDag({ tools: ["x", "pace"], schemaEdges: true, project: plain });
      // Base ½, w 5: producer(x) = (2 + 2.5) / 7 = 9/14, consumer(x) = 2.5 / 7 = 5/14; pace never ran → ½ each;
      // no schema for x. x → pace: consumer diff ½ − 5/14 > 0 → x → pace; role = max(½, 9/14) = 9/14.
      expect(r.edges.map((e) => [e.from, e.to, e.evidence])).toEqual([["x", "pace", "prior"]]);
      expect(r.edges[0]!.prior!.role).toBeCloseTo(9 / 14, 12);
      expect(r.edges[0]!.prior!.consumer).toBeCloseTo(0.5, 12);
      expect(r.edges[0]!.prior!.producer).toBeCloseTo(9 / 14, 12);
      expect(r.edges[0]!.prior!.schema).toEqual({ output: "", input: "", score: 0 });
      expect(r.edges[0]!.strength).toBeCloseTo((0.3 * 9) / 14, 12);
    });

    it("data-flow prior (default): an unrelated pair gets its best edge, whatever the input order; off with dataFlowPrior false", async () => {
      // pace → sms: schema ½ × 1/3 = 1/6 (pace number into message string), sms → pace 0 (string into number);
      // role = max(consumer(sms) = (2 + 2.5) / 7 = 9/14, producer(pace) = ½) = 9/14 → strength 0.3 × 9/14.
      for (const tools of [
        ["pace", "sms"],
        ["sms", "pace"],
      ]) {
        const r = await tg.buildDag({ tools, project: plain });
        expect(r.edges.map((e) => [e.from, e.to, e.evidence, e.prior?.schema.output, e.prior?.schema.input])).toEqual([
          ["pace", "sms", "prior", "pace", "message"],
        ]);
        expect(r.edges[0]!.strength).toBeCloseTo((0.3 * 9) / 14, 12);
        expect(r.edges[0]!.prior!.schema.score).toBeCloseTo(1 / 6, 12);
        expect(r.edges[0]!.explanation).toContain("data-flow prior");
        expect(r.layers).toEqual([["pace"], ["sms"]]);
      }
      const s = await engineOf(tg).snapshot(plain);
      const i = (t: string) => s.index.get(t)!;
      expect(dagOver(s, [i("pace"), i("sms")], "auto", 3, false, { dataFlowPrior: false }).edges).toEqual([]);
    });
  });
}
