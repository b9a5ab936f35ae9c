/**
 * buildDag's optional `intent` (algorithms/dag/mention-order.ts) through the library on both backends.
 *
 * Catalog: lookupCity, bridge, weatherForecast. Traces (project "unseen"): 3 × lookupCity → bridge (dependsOn),
 * 3 × bridge → weatherForecast (dependsOn). So the dependency graph has lookupCity → bridge → weatherForecast,
 * and lookupCity, weatherForecast were never seen in succession (precedence 0 both ways).
 *   buildDag [weatherForecast, lookupCity]: the 2-hop path gives lookupCity → weatherForecast.
 *   with intent "get the weather forecast, then look up the city": tokens get(0) weather(1) forecast(2) look(3)
 *   up(4) city(5); distinctive words weatherForecast {weather, forecast, weatherforecast}, lookupCity {city,
 *   lookupcity} ("lookup" is generic) ⇒ mention(weatherForecast) = 1 < mention(lookupCity) = 5: reversed to
 *   weatherForecast → lookupCity, one hop, same strength.
 * Project "seen": also 1 trace lookupCity then weatherForecast (a sequence, no data flow): observed once in
 *   the path's order ⇒ observed precedence wins, lookupCity → weatherForecast with the same intent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { dagOver } from "../../src/jobs/dag.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { backends, freshProject } from "../helpers/backends.ts";

const TOOLS = [
  { id: "lookupCity", description: "find a city" },
  { id: "bridge", description: "convert a place" },
  { id: "weatherForecast", description: "forecast for coordinates" },
];
const trace = (id: string, k: number, steps: unknown[]) => ({
  id,
  startedAt: new Date(Date.UTC(2026, 9, 1, 0, k)).toISOString(),
  success: true,
  steps,
});
const INTENT = "get the weather forecast, then look up the city";

for (const backend of backends()) {
  describe(`buildDag intent on ${backend.name}`, () => {
    let tg: Toolgraph;
    let unseen: string;
    let seen: string;
    beforeAll(async () => {
      unseen = freshProject("dagintent");
      seen = freshProject("dagintentseen");
      tg = await openToolgraph({
        ...(await backend.options()),
        project: unseen,
        embeddings: "hash:64",
        now: () => Date.parse("2026-11-01T12:00:00Z"),
      });
      const ab = [0, 1, 2].map((k) => trace(`ab${k}`, k, [{ tool: "lookupCity" }, { tool: "bridge", dependsOn: [0] }]));
      const bc = [0, 1, 2].map((k) =>
        trace(`bc${k}`, 10 + k, [{ tool: "bridge" }, { tool: "weatherForecast", dependsOn: [0] }]),
      );
      for (const p of [unseen, seen]) {
        await tg.importCatalog({ tools: TOOLS }, { project: p });
        await tg.importTraces([...ab, ...bc], { project: p });
      }
      await tg.importTraces([trace("ac", 20, [{ tool: "lookupCity" }, { tool: "weatherForecast" }])], {
        project: seen,
      });
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("orients a pair never seen in succession by the order the intent mentions it", async () => {
      const plain = await tg.buildDag({ tools: ["weatherForecast", "lookupCity"], project: unseen });
      expect(plain.edges.map((e) => [e.from, e.to, e.hops])).toEqual([["lookupCity", "weatherForecast", 2]]);
      const r = await tg.buildDag({ tools: ["weatherForecast", "lookupCity"], intent: INTENT, project: unseen });
      expect(r.edges.map((e) => [e.from, e.to, e.hops])).toEqual([["weatherForecast", "lookupCity", 1]]);
      expect(r.edges[0]!.strength).toBeCloseTo(plain.edges[0]!.strength, 12);
      expect(r.edges[0]!.explanation).toContain(
        "the intent, which mentions weatherForecast (word 2) before lookupCity (word 6)",
      );
      expect(r.layers).toEqual([["weatherForecast"], ["lookupCity"]]);
      // The order of the tools list never counts.
      const swapped = await tg.buildDag({ tools: ["lookupCity", "weatherForecast"], intent: INTENT, project: unseen });
      expect(swapped.edges.map((e) => [e.from, e.to])).toEqual([["weatherForecast", "lookupCity"]]);
    });

    it("takes the intent's tokens from the caller when given (the same DAG as tokenizing the intent)", async () => {
      const s = await engineOf(tg).snapshot(unseen);
      const sel = ["weatherForecast", "lookupCity"].map((t) => s.index.get(t)!);
      const own = dagOver(s, sel, "auto", 3, false, { intent: INTENT });
      expect(dagOver(s, sel, "auto", 3, false, { intent: INTENT, intentTokens: tokenize(INTENT) })).toEqual(own);
      expect(own.edges.map((e) => [e.from, e.to])).toEqual([sel]);
    });

    it("lets observed precedence override mention order", async () => {
      const r = await tg.buildDag({ tools: ["weatherForecast", "lookupCity"], intent: INTENT, project: seen });
      expect(r.edges.map((e) => [e.from, e.to])).toEqual([["lookupCity", "weatherForecast"]]);
    });

    it("rejects an empty intent, naming the field", async () => {
      await expect(tg.buildDag({ tools: ["lookupCity"], intent: "", project: unseen })).rejects.toThrow(/intent/);
    });
  });
}
