/**
 * The four jobs end to end through the library API on both real backends, on the demo project
 * (41 tools, 10 capabilities, 400 synthetic traces) with the deterministic hashing embedder.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { searchCandidates } from "../../src/jobs/search-scoring.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { backends, freshProject } from "../helpers/backends.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");

for (const backend of backends()) {
  describe(`the four jobs on ${backend.name}`, () => {
    let tg: Toolgraph;
    let project: string;
    beforeAll(async () => {
      project = freshProject("jobs");
      tg = await openToolgraph({ ...(await backend.options()), project, embeddings: "hash:256", now: () => NOW });
      await tg.importCatalog(demoCatalog());
      await tg.importTraces(demoTraces(400, 7, NOW));
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("search returns gated, explained hits with scores in [0,1] and the obvious tool first", async () => {
      const r = await tg.search({ intent: "create a calendar event and invite attendees", limit: 5 });
      expect(r.results.length).toBe(5);
      expect(r.results[0]!.tool).toBe("calendar.create_event");
      for (const x of r.results) {
        expect(x.score).toBeGreaterThanOrEqual(0);
        expect(x.score).toBeLessThanOrEqual(1);
        expect(["accepted", "accepted-with-caution", "abstained"]).toContain(x.gate.decision);
        expect(x.explanation).toContain(x.tool);
        expect(x.breakdown.alpha).toBeGreaterThanOrEqual(0.5);
        expect(x.breakdown.alpha).toBeLessThanOrEqual(1);
      }
      // Sorted best first, and `accepted` lists exactly the non-abstained hits.
      expect(r.results.map((x) => x.score)).toEqual([...r.results.map((x) => x.score)].sort((a, b) => b - a));
      expect(r.accepted).toEqual(r.results.filter((x) => x.gate.decision !== "abstained").map((x) => x.tool));
    });

    it("with context tools the graph term is Adamic-Adar and names the common neighbours", async () => {
      const r = await tg.search({ intent: "push the branch to the remote", context: ["git.commit"], limit: 3 });
      const push = r.results.find((x) => x.tool === "git.push");
      expect(push).toBeDefined();
      expect(push!.breakdown.graphSource).toBe("adamic-adar");
      expect(push!.breakdown.graph).toBeGreaterThan(0);
      expect(push!.breakdown.commonNeighbours.length).toBeGreaterThan(0);
    });

    it("passive mode takes α from heat diffused from the context tools", async () => {
      const r = await tg.search({
        intent: "push the branch to the remote",
        context: ["git.commit"],
        mode: "passive",
        limit: 5,
      });
      const regimes = new Set(r.results.map((x) => x.breakdown.alphaRegime));
      expect([...regimes].every((x) => x === "passive-heat" || x === "cold-start")).toBe(true);
      expect(regimes.has("passive-heat")).toBe(true);
      for (const x of r.results) expect(x.breakdown.alpha).toBeGreaterThanOrEqual(0.5);
    });

    it("safety tags exclude tools even when named with --only; manual override puts a named tool first", async () => {
      const r = await tg.search({
        intent: "delete a file",
        only: ["fs.delete_file"],
        excludeSafetyTags: ["destructive"],
        limit: 10,
      });
      expect(r.results.map((x) => x.tool)).not.toContain("fs.delete_file");
      const o = await tg.search({ intent: "send an email", only: ["slack.post_message"], limit: 3 });
      expect(o.results[0]!.tool).toBe("slack.post_message");
      expect(o.results[0]!.reason).toBe("manual override (only)");
    });

    it("a tool named in the request is ranked first with the reason, unless a safety tag excludes it", async () => {
      const r = await tg.search({ intent: "run ci.run_linter on the branch", limit: 3 });
      expect(r.results[0]!.tool).toBe("ci.run_linter");
      expect(r.results[0]!.reason).toMatch(/named in the request/);
      const typo = await tg.search({ intent: "use github.create_pull_requst please", limit: 3 });
      expect(typo.results[0]!.tool).toBe("github.create_pull_request");
      expect(typo.results[0]!.reason).toMatch(/close-spelling/);
      const safe = await tg.search({
        intent: "call fs.delete_file on it",
        excludeSafetyTags: ["destructive"],
        limit: 10,
      });
      expect(safe.results.map((x) => x.tool)).not.toContain("fs.delete_file");
    });

    it("repeated identical requests at the same graph version come from the cache; a write misses it", async () => {
      const req = { intent: "summarise a web page", limit: 4 };
      const before = tg.results.stats().hits;
      const a = await tg.search(req);
      const b = await tg.search(req);
      // The cached answer is the same answer; each is logged as its own recommendation (its own id).
      expect({ ...b, recommendationId: undefined }).toEqual({ ...a, recommendationId: undefined });
      expect(b.recommendationId).not.toBe(a.recommendationId);
      expect(tg.results.stats().hits).toBe(before + 1);
      await tg.recordExecution({
        id: "cache-bust",
        startedAt: NOW,
        success: true,
        steps: [{ tool: "web.search" }, { tool: "web.summarize_page" }],
      });
      await tg.search(req);
      expect(tg.results.stats().hits).toBe(before + 1);
    });

    it("bad requests name the field", async () => {
      await expect(tg.search({ intent: "" })).rejects.toThrow(/intent/);
      await expect(tg.search({ intent: "x", context: ["no.such.tool"] })).rejects.toThrow(
        /context\[0\]: unknown tool "no.such.tool"/,
      );
      await expect(tg.suggestNext({ context: ["git.status"], limit: 0 })).rejects.toThrow(/limit/);
    });

    it("next step lists the four terms with the seed weights, excludes failed tools, and gates", async () => {
      const r = await tg.suggestNext({ context: ["git.status", "git.diff"], limit: 5, mode: "seed" });
      expect(r.weights).toEqual({ cooc: 0.6, community: 0.3, recency: 0.1, pagerank: 0.1 });
      expect(r.suggestions.length).toBeGreaterThan(0);
      for (const sug of r.suggestions) {
        const t = sug.terms;
        const score = t.cooc.contribution + t.community.contribution + t.recency.contribution + t.pagerank.contribution;
        expect(sug.score).toBeCloseTo(score, 12);
        expect(t.cooc.contribution).toBeCloseTo(0.6 * t.cooc.value, 12);
        expect(sug.gate.threshold).toBeGreaterThanOrEqual(0.6);
      }
      const top = r.suggestions[0]!.tool;
      const again = await tg.suggestNext({
        context: ["git.status", "git.diff"],
        exclude: [top],
        limit: 5,
        mode: "seed",
      });
      expect(again.suggestions.map((x) => x.tool)).not.toContain(top);
      const markov = await tg.suggestNext({ context: ["git.status", "git.diff"], mode: "markov", limit: 3 });
      for (const sug of markov.suggestions) expect(sug.terms.community.weight).toBe(0);
    });

    it("learned weights are fitted on the project's traces and stored", async () => {
      const fit = await tg.fitNextStepWeights();
      expect(fit.examples).toBeGreaterThan(100);
      const sum = fit.weights.cooc + fit.weights.community + fit.weights.recency + fit.weights.pagerank;
      expect(sum).toBeCloseTo(1, 9);
      const r = await tg.suggestNext({ context: ["git.commit"], mode: "learned" });
      expect(r.weights).toEqual(fit.weights);
      // The default mode uses the stored learned weights.
      const auto = await tg.suggestNext({ context: ["git.commit"] });
      expect(auto.mode).toBe("auto");
      expect(auto.weights).toEqual(fit.weights);
    });

    it("after calibration the gate decides on the estimated probability of success", async () => {
      const reports = await tg.calibrate();
      const next = reports.find((x) => x.kind === "next-step")!;
      expect(next.pairs).toBeGreaterThan(100);
      const cal = engineOf(tg).gatekeeper.calibration(project, "next-step")!;
      expect(cal.blocks.length).toBeGreaterThan(0);
      const r = await tg.suggestNext({ context: ["git.status", "git.diff"], limit: 5 });
      const { calibrate } = await import("../../algorithms/thresholds/calibration.ts");
      for (const sug of r.suggestions) {
        const p = calibrate(cal, sug.confidence);
        if (sug.gate.decision === "accepted") expect(p).toBeGreaterThanOrEqual(0.85);
        if (sug.gate.decision === "abstained") expect(p).toBeLessThan(sug.gate.threshold);
      }
    });

    it("capability match fires the pattern trigger and explains reliability", async () => {
      const r = await tg.matchCapabilities({ intent: "please roll back the release", limit: 3 });
      expect(r.results[0]!.capability).toBe("rollback");
      expect(r.results[0]!.breakdown.pattern?.activated).toBe(true);
      expect(r.results[0]!.score).toBeLessThanOrEqual(1);
      expect(r.results[0]!.explanation).toMatch(/reliability/);
    });

    it("capability discovery ranks the capability whose tools are in use, with overlap and cluster boost", async () => {
      const r = await tg.discoverCapabilities({ context: ["calendar.find_free_slot", "calendar.create_event"] });
      expect(r.results[0]!.capability).toBe("schedule-meeting");
      expect(r.results[0]!.overlap).toBeCloseTo(2 / 3, 12);
      expect(r.results[0]!.score).toBeCloseTo((2 / 3) * (1 + r.results[0]!.boost), 12);
    });

    it("a DAG puts every tool in one layer, respects each edge, and an unrelated tool is its own root", async () => {
      const tools = ["db.backup", "db.migrate", "ci.deploy", "calendar.find_free_slot"];
      const r = await tg.buildDag({ tools });
      expect(r.layers.flat().sort()).toEqual([...tools].sort());
      const layerOf = new Map(r.layers.flatMap((l, i) => l.map((t) => [t, i] as const)));
      for (const e of r.edges) expect(layerOf.get(e.from)!).toBeLessThan(layerOf.get(e.to)!);
      expect(r.edges.some((e) => e.from === "db.backup" && e.to === "db.migrate")).toBe(true);
      const lone = r.nodes.find((n) => n.tool === "calendar.find_free_slot")!;
      expect(lone.root).toBe(true);
      expect(lone.reason).toMatch(/no relation|unrelated|own root/i);
    });

    it("a strong capability match gives the plan its tools", async () => {
      const caps = await tg.matchCapabilities({ intent: "deploy the new version to production", limit: 1 });
      expect(caps.results[0]).toMatchObject({
        capability: "release",
        gate: { decision: "accepted", confidence: "high" },
      });
      const r = await tg.plan({ intent: "deploy the new version to production", limit: 3 });
      expect(r.tools.map((t) => t.tool).sort()).toEqual([...caps.results[0]!.tools].sort());
      for (const t of r.tools)
        expect(t.why).toMatch(/^in capability release, matched to the intent with high confidence/);
    });

    it("a plan takes its main tools from the most similar successful past request and orders them", async () => {
      // A catalog without capabilities: none can match strongly, so the intent memory supplies the main tools.
      const p = freshProject("memory-plan");
      await tg.importCatalog({ ...demoCatalog(), capabilities: [] }, { project: p });
      await tg.importTraces(
        demoTraces(400, 7, NOW).map(({ capability: _capability, ...e }) => e),
        { project: p },
      );
      const r = await tg.plan({ project: p, intent: "deploy the new version to production", limit: 3 });
      const names = r.tools.map((t) => t.tool);
      expect(names).toContain("db.migrate");
      expect(names).toContain("db.backup");
      for (const t of r.tools) expect(t.why.length).toBeGreaterThan(0);
      expect(r.tools[0]!.why).toMatch(/most similar past request/);
      const layerOf = new Map(r.layers.flatMap((l, i) => l.map((t) => [t, i] as const)));
      expect(layerOf.get("db.backup")!).toBeLessThan(layerOf.get("db.migrate")!);
    });

    it("caps trim a plan and say what they dropped", async () => {
      const r = await tg.plan({ intent: "release the new version to production", limit: 5, maxTools: 2 });
      expect(r.tools.length).toBe(2);
      expect(r.removed.length).toBeGreaterThan(0);
      expect(r.removed[0]!.reason).toMatch(/maxTools 2/);
    });

    it("alternatives exclude the failed tool and explain themselves", async () => {
      const r = await tg.alternatives({ tool: "email.send", limit: 5 });
      expect(r.results.map((x) => x.tool)).not.toContain("email.send");
      expect(r.results.length).toBeGreaterThan(0);
      for (const x of r.results) expect(x.explanation).toMatch(/similar description/);
    });

    it("critical production raises the threshold to 0.80 (seed rule critical_production)", async () => {
      const r = await tg.search({
        intent: "deploy the hotfix",
        environment: { production: true, critical: true },
        limit: 3,
      });
      expect(r.threshold.adjusted).toBeCloseTo(0.8, 12);
      expect(r.threshold.appliedRules).toEqual(["critical_production"]);
    });

    it("feedback moves the learned threshold of the request's context, persisted, within bounds", async () => {
      const intent = "deploy the release to staging";
      const before = (await tg.search({ intent, limit: 1 })).threshold;
      for (let i = 0; i < 3; i++) await tg.feedback({ intent, decision: "accepted", success: false });
      const up = await tg.feedback({ intent, decision: "accepted", success: false });
      expect(up.outcome).toBe("accepted-failed");
      expect(up.offset).toBeCloseTo(0.04, 12);
      const after = (await tg.search({ intent, limit: 2 })).threshold;
      expect(after.learnedOffset).toBeCloseTo(0.04, 12);
      expect(after.adjusted).toBeCloseTo(Math.min(0.8, before.adjusted + 0.04), 9);
      const down = await tg.feedback({ intent, decision: "abstained", followed: true, success: true });
      expect(down.offset).toBeCloseTo(0.03, 12);
    });

    it("recorded executions update the user's persisted history", async () => {
      const user = "zoe";
      const before = await engineOf(tg).gatekeeper.tracker.getUserContext(project, user);
      expect(before.taskCount).toBe(0);
      for (let i = 0; i < 3; i++) {
        await tg.recordExecution({
          id: `zoe-${i}`,
          user,
          intent: "run the tests",
          startedAt: NOW + i * 1000,
          success: i !== 1,
          steps: [{ tool: "ci.run_tests", success: i !== 1 }],
        });
      }
      const after = await engineOf(tg).gatekeeper.tracker.getUserContext(project, user);
      expect(after.taskCount).toBe(3);
      // 2 of 3 succeeded: recent = overall = 2/3; reputation = 0.7·2/3 + 0.3·2/3
      expect(after.reputation).toBeCloseTo(2 / 3, 12);
      expect(after.errorCount).toBe(1);
    });

    // History and cold start, each on its own project of this database.
    it("without intent memory a plan adds the prerequisites the intent did not mention only with evidence, each explained", async () => {
      const p = freshProject("closure");
      await tg.importCatalog(demoCatalog(), { project: p });
      await tg.importTraces(
        demoTraces(300, 3, NOW).map(({ intent: _intent, ...e }) => e),
        { project: p },
      );
      // db.backup → db.migrate is learned (release runs) and required, but nothing ties it to this intent.
      const learned = await tg.plan({ project: p, intent: "apply the pending database migrations", limit: 1 });
      expect(learned.tools.map((t) => t.tool)).toEqual(["db.migrate"]);
      await tg.importEdges(
        JSON.stringify({ from: "db.backup", to: "db.migrate", type: "dependency", source: "declared" }),
        { project: p },
      );
      const r = await tg.plan({ project: p, intent: "apply the pending database migrations", limit: 1 });
      const names = r.tools.map((t) => t.tool);
      expect(names[0]).toBe("db.migrate");
      expect(names).toContain("db.backup");
      expect(r.tools.find((t) => t.tool === "db.backup")!.why).toMatch(
        /^prerequisite of db.migrate \(depth 1, dependency weight \d\.\d\d\): declared dependency edge$/,
      );
      const layerOf = new Map(r.layers.flatMap((l, i) => l.map((t) => [t, i] as const)));
      expect(layerOf.get("db.backup")!).toBeLessThan(layerOf.get("db.migrate")!);
    });

    it("a tool with a successful history never ranks below an identical-text tool without one", async () => {
      const p = freshProject("twins");
      await tg.importCatalog(
        {
          tools: [
            { id: "east.fetch_weather", name: "fetch_weather", description: "Fetch the weather forecast for a city" },
            { id: "west.fetch_weather", name: "fetch_weather", description: "Fetch the weather forecast for a city" },
            { id: "c.send_sms", name: "send_sms", description: "Send a text message" },
          ],
        },
        { project: p },
      );
      await tg.importTraces(
        Array.from({ length: 12 }, (_, i) => ({
          id: `t${i}`,
          startedAt: NOW - i * 60_000,
          success: true,
          steps: [{ tool: "west.fetch_weather" }, { tool: "c.send_sms" }],
        })),
        { project: p },
      );
      const r = await tg.search({ project: p, intent: "weather forecast for Paris", limit: 3 });
      const ids = r.results.map((x) => x.tool);
      expect(ids.indexOf("west.fetch_weather")).toBeLessThan(ids.indexOf("east.fetch_weather"));
      // Same text: the same semantic score; the used tool's graph evidence only adds.
      expect(r.results[0]!.breakdown.semantic).toBeCloseTo(r.results[1]!.breakdown.semantic, 12);
      const withCtx = await tg.search({
        project: p,
        intent: "weather forecast for Paris",
        context: ["c.send_sms"],
        limit: 3,
      });
      const ids2 = withCtx.results.map((x) => x.tool);
      expect(ids2.indexOf("west.fetch_weather")).toBeLessThan(ids2.indexOf("east.fetch_weather"));
    });

    it("with no traces the intent memory is silent and search equals the memory-free ranking exactly", async () => {
      const p = freshProject("cold");
      const intent = "schedule a meeting with the design team";
      await tg.importCatalog(demoCatalog(), { project: p });
      const r = await tg.search({ project: p, intent, limit: 8 });
      expect(r.memory.neighbours).toBe(0);
      expect(r.memory.reason).toBe("no similar past executions");
      const s = await engineOf(tg).snapshot(p);
      const a = await engineOf(tg).analytics(p);
      const idx = await engineOf(tg).searchIndex(p);
      const [qv] = await engineOf(tg).queryEmbedder.embed([intent]);
      const plain = searchCandidates(s, a, idx, intent, qv!, {}).slice(0, 8);
      expect(r.results.map((x) => [x.tool, x.score])).toEqual(plain.map((h) => [s.tools[h.index]!.id, h.final]));
      // `top: k` is the first k of the full ranking, in order (the search job asks for its limit only).
      const all = searchCandidates(s, a, idx, intent, qv!, {});
      expect(all.length).toBeGreaterThan(8);
      for (const k of [0, 1, 3, 8, all.length, all.length + 5]) {
        expect(searchCandidates(s, a, idx, intent, qv!, { top: k })).toEqual(all.slice(0, k));
      }
    });
  });
}
