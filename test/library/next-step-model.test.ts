/**
 * The library-only reads the accuracy harness measures the next step and the gate with (docs/decisions/layout.md):
 * `nextStepModel` (the core's read model and a mode's weights), `executionSequences` (the stored history),
 * `calibrationPairs` and `gateDecision`. None is an operation of the table, so no HTTP, MCP or CLI request reaches
 * them.
 */
import { describe, expect, it } from "vitest";
import { suggestNextSteps } from "../../algorithms/prediction/next-step.ts";
import { topNextStep } from "../../algorithms/prediction/next-step-memory.ts";
import { scoreNamespaces, selectNamespaces } from "../../algorithms/search/namespace-routing.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { OPERATIONS } from "../../src/contract/operations.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const T0 = Date.UTC(2026, 0, 1);

async function open(): Promise<Toolgraph> {
  const tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: "next",
    embeddings: "hash:256",
    now: () => Date.UTC(2026, 0, 2),
    recommendationLog: { enabled: false },
  });
  await tg.importCatalog({
    tools: [
      { id: "a.read", description: "reads a file" },
      { id: "b.edit", description: "edits a file" },
      { id: "c.test", description: "runs the tests" },
      { id: "d.mail", description: "sends an email" },
    ],
  });
  // a → b three times, a → d once; b → c twice. Executions e0..e4, one minute apart.
  const runs = [
    ["a.read", "b.edit", "c.test"],
    ["a.read", "b.edit", "c.test"],
    ["a.read", "b.edit"],
    ["a.read", "d.mail"],
  ];
  await tg.importTraces(
    runs.map((steps, i) => ({
      id: `e${i}`,
      intent: "fix the failing test",
      startedAt: new Date(T0 + i * 60_000).toISOString(),
      success: true,
      steps: steps.map((tool) => ({ tool })),
    })),
  );
  await tg.settle();
  return tg;
}

describe("nextStepModel", () => {
  it("ranks with the core as the suggestNext job does, with the mode's weights", async () => {
    const tg = await open();
    try {
      const m = await tg.nextStepModel();
      expect([...m.tools].sort()).toEqual(["a.read", "b.edit", "c.test", "d.mail"]);
      for (const [id, i] of m.index) expect(m.tools[i]).toBe(id);
      // Recorded steps per tool: a.read 4, b.edit 3, c.test 2, d.mail 1.
      expect(m.tools.map((t, i) => [t, m.executions[i]])).toEqual(
        expect.arrayContaining([
          ["a.read", 4],
          ["b.edit", 3],
          ["c.test", 2],
          ["d.mail", 1],
        ]),
      );
      const now = Date.UTC(2026, 0, 2);
      const core = suggestNextSteps(m.model, { context: [m.index.get("a.read")!], now }, { weights: m.weights });
      const job = await tg.suggestNext({ context: ["a.read"] });
      expect(core.suggestions.map((x) => m.tools[x.tool])).toEqual(job.suggestions.map((x) => x.tool));
      expect(core.suggestions.map((x) => x.confidence)).toEqual(job.suggestions.map((x) => x.confidence));
      // b.edit followed a.read 3 times out of 4: the top without the memory, as the gate's pairs take it.
      // The core with its items: the job's tools and explanations (no intent, so no memory vote).
      const items = m.suggest(["a.read"], now).suggestions;
      expect(items.map((x) => [x.tool, x.explanation])).toEqual(job.suggestions.map((x) => [x.tool, x.explanation]));
      expect(() => m.suggest(["x.unknown"], now)).toThrow(/unknown tool/);
      const top = topNextStep({ ids: m.tools, index: m.index }, m.model, ["a.read"], now, m.weights);
      expect(top).toEqual({ tool: "b.edit", confidence: core.suggestions[0]!.confidence });
      expect(topNextStep({ ids: m.tools, index: m.index }, m.model, ["x.unknown"], now, m.weights)).toBeUndefined();
      expect((await tg.nextStepModel({ mode: "markov" })).weights).toEqual({
        cooc: 1,
        community: 0,
        recency: 0,
        pagerank: 0,
      });
      await expect(tg.nextStepModel({ mode: "best" as "auto" })).rejects.toThrow(/mode must be one of/);
    } finally {
      await tg.close();
    }
  });

  it("gives the training examples of the stored sequences, oldest first", async () => {
    const tg = await open();
    try {
      const all = await tg.executionSequences({ limit: 100 });
      expect(all.map((e) => e.id)).toEqual(["e0", "e1", "e2", "e3"]);
      expect(all[0]!.steps.map((s) => s.tool)).toEqual(["a.read", "b.edit", "c.test"]);
      expect((await tg.executionSequences({ limit: 2 })).map((e) => e.id)).toEqual(["e2", "e3"]);
      await expect(tg.executionSequences({ limit: 0 })).rejects.toThrow(/limit must be a positive integer/);
      // One example per prefix whose true next tool has negatives: e0, e1 two each, e2 and e3 one each.
      const m = await tg.nextStepModel();
      const ex = m.trainingExamples(all);
      expect(ex.length).toBeLessThanOrEqual(6);
      expect(ex.length).toBeGreaterThan(0);
      for (const x of ex) expect(x.negatives.length).toBeGreaterThan(0);
    } finally {
      await tg.close();
    }
  });
});

describe("memoryStats and memoryNeighbours", () => {
  it("counts the memory and finds the one intent by its own vector, exactly and by the semantic channel", async () => {
    const tg = await open();
    try {
      const s = await tg.memoryStats();
      expect([s.executions, s.distinctIntents, s.dims]).toEqual([4, 1, 256]);
      expect(s.typedArrayBytes).toBeGreaterThan(0);
      const [q] = await (await tg.searchModel()).embed(["fix the failing test"]);
      for (const exact of [true, false]) {
        const [hits] = await tg.memoryNeighbours([q!], { k: 5, exact });
        expect(hits!.map((h) => h.text)).toEqual(["fix the failing test"]);
        expect(hits![0]!.similarity).toBeCloseTo(1, 1);
      }
      // The search's recall step as the core takes it: votes keyed by tool index, the used tools among them.
      const m = await tg.searchModel();
      const r = await m.recall("fix the failing test", q!);
      expect(r.toolVotes?.get(m.tools.indexOf("a.read"))).toBeGreaterThan(0);
      expect(r.toolVotes?.has(m.tools.indexOf("d.mail"))).toBe(true);
      await expect(tg.memoryNeighbours([q!], { k: 0 })).rejects.toThrow(/k must be a positive integer/);
      await expect(tg.memoryNeighbours([new Float32Array(3)], { k: 1 })).rejects.toThrow(/vectors\[0\]/);
    } finally {
      await tg.close();
    }
  });
});

describe("dagModel", () => {
  it("builds the DAG as the buildDag job's core: a.read before b.edit before c.test", async () => {
    const tg = await open();
    try {
      const d = await tg.dagModel();
      const sel = ["c.test", "a.read", "b.edit"].map((t) => d.index.get(t)!);
      const dag = d.dag(sel);
      const edges = dag.edges.map((e) => `${d.tools[e.from]} → ${d.tools[e.to]}`).sort();
      const job = await tg.buildDag({ tools: ["c.test", "a.read", "b.edit"] });
      expect(edges).toEqual(job.edges.map((e) => `${e.from} → ${e.to}`).sort());
      expect(edges).toEqual(["a.read → b.edit", "b.edit → c.test"]);
      expect(() => d.dag([99])).toThrow(/selected\[0\] must be a tool index below 4/);
    } finally {
      await tg.close();
    }
  });
});

describe("routingModel", () => {
  it("routes with the core as the search's first hop on the catalog's namespaces", async () => {
    const tg = await open();
    try {
      const rm = await tg.routingModel();
      const m = await tg.searchModel();
      // No server fields: the id prefixes a, b, c, d are the namespaces, one tool each.
      expect([...rm.namespaces.groups.names].sort()).toEqual(["a", "b", "c", "d"]);
      expect(rm.successes[m.tools.indexOf("a.read")]).toBe(4);
      expect(rm.decision).toBeUndefined();
      expect(rm.defaults.trialQueries).toBeGreaterThan(0);
      const [v] = await m.embed(["run the tests"]);
      const input = { tokens: tokenize("run the tests"), vector: v!, toolVotes: undefined, successes: rm.successes };
      const opts = { minNamespaces: 1, minTools: 1 };
      const picked = selectNamespaces(rm.namespaces.groups, scoreNamespaces(rm.namespaces, input, {}).score, opts);
      expect(Array.from(picked.tools, (t) => m.tools[t])).toContain("c.test");
    } finally {
      await tg.close();
    }
  });
});

describe("gateDecision and calibrationPairs", () => {
  it("gates a raw score without a calibration as the score itself", async () => {
    const tg = await open();
    try {
      const high = await tg.gateDecision("next-step", 0.95, { text: "" });
      expect(high.decision).toBe("accepted");
      expect(high.score).toBe(0.95);
      const low = await tg.gateDecision("next-step", 0.01, { text: "" });
      expect(low.decision).toBe("abstained");
      expect(low.gap).toBeCloseTo(low.threshold - 0.01, 12);
      await expect(tg.gateDecision("next-step", Number.NaN, { text: "" })).rejects.toThrow(/score must be a finite/);
    } finally {
      await tg.close();
    }
  });

  it("answers the calibration's out-of-sample pairs and checks its options", async () => {
    const tg = await open();
    try {
      const p = await tg.calibrationPairs({ split: "cross-fit" });
      expect(p.executionsScored).toBeLessThanOrEqual(4);
      for (const x of [...p.nextStep, ...p.search]) {
        expect(x.score).toBeGreaterThanOrEqual(0);
        expect(typeof x.ok).toBe("boolean");
      }
      await expect(tg.calibrationPairs({ split: "random" as "time" })).rejects.toThrow(/split must be/);
    } finally {
      await tg.close();
    }
  });

  it("none is an operation of the table (no door serves them)", () => {
    const names = Object.values(OPERATIONS).map((o) => o.name as string);
    const reads = ["nextStepModel", "executionSequences", "calibrationPairs", "gateDecision"];
    for (const n of [...reads, "memoryStats", "memoryNeighbours", "routingModel", "dagModel"])
      expect(names).not.toContain(n);
  });
});
