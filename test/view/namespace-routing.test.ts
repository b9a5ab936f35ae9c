/**
 * Two-hop namespace routing through the library on both real backends: a 1,000-tool catalog in 50
 * namespaces (each with its own domain word), the routing decision, its explanation, the candidates, and
 * the context tools' graph neighbours joining the candidates.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import {
  chooseRouting,
  namespaceIndexFor,
  ROUTING_DEFAULTS,
  recordRouteTrial,
  routeDecision,
  routeQuery,
  routeTrialCount,
} from "../../src/view/namespace-index.ts";
import { backends, freshProject } from "../helpers/backends.ts";

const SYLLABLES = ["ka", "lo", "mi", "ru", "te", "vo", "ni", "sa", "pe", "zu"];
const VERBS = ["create", "delete", "list", "update", "archive"];
const OBJECTS = ["invoice", "ticket", "report", "folder"];
/** 50 distinct pronounceable domain words: kaka, kalo, … */
const DOMAINS = Array.from({ length: 50 }, (_, i) => `${SYLLABLES[i % 10]}${SYLLABLES[Math.floor(i / 10)]}x`);

export function routingCatalog() {
  const tools = DOMAINS.flatMap((d, i) =>
    VERBS.flatMap((v) =>
      OBJECTS.map((o) => ({
        id: `${d}.${v}_${o}`,
        description: `${v} a ${o} in the ${d} workspace`,
        ...(i % 2 === 0 ? { server: `srv-${d}` } : {}),
      })),
    ),
  );
  return { tools };
}

const ns = (i: number) => (i % 2 === 0 ? `srv-${DOMAINS[i]}` : DOMAINS[i]!);

for (const backend of backends()) {
  describe(`two-hop routing on ${backend.name}`, () => {
    let tg: Toolgraph;
    let project: string;
    beforeAll(async () => {
      project = freshProject("routing");
      tg = await openToolgraph({
        ...(await backend.options()),
        project,
        embeddings: "hash:256",
        now: () => Date.parse("2026-11-01T12:00:00Z"),
      });
      await tg.importCatalog(routingCatalog());
      // Domain 0's first tool is followed by the first tool of every other domain.
      await tg.importTraces(
        DOMAINS.slice(1).map((d, k) => ({
          id: `t${k}`,
          startedAt: new Date(Date.UTC(2026, 9, 1, 0, k)).toISOString(),
          success: true,
          steps: [{ tool: `${DOMAINS[0]}.create_invoice` }, { tool: `${d}.create_invoice` }],
        })),
      );
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("namespaces come from the server field, else the id prefix", async () => {
      const s = await engineOf(tg).snapshot(project);
      const idx = await engineOf(tg).searchIndex(project);
      const index = namespaceIndexFor(s, idx);
      expect(index.groups.names.length).toBe(50);
      expect([...index.groups.names].sort()).toEqual(DOMAINS.map((_, i) => ns(i)).sort());
      const nameOf = (tool: string) => index.groups.names[index.groups.toolNamespace[s.index.get(tool)!]!];
      expect(nameOf(`${DOMAINS[0]}.list_ticket`)).toBe(`srv-${DOMAINS[0]}`);
      expect(nameOf(`${DOMAINS[1]}.list_ticket`)).toBe(DOMAINS[1]);
      expect(namespaceIndexFor(s, idx)).toBe(index); // cached
    });

    it("two-hop ranks the domain's namespace first, searches its tools and says so", async () => {
      const target = 17;
      const r = await tg.search({
        intent: `archive a report in the ${DOMAINS[target]} workspace`,
        routing: "two-hop",
        limit: 5,
      });
      expect(r.routing.mode).toBe("two-hop");
      expect(r.routing.requested).toBe("two-hop");
      expect(r.routing.namespaces![0]!.namespace).toBe(ns(target));
      // B = 10 namespaces of 20 tools reach the 200-tool minimum (near-ties of the best may widen it).
      expect(r.routing.namespaces!.length).toBeGreaterThanOrEqual(10);
      expect(r.routing.candidates).toBe(20 * r.routing.namespaces!.length);
      expect(r.routing.totalNamespaces).toBe(50);
      expect(r.routing.explanation).toMatch(new RegExp(`^routed via namespaces ${ns(target)} \\(0\\.\\d\\d\\)`));
      expect(r.results[0]!.tool).toBe(`${DOMAINS[target]}.archive_report`);
      expect(r.results[0]!.explanation).toContain(`found via namespace ${ns(target)} (two-hop routing)`);
      const routed = new Set(r.routing.namespaces!.map((n) => n.namespace));
      for (const x of r.results)
        expect(routed.has(x.tool.split(".")[0]!) || routed.has(`srv-${x.tool.split(".")[0]}`)).toBe(true);
    });

    it("flat searches every tool and finds the same best tool", async () => {
      const r = await tg.search({
        intent: `archive a report in the ${DOMAINS[17]} workspace`,
        routing: "flat",
        limit: 5,
      });
      expect(r.routing).toMatchObject({ requested: "flat", mode: "flat", explanation: "searched every tool (flat)" });
      expect(r.routing.namespaces).toBeUndefined();
      expect(r.results[0]!.tool).toBe(`${DOMAINS[17]}.archive_report`);
    });

    it("auto (the default) stays flat below the measured catalog size", async () => {
      const r = await tg.search({ intent: `list tickets in ${DOMAINS[3]}`, limit: 3 });
      expect(r.routing.requested).toBe("auto");
      expect(r.routing.mode).toBe("flat");
      expect(r.routing.reason).toBe("auto: flat, the catalog has 1000 tools (routes measured from 20000)");
      expect(ROUTING_DEFAULTS).toMatchObject({ autoMinTools: 20_000, autoMinNamespaces: 100, trialQueries: 8 });
    });

    it("auto measures both routes from autoMinTools tools in enough namespaces, then keeps the measured one", async () => {
      const s = await engineOf(tg).snapshot(project);
      const idx = await engineOf(tg).searchIndex(project);
      const at = { autoMinTools: 1000, autoMinNamespaces: 50 };
      expect(chooseRouting("auto", s, idx, at)).toEqual({
        requested: "auto",
        mode: "flat",
        trial: true,
        reason: "auto: measuring flat and two-hop (query 1 of 8), 1000 tools in 50 namespaces",
      });
      // eight measured queries: two-hop 1 ms, flat 2 ms, the same top 10 → two-hop is kept
      for (let k = 0; k < 7; k++) {
        expect(recordRouteTrial(s, idx, { flatMs: 2, twoHopMs: 1, overlap: 1 })).toBeUndefined();
        expect(routeTrialCount(idx)).toBe(k + 1);
      }
      expect(chooseRouting("auto", s, idx, at).reason).toBe(
        "auto: measuring flat and two-hop (query 8 of 8), 1000 tools in 50 namespaces",
      );
      expect(recordRouteTrial(s, idx, { flatMs: 2, twoHopMs: 1, overlap: 1 })?.mode).toBe("two-hop");
      expect(routeDecision(idx)?.mode).toBe("two-hop");
      expect(chooseRouting("auto", s, idx, at)).toEqual({
        requested: "auto",
        mode: "two-hop",
        reason:
          "auto: two-hop (8 queries: two-hop p50 1.00 ms vs flat 2.00 ms, top-10 overlap 1.00), 1000 tools in 50 namespaces",
      });
      // a late sample of a concurrent trial query leaves the decision alone
      expect(recordRouteTrial(s, idx, { flatMs: 1, twoHopMs: 9, overlap: 0 })?.mode).toBe("two-hop");
      expect(chooseRouting("auto", s, idx, { autoMinTools: 1001, autoMinNamespaces: 50 }).reason).toBe(
        "auto: flat, the catalog has 1000 tools (routes measured from 1001)",
      );
      expect(chooseRouting("auto", s, idx, { autoMinTools: 1000, autoMinNamespaces: 51 }).reason).toBe(
        "auto: flat, 1000 tools but only 50 namespaces (routes measured from 51)",
      );
      expect(chooseRouting("flat", s, idx, { autoMinTools: 1, autoMinNamespaces: 1 }).mode).toBe("flat");
      expect(chooseRouting("two-hop", s, idx).mode).toBe("two-hop");
    });

    it("the context tools and their graph neighbours join the candidates", async () => {
      const s = await engineOf(tg).snapshot(project);
      const idx = await engineOf(tg).searchIndex(project);
      const index = namespaceIndexFor(s, idx);
      const [qv] = await engineOf(tg).queryEmbedder.embed([`delete a folder in ${DOMAINS[30]}`]);
      const neighbours = DOMAINS.slice(1).map((d) => s.index.get(`${d}.create_invoice`)!);
      const plain = routeQuery(s, index, `delete a folder in ${DOMAINS[30]}`, qv!, undefined);
      const inPlain = new Set(plain.restrictTo);
      expect(neighbours.some((t) => !inPlain.has(t))).toBe(true);
      const ctx = s.index.get(`${DOMAINS[0]}.create_invoice`)!;
      const withCtx = routeQuery(s, index, `delete a folder in ${DOMAINS[30]}`, qv!, undefined, { context: [ctx] });
      const inCtx = new Set(withCtx.restrictTo);
      for (const t of [ctx, ...neighbours]) expect(inCtx.has(t)).toBe(true);
      expect(withCtx.reason).toMatch(/plus \d+ context tools and graph neighbours/);
      expect([...withCtx.restrictTo]).toEqual([...withCtx.restrictTo].sort((a, b) => a - b));
    });

    it("an invalid routing value is rejected naming the field", async () => {
      await expect(tg.search({ intent: "x", routing: "sideways" as "flat" })).rejects.toThrow(/routing/);
    });
  });
}
