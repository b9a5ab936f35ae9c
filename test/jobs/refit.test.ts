/**
 * Refits as the history grows (src/jobs/refit.ts): a stored fit is fitted again in the background once the
 * recorded steps have doubled since it ran, once per doubling, and never over weights the caller pinned.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FitRecord } from "../../src/jobs/learning-log.ts";
import { recordedSteps } from "../../src/jobs/refit.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { pgliteBackend } from "../helpers/backends.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const tools = ["a.start", "b.left", "c.right"].map((id) => ({ id, description: `tool ${id}` }));

/** Requests far enough apart to be groups of their own (the search-weight fit validates across groups). */
const INTENTS = [
  "start then go right",
  "begin the left branch",
  "open the widget",
  "archive yesterday's invoices",
  "translate the paragraph",
  "measure disk usage",
  "rotate the access keys",
];

/** `n` two-step runs from `from`: a → b, every third a → c; every fifth has an intent. */
function runs(from: number, n: number) {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      id: `run-${i}`,
      startedAt: new Date(T0 + i * 60_000).toISOString(),
      success: true,
      ...(i % 5 === 0 ? { intent: INTENTS[i % INTENTS.length]! } : {}),
      steps: [{ tool: "a.start" }, { tool: i % 3 === 0 ? "c.right" : "b.left" }],
    };
  });
}

/** Resolves with the first record of `kind` the engine announces, or rejects after `ms`. */
function nextRecord(heard: FitRecord[], kind: FitRecord["kind"], after: number, ms = 60_000) {
  return new Promise<FitRecord>((resolve, reject) => {
    const t0 = Date.now();
    const poll = () => {
      const r = heard.slice(after).find((x) => x.kind === kind);
      if (r) resolve(r);
      else if (Date.now() - t0 > ms) reject(new Error(`no ${kind} record within ${ms} ms`));
      else setTimeout(poll, 20);
    };
    poll();
  });
}

describe("refits as the history grows", () => {
  let tg: Toolgraph;
  const heard: FitRecord[] = [];
  beforeAll(async () => {
    tg = await openToolgraph({ ...(await pgliteBackend().options()), project: "refit", embeddings: "hash:64" });
    engineOf(tg).learningLog = (r) => heard.push(r);
    await tg.importCatalog({ tools });
    await tg.importTraces(runs(0, 120)); // 240 steps: past the 200 a first fit needs
  });
  afterAll(async () => {
    await tg?.close();
  });

  const started = () => [...engineOf(tg).startedJobs].filter((k) => k.startsWith("fit-next-step-weights@"));

  it("fits once, refits only when the recorded steps have doubled, and records the steps each fit saw", async () => {
    const view = await engineOf(tg).view("refit");
    expect(recordedSteps(view.snapshot)).toBe(240);
    await tg.suggestNext({ context: ["a.start"] });
    const first = await nextRecord(heard, "next-step-weights", 0);
    expect(first.data.steps).toBe(240);
    // 100 more runs: 440 < 2 × 240, no refit is started.
    await tg.importTraces(runs(120, 100));
    await tg.suggestNext({ context: ["a.start"] });
    expect(started()).toEqual([]);
    // 20 more: 480 = 2 × 240, one refit (log₂ 480 → generation 8), seeing every step.
    const before = heard.length;
    await tg.importTraces(runs(220, 20));
    await tg.suggestNext({ context: ["a.start"] });
    await tg.suggestNext({ context: ["b.left"] });
    expect(started()).toEqual(["fit-next-step-weights@8\u0000refit"]);
    const second = await nextRecord(heard, "next-step-weights", before);
    expect(second.data.steps).toBe(480);
    expect(heard.filter((r) => r.kind === "next-step-weights")).toHaveLength(2);
  });

  it("a background search-weight fit never turns the content channel down", async () => {
    const before = heard.length;
    await tg.search({ intent: "start then go left" });
    const fit = await nextRecord(heard, "search-weights", before);
    expect(fit.evidence.contentFloor).toBe(1);
    expect((fit.after as { contentWeight: number }).contentWeight).toBe(1);
  });

  it("weights the caller pinned are never refitted", async () => {
    await tg.setSearchWeights({ beta: 0.3 });
    const pinnedAt = heard.length;
    await tg.importTraces(runs(240, 240)); // 960 steps: doubled since any fit
    await tg.search({ intent: "start then go left" });
    await tg.settle();
    // 960 recorded steps: generation log₂ 960 → 9; no search fit of that generation is started.
    expect([...engineOf(tg).startedJobs].filter((k) => k.startsWith("fit-search-weights@9"))).toEqual([]);
    expect(heard.slice(pinnedAt).filter((r) => r.kind === "search-weights")).toEqual([]);
    const cfg = await (await engineOf(tg).view("refit")).config();
    expect((cfg.searchWeights as { beta: number }).beta).toBe(0.3);
  });
});

describe("a search-weight fit on one group of requests", () => {
  it("keeps the defaults with the reason instead of failing (it would fail on every request that starts it)", async () => {
    const tg = await openToolgraph({
      ...(await pgliteBackend().options()),
      project: "one-group",
      embeddings: "hash:64",
    });
    try {
      await tg.importCatalog({ tools });
      await tg.importTraces(runs(0, 200).map((r) => ({ ...r, intent: "start then go right" })));
      const fit = await tg.fitSearchWeights();
      expect(fit.accepted).toBe(false);
      expect(fit.reason).toBe("only 1 group of near-duplicate past requests: a fit needs two to validate on");
    } finally {
      await tg.close();
    }
  });
});
