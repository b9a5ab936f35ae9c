/**
 * DAG direction from observed order (algorithms/dag/precedence.ts) through the library on both real backends.
 *
 * flight_search → flight_ticket_changing recorded 50 times (with dependsOn), the reverse 10 times: both
 * dependency edges are `observed` (≥ 3) and saturate at strength 1. share(search before changing) =
 * (50 + 1) / (60 + 2) = 0.8226, the reverse 11 / 62 = 0.1774: the DAG must orient flight_search →
 * flight_ticket_changing whatever order the tools are given in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dagOver } from "../../src/jobs/dag.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { backends, freshProject } from "../helpers/backends.ts";

for (const backend of backends()) {
  describe(`DAG direction from observed precedence on ${backend.name}`, () => {
    let tg: Toolgraph;
    let project: string;
    beforeAll(async () => {
      project = freshProject("dagorder");
      tg = await openToolgraph({
        ...(await backend.options()),
        project,
        embeddings: "hash:64",
        now: () => Date.parse("2026-11-01T12:00:00Z"),
      });
      await tg.importCatalog({
        tools: [
          { id: "flight_search", description: "search flights" },
          { id: "flight_ticket_changing", description: "change a booked flight ticket" },
        ],
      });
      const trace = (k: number, first: string, second: string) => ({
        id: `t${k}`,
        startedAt: new Date(Date.UTC(2026, 9, 1, 0, k)).toISOString(),
        success: true,
        steps: [{ tool: first }, { tool: second, dependsOn: [0] }],
      });
      await tg.importTraces([
        ...Array.from({ length: 50 }, (_, k) => trace(k, "flight_search", "flight_ticket_changing")),
        ...Array.from({ length: 10 }, (_, k) => trace(50 + k, "flight_ticket_changing", "flight_search")),
      ]);
    }, 120_000);
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    for (const tools of [
      ["flight_search", "flight_ticket_changing"],
      ["flight_ticket_changing", "flight_search"],
    ]) {
      it(`orients flight_search → flight_ticket_changing given [${tools.join(", ")}]`, async () => {
        const r = await tg.buildDag({ tools, project });
        expect(r.edges.map((e) => [e.from, e.to])).toEqual([["flight_search", "flight_ticket_changing"]]);
        expect(r.edges[0]!.strength).toBe(1);
        expect(r.edges[0]!.explanation).toContain(
          "observed flight_search before flight_ticket_changing 50×, after 10×",
        );
        expect(r.dropped.map((d) => [d.from, d.to, d.reason])).toEqual([
          ["flight_ticket_changing", "flight_search", "cycle"],
        ]);
        expect(r.dropped[0]!.explanation).toContain("10× against 50× the other way, order share 0.18");
        expect(r.layers).toEqual([["flight_search"], ["flight_ticket_changing"]]);
      });
    }

    it("without precedence the saturated pair is a tie: neither direction is asserted (no index tie-break)", async () => {
      const s = await engineOf(tg).snapshot(project);
      const ids = ["flight_search", "flight_ticket_changing"].map((t) => s.index.get(t)!);
      for (const sel of [ids, ids.slice().reverse()]) {
        const dag = dagOver(s, sel, "auto", 3, false, { precedence: false });
        expect(dag.edges).toEqual([]);
        expect(dag.dropped).toHaveLength(2);
      }
    });
  });
}
