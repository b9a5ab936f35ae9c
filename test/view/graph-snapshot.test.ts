import Graph from "graphology";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edgeWeight } from "../../algorithms/graph/csr.ts";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { loadGraphSnapshot } from "../../src/view/load-snapshot.ts";
import { backends, freshProject } from "../helpers/backends.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");

for (const backend of backends()) {
  describe(`graph snapshot on ${backend.name}`, () => {
    let tg: Toolgraph;
    let project: string;
    beforeAll(async () => {
      project = freshProject("snap");
      // Reopen through the library API on the same backend.
      tg = await openToolgraph({ ...(await backend.options()), project });
      await tg.importCatalog(demoCatalog());
      await tg.importTraces(demoTraces(200, 1, NOW));
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("the CSR and the graphology graph agree edge for edge", async () => {
      const s = await engineOf(tg).snapshot(project);
      // An independent implementation: a graphology graph built from the stored edges' CSR.
      const g = new Graph({ type: "directed", multi: false, allowSelfLoops: false });
      for (const t of s.tools) g.addNode(t.id);
      for (let u = 0; u < s.csr.n; u++) {
        for (let k = s.csr.offsets[u]!; k < s.csr.offsets[u + 1]!; k++)
          g.addDirectedEdge(s.tools[u]!.id, s.tools[s.csr.targets[k]!]!.id, { weight: s.csr.weights[k]! });
      }
      expect(g.order).toBe(s.n);
      expect(g.size).toBe(s.csr.m);
      g.forEachEdge((_e, attr, from, to) => {
        expect(edgeWeight(s.csr, s.index.get(from)!, s.index.get(to)!)).toBeCloseTo(attr.weight as number, 12);
      });
      for (const e of s.edges()) {
        if (e.weight > 0) expect(g.getEdgeAttribute(g.edge(e.from, e.to)!, "weight")).toBeCloseTo(e.weight, 12);
      }
    });

    it("patching a recorded execution in place equals a fresh load from the store", async () => {
      const before = await engineOf(tg).snapshot(project);
      const patchesBefore = before.patchCount;
      await tg.recordExecution({
        id: "patch-1",
        startedAt: "2026-11-01T13:00:00Z",
        success: true,
        steps: [{ tool: "git.status" }, { tool: "slack.post_message" }, { tool: "email.send", dependsOn: [1] }],
      });
      const patched = await engineOf(tg).snapshot(project);
      expect(patched).toBe(before); // same object, patched
      expect(patched.patchCount).toBe(patchesBefore + 1);
      const fresh = await loadGraphSnapshot(engineOf(tg).db, project);
      expect(patched.version).toBe(fresh.version);
      const a = [...patched.edges()].map((e) => [e.from, e.to, e.weight, e.type, e.source, e.counts]).sort();
      const b = [...fresh.edges()].map((e) => [e.from, e.to, e.weight, e.type, e.source, e.counts]).sort();
      expect(a).toEqual(b);
      expect(Array.from(patched.executions)).toEqual(Array.from(fresh.executions));
      expect(Array.from(patched.lastUsedAt)).toEqual(Array.from(fresh.lastUsedAt));
      expect(Array.from(patched.csr.weights)).toEqual(Array.from(fresh.csr.weights));
    });

    it("edgeAt(u, v) is edge(id u, id v), and stays so across an in-place patch that adds an edge", async () => {
      const s = await engineOf(tg).snapshot(project);
      const same = () => {
        for (const e of s.edges()) expect(s.edgeAt(s.index.get(e.from)!, s.index.get(e.to)!)).toBe(e);
      };
      same();
      // A pair without an edge (either way), to be related by a new execution.
      let pair: [number, number] | undefined;
      for (let u = 0; u < s.n && !pair; u++)
        for (let v = 0; v < s.n && !pair; v++) if (u !== v && !s.edge(s.tools[u]!.id, s.tools[v]!.id)) pair = [u, v];
      const [u, v] = pair!;
      expect(s.edgeAt(u, v)).toBeUndefined();
      await tg.recordExecution({
        id: "edge-at-1",
        startedAt: "2026-11-01T14:00:00Z",
        success: true,
        steps: [{ tool: s.tools[u]!.id }, { tool: s.tools[v]!.id, dependsOn: [0] }],
      });
      expect(await engineOf(tg).snapshot(project)).toBe(s); // patched in place
      expect(s.edgeAt(u, v)).toBeDefined();
      expect(s.edgeAt(u, v)).toBe(s.edge(s.tools[u]!.id, s.tools[v]!.id));
      same();
    });
  });
}
