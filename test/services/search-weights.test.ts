import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/api/toolgraph.ts";
import { pgliteBackend } from "../helpers/backends.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const WORDS = ["invoice", "weather", "flight", "recipe", "stock", "lyrics", "parcel", "dentist", "mortgage", "football", "museum", "printer"];
const FILLERS = ["please", "today", "quickly", "for me"];

/**
 * A catalog whose descriptions mislead (tool i is described with the words of tool i+1's requests) and whose
 * past requests repeat (each tool's requests share its word): the memory channel carries the signal, content
 * points at the wrong tool.
 */
async function misleadingProject() {
  const tg = await openToolgraph({ ...(await pgliteBackend().options()), project: "fusion", embeddings: "hash:128", now: () => NOW });
  await tg.importCatalog({ tools: WORDS.map((_, i) => ({ id: `tool.t${i}`, description: `handles ${WORDS[(i + 1) % WORDS.length]} requests` })) });
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

describe("fitSearchWeights (issue 20: fusion never loses to one of its own channels)", () => {
  // The database opens in a hook (hook timeout): a PGlite open is slow on a busy machine.
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await misleadingProject();
  });
  afterAll(async () => {
    await tg?.close();
  });

  it("on misleading descriptions and repeating requests, turns content down and matches the memory channel", async () => {
    const fit = await tg.fitSearchWeights();
    expect(fit.intents).toBe(WORDS.length * FILLERS.length);
    expect(fit.channels).toBeDefined();
    // The fitted objective is the best of every evaluated point, each channel alone among them.
    expect(fit.map!).toBeGreaterThanOrEqual(fit.channels!.memory);
    expect(fit.map!).toBeGreaterThanOrEqual(fit.channels!.content);
    expect(fit.map!).toBeGreaterThanOrEqual(fit.channels!.graph);
    expect(fit.map!).toBeGreaterThanOrEqual(Math.max(...fit.memoryCurve.map((p) => p.map)));
    // Content alone misleads; with w_c = 1 it still drags the memory's answers down.
    expect(fit.channels!.memory).toBeGreaterThan(fit.channels!.content);
    // Hand-checked on this fixture: w_c = 1 tops at mAP@10 0.5 (every μ > 0), the memory alone scores 1;
    // the fit picks the memory channel at full weight (w_c = 0, μ = 1: the final score is the vote).
    expect(Math.max(...fit.memoryCurve.map((p) => p.map))).toBe(0.5);
    expect(fit.map).toBe(1);
    expect(fit.contentWeight).toBe(0);
    expect(fit.memoryWeight).toBe(1);
    // The search job answers with the stored weights and explains the content weight.
    const r = await tg.search({ intent: `${WORDS[3]} at once`, limit: 3 });
    expect(r.results[0]!.tool).toBe("tool.t3");
    expect(r.results[0]!.explanation).toContain(`× weight ${fit.contentWeight}`);
  });
});
