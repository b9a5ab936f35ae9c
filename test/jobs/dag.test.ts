/**
 * Execution DAGs and edge provenance (algorithms/README.md, "DAG") through the library on both real backends: declared
 * dependency edges relate their own ends only (never hops of a longer path); learned edges keep the
 * ≤ 3-hop paths.
 *
 * Catalog a, b, c, d, x, y, z. Declared (template, weight 1.0 × 0.5 = 0.5): a→b, b→c, z→d.
 * Learned: 3 traces x → y → z with dependsOn (observed at 3 ⇒ weight 1.0 each).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edgeWeight } from "../../algorithms/graph/csr.ts";
import { dagOver, pathCsrFor } from "../../src/jobs/dag.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { backends, freshProject } from "../helpers/backends.ts";

const TOOLS = ["a", "b", "c", "d", "x", "y", "z"];
const DECLARED = [
  ["a", "b"],
  ["b", "c"],
  ["z", "d"],
];

for (const backend of backends()) {
  describe(`execution DAG edge provenance on ${backend.name}`, () => {
    let tg: Toolgraph;
    let project: string;
    let plain: string;
    beforeAll(async () => {
      project = freshProject("dagprov");
      plain = freshProject("dagplain");
      tg = await openToolgraph({
        ...(await backend.options()),
        project,
        embeddings: "hash:64",
        now: () => Date.parse("2026-11-01T12:00:00Z"),
      });
      const traces = Array.from({ length: 3 }, (_, k) => ({
        id: `t${k}`,
        startedAt: new Date(Date.UTC(2026, 9, 1, 0, k)).toISOString(),
        success: true,
        steps: [{ tool: "x" }, { tool: "y", dependsOn: [0] }, { tool: "z", dependsOn: [1] }],
      }));
      for (const p of [project, plain]) {
        await tg.importCatalog({ tools: TOOLS.map((id) => ({ id, description: `tool ${id}` })) }, { project: p });
        await tg.importTraces(traces, { project: p });
      }
      await tg.importEdges(
        DECLARED.map(([from, to]) => JSON.stringify({ from, to, type: "dependency", source: "template" })).join("\n"),
        { project },
      );
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("a declared chain a→b→c: c does not depend on a through b", async () => {
      const s = await engineOf(tg).snapshot(project);
      const i = (t: string) => s.index.get(t)!;
      const dag = dagOver(s, [i("a"), i("c")], "auto", 3, false, { dataFlowPrior: false });
      expect(dag.edges).toEqual([]);
      for (const n of dag.nodes) expect(n.reason).toMatch(/own root/);
      // The data-flow prior (default) still links the edgeless pair, as a weak "prior" edge: base rate =
      // 6 dependency observations / 9 runs = 2/3; a and c never ran, so both rates are 2/3 and every key ties
      // → the smaller ids a → c; role 2/3, strength 0.3 × 2/3 = 0.2.
      const r = await tg.buildDag({ tools: ["c", "a"], project });
      expect(r.graph).toBe("dependency");
      expect(r.edges.map((e) => [e.from, e.to, e.evidence])).toEqual([["a", "c", "prior"]]);
      expect(r.edges[0]!.strength).toBeCloseTo(0.2, 12);
    });

    it("each declared edge relates its own ends: a→b and b→c, direct, strength 0.5", async () => {
      const r = await tg.buildDag({ tools: ["a", "b", "c"], project });
      expect(r.edges.map((e) => [e.from, e.to, e.hops, e.strength, e.direct])).toEqual([
        ["a", "b", 1, 0.5, true],
        ["b", "c", 1, 0.5, true],
      ]);
      expect(r.layers).toEqual([["a"], ["b"], ["c"]]);
    });

    it("a learned chain x→y→z keeps its 2-hop path: strength (1/2) × 1 = 0.5", async () => {
      const r = await tg.buildDag({ tools: ["x", "z"], project });
      expect(r.edges).toHaveLength(1);
      expect(r.edges[0]).toMatchObject({
        from: "x",
        to: "z",
        hops: 2,
        path: ["x", "y", "z"],
        strength: 0.5,
        direct: false,
      });
    });

    it("a path whose last hop is declared only (y→z learned, z→d declared) relates no y→d", async () => {
      const s = await engineOf(tg).snapshot(project);
      const i = (t: string) => s.index.get(t)!;
      expect(dagOver(s, [i("y"), i("d")], "auto", 3, false, { dataFlowPrior: false }).edges).toEqual([]);
      // With the data-flow prior (default) the unrelated pair gets one weak edge. Base 2/3, w 5:
      // consumer(y) = producer(y) = (3 + 10/3) / 8 = 19/24, d never ran → 2/3 each; d → y wins on
      // consumer(y) − consumer(d) = +1/8; role = 19/24, strength 0.3 × 19/24.
      const r = await tg.buildDag({ tools: ["y", "d"], project });
      expect(r.edges.map((e) => [e.from, e.to, e.evidence])).toEqual([["d", "y", "prior"]]);
      expect(r.edges[0]!.strength).toBeCloseTo((0.3 * 19) / 24, 12);
      // The history graph follows the same rule.
      expect(dagOver(s, [i("a"), i("c")], "history", 3, false, { dataFlowPrior: false }).edges).toEqual([]);
    });

    it("the path CSR holds the learned edges only, and is the graph itself without declared edges", async () => {
      const s = await engineOf(tg).snapshot(project);
      const i = (t: string) => s.index.get(t)!;
      const dep = s.dependencyCsr;
      const paths = pathCsrFor(s, "dependency", dep);
      expect(paths).not.toBe(dep);
      expect(edgeWeight(dep, i("a"), i("b"))).toBe(0.5);
      expect(edgeWeight(paths, i("a"), i("b"))).toBe(0);
      expect(edgeWeight(paths, i("x"), i("y"))).toBe(1);
      expect(pathCsrFor(s, "dependency", dep)).toBe(paths); // cached per CSR
      const q = await engineOf(tg).snapshot(plain);
      expect(pathCsrFor(q, "dependency", q.dependencyCsr)).toBe(q.dependencyCsr);
      expect(pathCsrFor(q, "history", q.csr)).toBe(q.csr);
    });
  });
}
