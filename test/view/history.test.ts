import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { loadExecutionHistory, loadExecutionSequences } from "../../src/store/reads.ts";
import {
  appendToHistory,
  executionHistory,
  intentsOf,
  intentsOfSteps,
  memoryRowsOf,
  recentSequences,
} from "../../src/view/history.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");

/** Execution i: tools t(i mod 3) → t((i+1) mod 3); executions 2k and 2k+1 start at the same time (ties by id). */
function execution(i: number, id = `e${String(i).padStart(3, "0")}`) {
  const at = new Date(T0 + Math.floor(i / 2) * 60_000).toISOString();
  return {
    id,
    intent: i % 4 === 3 ? undefined : `intent ${i % 5}`,
    startedAt: at,
    success: i % 7 !== 0,
    steps: [
      { tool: `t${i % 3}`, success: true, at },
      { tool: `t${(i + 1) % 3}`, success: i % 7 !== 0, at, dependsOn: [0] },
    ],
  };
}

const catalog = { tools: [0, 1, 2].map((k) => ({ id: `t${k}`, name: `tool ${k}`, description: `does thing ${k}` })) };

describe("execution history, read once per version", () => {
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({
      home: "memory://",
      project: "h",
      embeddings: "hash:32",
      recommendationLog: { enabled: false },
    });
    await tg.importCatalog(catalog);
    await tg.importTraces(Array.from({ length: 40 }, (_, i) => execution(i)));
  });
  afterAll(() => tg.close());

  it("lists what the store's queries list: the memory's rows and the most recent sequences, ties included", async () => {
    const rows = await executionHistory(engineOf(tg), "h");
    expect(rows.map((r) => r.id)).toEqual((await loadExecutionHistory(engineOf(tg).db, "h")).map((r) => r.id));
    for (const limit of [1, 2, 3, 7, 40, 100]) {
      const want = await loadExecutionSequences(engineOf(tg).db, "h", limit);
      expect(
        recentSequences(rows, limit).map((r) => ({
          id: r.id,
          success: r.success,
          startedAt: r.startedAt,
          steps: r.steps,
        })),
      ).toEqual(want);
    }
    // Hand-checked: 40 executions, every 4th (i ≡ 3 mod 4) without an intent → 30 with one.
    expect(memoryRowsOf(rows)).toHaveLength(30);
    expect(intentsOf(rows).get("e005")).toBe("intent 0");
    // Same start, ties: the store lists e038 and e039 (one minute) by id descending at the end of a cut of 2.
    expect(recentSequences(rows, 2).map((r) => r.id)).toEqual(["e039", "e038"]);
  });

  it("an import by this engine extends the history by the new executions only, equal to a full read", async () => {
    const before = await executionHistory(engineOf(tg), "h");
    await tg.importTraces(Array.from({ length: 10 }, (_, k) => execution(40 + k)));
    const after = await executionHistory(engineOf(tg), "h");
    expect(after).not.toBe(before);
    expect(before).toHaveLength(40);
    expect(after).toEqual(await loadExecutionHistory(engineOf(tg).db, "h"));
    // The held rows are kept (the same objects): only the new executions were read.
    expect(after[0]).toBe(before[0]);
    expect(after.slice(0, 40)).toEqual(before);
  });

  it("an execution that starts before the last one held makes it read the history again, in the store's order", async () => {
    // Starts at T0: before every held execution.
    await tg.importTraces([
      { ...execution(0, "a-early"), startedAt: new Date(T0 - 1000).toISOString() },
      execution(1, "a-early-2"),
    ]);
    const rows = await executionHistory(engineOf(tg), "h");
    expect(rows).toEqual(await loadExecutionHistory(engineOf(tg).db, "h"));
    expect(rows[0]!.id).toBe("a-early");
  });

  it("a version it did not see (or a gap) is read in full", async () => {
    const v = (await engineOf(tg).snapshot("h")).version;
    appendToHistory(engineOf(tg), "h", v + 5, ["nothing"]);
    expect(engineOf(tg).histories.has("h")).toBe(false);
    expect(await executionHistory(engineOf(tg), "h")).toEqual(await loadExecutionHistory(engineOf(tg).db, "h"));
  });
});

describe("a history larger than one read (10,000 step rows) and one insert (2,000 step rows)", () => {
  it("stores every step and reads them back in pages, equal to one query", async () => {
    const tg = await openToolgraph({
      home: "memory://",
      project: "big",
      embeddings: "hash:32",
      recommendationLog: { enabled: false },
    });
    try {
      await tg.importCatalog(catalog);
      // 2,101 executions × 5 steps = 10,505 step rows: six insert statements, three pages of steps.
      const many = Array.from({ length: 2101 }, (_, i) => {
        const e = execution(i);
        return {
          ...e,
          steps: [0, 1, 2, 3, 4].map((k) => ({ tool: `t${(i + k) % 3}`, success: true, at: e.startedAt })),
        };
      });
      const r = await tg.importTraces(many);
      expect(r.steps).toBe(10_505);
      expect((await tg.stats()).steps).toBe(10_505);
      const rows = await executionHistory(engineOf(tg), "big");
      const want = await loadExecutionSequences(engineOf(tg).db, "big", 5000);
      expect(rows.reduce((n, e) => n + e.steps.length, 0)).toBe(10_505);
      expect(
        recentSequences(rows, 5000).map((e) => ({
          id: e.id,
          success: e.success,
          startedAt: e.startedAt,
          steps: e.steps,
        })),
      ).toEqual(want);
    } finally {
      await tg.close();
    }
  });
});

describe("a history of 5,200 executions, read and indexed in slices", () => {
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({
      home: "memory://",
      project: "big",
      embeddings: "hash:32",
      recommendationLog: { enabled: false },
    });
    await tg.importCatalog(catalog);
    await tg.importTraces(Array.from({ length: 5200 }, (_, i) => execution(i, `x${String(i).padStart(4, "0")}`)));
  });
  afterAll(() => tg.close());

  it("lists what the sequence query lists (executions in three pages), and intentsOfSteps pauses twice", async () => {
    const rows = await loadExecutionHistory(engineOf(tg).db, "big");
    const want = await loadExecutionSequences(engineOf(tg).db, "big", 5200);
    expect(
      recentSequences(rows, 5200).map((r) => ({
        id: r.id,
        success: r.success,
        startedAt: r.startedAt,
        steps: r.steps,
      })),
    ).toEqual(want);
    const steps = intentsOfSteps(rows);
    let yields = 0;
    let r = steps.next();
    while (!r.done) {
      yields++;
      r = steps.next();
    }
    expect(yields).toBe(2);
    // Hand-checked: execution i has intent `intent ${i % 5}` unless i ≡ 3 (mod 4).
    const byHand = new Map<string, string>();
    for (let i = 0; i < 5200; i++) if (i % 4 !== 3) byHand.set(`x${String(i).padStart(4, "0")}`, `intent ${i % 5}`);
    expect(new Map([...r.value].sort())).toEqual(new Map([...byHand].sort()));
    expect(r.value).toEqual(intentsOf(rows));
  });
});
