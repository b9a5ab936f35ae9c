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

/** `n` two-step runs from `from`: a → b, every third a → c; every fifth has an intent. */
function runs(from: number, n: number) {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      id: `run-${i}`,
      startedAt: new Date(T0 + i * 60_000).toISOString(),
      success: true,
      ...(i % 5 === 0 ? { intent: i % 3 === 0 ? "start then go right" : "start then go left" } : {}),
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

  it("weights the caller pinned are never refitted", async () => {
    await tg.setSearchWeights({ beta: 0.3 });
    const pinnedAt = heard.length;
    await tg.importTraces(runs(240, 240)); // 960 steps: doubled since any fit
    await tg.search({ intent: "start then go left" });
    await tg.settle();
    expect([...engineOf(tg).startedJobs].filter((k) => k.startsWith("fit-search-weights@"))).toEqual([]);
    expect(heard.slice(pinnedAt).filter((r) => r.kind === "search-weights")).toEqual([]);
    const cfg = await (await engineOf(tg).view("refit")).config();
    expect((cfg.searchWeights as { beta: number }).beta).toBe(0.3);
  });
});
