import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalSignal } from "../../algorithms/search/global-signal.ts";
import { heldOutSignals } from "../../src/jobs/fit-search-weights.ts";
import { searchCandidates } from "../../src/jobs/search-scoring.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { pgliteBackend } from "../helpers/backends.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const WORDS = [
  "invoice",
  "weather",
  "flight",
  "recipe",
  "stock",
  "lyrics",
  "parcel",
  "dentist",
  "mortgage",
  "football",
  "museum",
  "printer",
];
const FILLERS = ["please", "today", "quickly", "for me"];

/**
 * A catalog whose descriptions mislead (tool i is described with the words of tool i+1's requests) and whose
 * past requests repeat (each tool's requests share its word): the memory channel carries the signal, content
 * points at the wrong tool.
 */
async function misleadingProject() {
  const tg = await openToolgraph({
    ...(await pgliteBackend().options()),
    project: "fusion",
    embeddings: "hash:128",
    now: () => NOW,
  });
  await tg.importCatalog({
    tools: WORDS.map((_, i) => ({
      id: `tool.t${i}`,
      description: `handles ${WORDS[(i + 1) % WORDS.length]} requests`,
    })),
  });
  const traces = WORDS.flatMap((w, i) =>
    FILLERS.map((f, k) => ({
      id: `e${i}-${k}`,
      intent: `${w} ${f}`,
      startedAt: new Date(NOW - (i * FILLERS.length + k + 1) * 60_000).toISOString(),
      success: true,
      steps: [{ tool: `tool.t${i}`, success: true }],
    })),
  );
  await tg.importTraces(traces);
  return tg;
}

describe("fitSearchWeights: fusion never loses to one of its own channels, content never below its floor", () => {
  // The database opens in a hook (hook timeout): a PGlite open is slow on a busy machine.
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await misleadingProject();
  });
  afterAll(async () => {
    await tg?.close();
  });

  it("on misleading descriptions and repeating requests, the candidate turns content down to the floor, no lower; it loses on unseen intents and is not accepted", async () => {
    const fit = await tg.fitSearchWeights();
    expect(fit.intents).toBe(WORDS.length * FILLERS.length);
    // One group per word: "invoice today" and "invoice quickly" share the tool (Jaccard 1/3 ≥ 0.25).
    expect(fit.groups).toBe(WORDS.length);
    expect(fit.channels).toBeDefined();
    // The fitted objective is the best of every evaluated point, each channel alone among them.
    expect(fit.map!).toBeGreaterThanOrEqual(fit.channels!.memory);
    expect(fit.map!).toBeGreaterThanOrEqual(fit.channels!.content);
    expect(fit.map!).toBeGreaterThanOrEqual(fit.channels!.graph);
    expect(fit.candidate!.contentWeight).toBe(0.5);
    // The memory-only candidate wins on repeated requests but answers a request never seen before worse than
    // the defaults (whose descriptions still count): a fit may not make a new request's answer worse.
    expect(fit.outOfSample!.fitted.repeat).toBeGreaterThan(fit.outOfSample!.default.repeat);
    expect(fit.outOfSample!.fitted.unseen).toBeLessThan(fit.outOfSample!.default.unseen);
    // (Here its overall gain also falls short of the margin; either rule keeps the defaults.)
    expect(fit.accepted).toBe(false);
    expect(fit.reason).toMatch(/is below the margin 0\.02|lose 0\.\d+ mAP@10 on unseen intents/);
    // 12 groups: too narrow a history to fit the guard; it stays at the project's prior (guard-prior.ts), the
    // full guard here: the other requests' memory (0 mAP@10 on a request unseen) is worse than the descriptions.
    expect(fit.candidate!.historyGuard).toBe(1);
    expect(fit.guardCurve).toEqual([]);
    expect(fit.reason).toMatch(
      /history guard left at its prior 1\.00 \(12 groups sampled: memory 0\.000 vs content 0\.\d+ mAP@10 on unseen intents\): 12 intent groups, fewer than 100 to fit it/,
    );
    // The search job answers with the defaults: the tool whose description is the best match (tool.t2,
    // "handles recipe requests") in the top 3.
    const r = await tg.search({ intent: `${WORDS[3]} at once`, limit: 3 });
    expect(r.weights).toEqual({ beta: 0.5, memoryWeight: 0.8, contentWeight: 1, graphWeight: 1, historyGuard: 1 });
    expect(r.results.map((x) => x.tool)).toContain("tool.t2");
  });

  it("the cases sampled do not depend on the order the history was stored in", async () => {
    // The same executions with their start times reversed, in a second project of the same database.
    const traces = WORDS.flatMap((w, i) =>
      FILLERS.map((f, k) => ({
        id: `e${i}-${k}`,
        intent: `${w} ${f}`,
        startedAt: new Date(NOW - (WORDS.length * FILLERS.length - (i * FILLERS.length + k)) * 60_000).toISOString(),
        success: true,
        steps: [{ tool: `tool.t${i}`, success: true }],
      })),
    );
    await tg.importCatalog(
      {
        tools: WORDS.map((_, i) => ({
          id: `tool.t${i}`,
          description: `handles ${WORDS[(i + 1) % WORDS.length]} requests`,
        })),
      },
      { project: "fusion-reversed" },
    );
    await tg.importTraces(traces, { project: "fusion-reversed" });
    const a = await tg.fitSearchWeights({ dryRun: true, maxIntents: 20 });
    const b = await tg.fitSearchWeights({ dryRun: true, maxIntents: 20, project: "fusion-reversed" });
    expect(a.intents).toBe(20);
    expect(b.candidate).toEqual(a.candidate);
    expect(b.outOfSample).toEqual(a.outOfSample);
  });
});

describe("heldOutSignals (the leave-one-out fit scores a past execution without its own history)", () => {
  const snap = {
    n: 3,
    index: new Map([
      ["a", 0],
      ["b", 1],
      ["c", 2],
    ]),
    executions: new Uint32Array([1, 3, 0]),
    successes: new Uint32Array([1, 2, 0]),
  };

  it("removes the execution's steps from the executions and its successful steps from the usage", () => {
    const held = heldOutSignals(
      snap,
      [1, 0.5, 0.2],
      [
        { tool: "a", success: true },
        { tool: "b", success: false },
        { tool: "unknown", success: true },
      ],
      2,
    );
    // a ran only in the held-out execution: 0 executions left, so α's cold start treats it as never run.
    expect([...held.executions]).toEqual([0, 2, 0]);
    // global = 0.5·pagerank + 0.5·ln(1 + successes)/ln(1 + 2): a 0.5 + 0; b 0.25 + 0.5 (its step failed: 2 successes
    // kept); c 0.1 + 0.
    expect(held.global[0]).toBeCloseTo(0.5, 12);
    expect(held.global[1]).toBeCloseTo(0.75, 12);
    expect(held.global[2]).toBeCloseTo(0.1, 12);
    // The snapshot's own counts are untouched.
    expect([...snap.executions]).toEqual([1, 3, 0]);
    expect([...snap.successes]).toEqual([1, 2, 0]);
  });

  it("property: each tool loses exactly its own steps (never below 0), and the signal never rises", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ e: fc.nat(6), s: fc.nat(6), pr: fc.double({ min: 0, max: 1, noNaN: true }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.array(fc.record({ k: fc.nat(7), success: fc.boolean() }), { maxLength: 10 }),
        (tools, steps) => {
          const n = tools.length;
          const s = {
            n,
            index: new Map(tools.map((_, i) => [`t${i}`, i])),
            executions: Uint32Array.from(tools.map((t) => t.e)),
            successes: Uint32Array.from(tools.map((t) => Math.min(t.s, t.e))),
          };
          const maxSucc = Math.max(...s.successes);
          const pr = tools.map((t) => t.pr);
          const held = heldOutSignals(
            s,
            pr,
            steps.map((st) => ({ tool: `t${st.k}`, success: st.success })),
            maxSucc,
          );
          const full = globalSignal(pr, s.successes, n, maxSucc);
          for (let i = 0; i < n; i++) {
            const own = steps.filter((st) => st.k === i).length;
            expect(held.executions[i]).toBe(Math.max(0, s.executions[i]! - own));
            expect(held.global[i]!).toBeLessThanOrEqual(full[i]! + 1e-15);
          }
        },
      ),
    );
  });

  describe("on a project whose one execution is held out", () => {
    // The database opens in a hook (hook timeout): a PGlite open is slow on a busy machine.
    let held: Toolgraph;
    beforeAll(async () => {
      held = await openToolgraph({
        ...(await pgliteBackend().options()),
        project: "held",
        embeddings: "hash:128",
        now: () => NOW,
      });
      await held.importCatalog({
        tools: [
          { id: "invoice.fetch", description: "fetch invoice records and entries" },
          { id: "invoice.format", description: "format invoice records and entries" },
        ],
      });
      await held.importTraces([
        {
          id: "e1",
          intent: "invoice please",
          startedAt: new Date(NOW - 60_000).toISOString(),
          success: true,
          steps: [
            { tool: "invoice.fetch", success: true },
            { tool: "invoice.format", success: true },
          ],
        },
      ]);
    });
    afterAll(async () => {
      await held?.close();
    });

    it("a tool whose executions are held out gets the cold-start α of a tool never run (α = 1, final = semantic)", async () => {
      const e = engineOf(held);
      const [s, a, idx] = [await e.snapshot("held"), await e.analytics("held"), await e.searchIndex("held")];
      const [v] = await e.queryEmbedder.embed(["invoice please"]);
      const opts = { beta: 0.5, memoryWeight: 0, graphWeight: 1 };
      const fetch = s.index.get("invoice.fetch")!;
      const withHistory = searchCandidates(s, a, idx, "invoice please", v!, opts).find((h) => h.index === fetch)!;
      const signals = heldOutSignals(
        s,
        a.analytics.pagerank,
        [
          { tool: "invoice.fetch", success: true },
          { tool: "invoice.format", success: true },
        ],
        1,
      );
      const without = searchCandidates(s, a, idx, "invoice please", v!, {
        ...opts,
        global: signals.global,
        executions: signals.executions,
      }).find((h) => h.index === fetch)!;
      // One execution: the cold start shrinks the coherence estimate halfway to 1, α = (1·α_est + 1)/2 < 1
      // (the two descriptions share most words, so the graph neighbour is also a semantic one).
      expect(withHistory.alpha).toBeLessThan(1);
      expect(withHistory.final).toBeGreaterThan(withHistory.semantic);
      // Held out: 0 executions, α = 1 exactly, and the graph adds nothing.
      expect(signals.executions[fetch]).toBe(0);
      expect(without.alpha).toBe(1);
      expect(without.alphaRegime).toBe("cold-start");
      expect(without.final).toBe(without.semantic);
    });
  });
});
