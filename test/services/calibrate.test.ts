/**
 * Out-of-sample calibration (rolling-origin time split) on both real backends: each scored execution is
 * answered by a model fitted only on executions that started before its block.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/api/toolgraph.ts";
import { calibrationPairs, eligibleAt } from "../../src/services/calibrate.ts";
import { backends, freshProject } from "../helpers/backends.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const NOW = T0 + 86_400_000;
const tools = ["a.start", "b.left", "c.right"].map((id) => ({ id, description: `tool ${id}` }));

/** Ten executions a → b (0–5) then a → c (6–9), one minute apart; executions 8 and 9 have an intent. */
function traces() {
  return Array.from({ length: 10 }, (_, i) => ({
    id: `run-${i}`,
    startedAt: new Date(T0 + i * 60_000).toISOString(),
    success: true,
    ...(i >= 8 ? { intent: i === 9 ? "frobnicate the widget with d" : "run a then c" } : {}),
    steps: [{ tool: "a.start" }, { tool: i < 6 ? "b.left" : "c.right" }],
  }));
}

describe("eligibleAt (partial order of an execution with dependsOn)", () => {
  // 0: a; 1: b after a; 2: c after a; 3: d after b and c.
  const steps = [{ tool: "a" }, { tool: "b", dependsOn: [0] }, { tool: "c", dependsOn: [0] }, { tool: "d", dependsOn: [1, 2] }];
  it("hand-computed", () => {
    expect([...eligibleAt(steps, 1)]).toEqual(["b", "c"]);
    expect([...eligibleAt(steps, 2)]).toEqual(["c"]);
    expect([...eligibleAt(steps, 3)]).toEqual(["d"]);
    expect([...eligibleAt(steps, 0)]).toEqual(["a"]);
    expect(eligibleAt(steps, 4).size).toBe(0);
  });
});

for (const backend of backends()) {
  describe(`calibration pairs out of sample on ${backend.name}`, () => {
    let tg: Toolgraph;
    let project: string;
    beforeAll(async () => {
      project = freshProject("calib");
      tg = await openToolgraph({ ...(await backend.options()), project, embeddings: "hash:64", now: () => NOW });
      await tg.importCatalog({ tools });
      await tg.importTraces(traces());
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("5 blocks of 2: the first is training only; each block is predicted from the earlier ones", async () => {
      const p = await calibrationPairs(tg.engine, project, { maxExecutions: 10, folds: 5 });
      expect(p.foldsScored).toBe(4);
      expect(p.executionsScored).toBe(8);
      // Blocks 1–2 (a → b) trained on a → b: right. Blocks 3–4 (a → c) trained on 6 a → b vs ≤ 2 a → c: wrong
      // (in sample, a model that saw all ten runs would score 6 of 8 right: a → b 6 times vs a → c 4).
      expect(p.nextStep.map((x) => x.ok)).toEqual([true, true, true, true, false, false, false, false]);
      for (const x of p.nextStep) expect(x.score).toBeGreaterThanOrEqual(0);
      // Search pairs: one per scored execution with an intent (runs 8 and 9).
      expect(p.search).toHaveLength(2);
    });

    it("with older history than the window, every block is scored", async () => {
      const p = await calibrationPairs(tg.engine, project, { maxExecutions: 4, folds: 2 });
      // Window = runs 6–9 (blocks 6–7 and 8–9), runs 0–5 train the first block.
      expect(p.foldsScored).toBe(2);
      expect(p.executionsScored).toBe(4);
      // Run 6 and 7 trained on a → b only: wrong; runs 8, 9 trained on 6 a → b and 2 a → c: still wrong.
      expect(p.nextStep.filter((x) => x.ok)).toHaveLength(0);
    });

    it("calibrateProject stores the maps, loads them into the gate and reports the method", async () => {
      const reports = await tg.calibrate({ maxExecutions: 10 });
      const next = reports.find((r) => r.kind === "next-step")!;
      // Default 10 blocks of one run: runs 1–9 scored; runs 1–5 right (a → b before), runs 6–9 wrong.
      expect(next.method).toBe("rolling time split: 9 of 10 blocks scored, 9 executions");
      expect(next.pairs).toBe(9);
      const cal = tg.engine.gatekeeper.calibration(project, "next-step")!;
      expect(cal.blocks.reduce((t, b) => t + b.n, 0)).toBe(next.pairs);
      // 5 right answers in 9: no block is evidence of P ≥ 0.85 (Wilson bound, n ≤ 21).
      for (const b of cal.blocks) expect(b.p).toBeLessThan(0.85);
      expect(next.calibratedHighPrecision).toBeNull();
    });

    it("an execution that declares dependsOn is judged by its partial order", async () => {
      const other = await openToolgraph({ ...(await backend.options()), project: freshProject("calib-deps"), embeddings: "hash:64", now: () => NOW });
      try {
        await other.importCatalog({ tools });
        // b and c both need only a; even runs do b first, odd runs c first.
        await other.importTraces(
          Array.from({ length: 10 }, (_, i) => ({
            id: `dep-${i}`,
            startedAt: new Date(T0 + i * 60_000).toISOString(),
            success: true,
            steps: [{ tool: "a.start" }, { tool: i % 2 ? "c.right" : "b.left", dependsOn: [0] }, { tool: i % 2 ? "b.left" : "c.right", dependsOn: [0] }],
          })),
        );
        const p = await calibrationPairs(other.engine, other.project, { maxExecutions: 10, folds: 5 });
        // After a, either b or c is right (an exact-next judge would fail every other run).
        const afterA = p.nextStep.filter((_, k) => k % 2 === 0);
        expect(afterA).toHaveLength(8);
        expect(afterA.every((x) => x.ok)).toBe(true);
      } finally {
        await other.close();
      }
    });

    it("misuse names the option", async () => {
      await expect(calibrationPairs(tg.engine, project, { folds: 1 })).rejects.toThrow(/folds must be an integer ≥ 2/);
      await expect(calibrationPairs(tg.engine, project, { maxExecutions: 0 })).rejects.toThrow(/maxExecutions/);
    });
  });
}
