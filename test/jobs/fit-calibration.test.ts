/**
 * Out-of-sample calibration on both real backends: cross-fitted folds by near-duplicate group (the default:
 * the same pairs whatever order the history was collected in) and the rolling-origin time split (each
 * scored execution answered by a model fitted only on executions that started before its block).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calibrationPairs, eligibleAt } from "../../src/jobs/fit-calibration.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
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
  const steps = [
    { tool: "a" },
    { tool: "b", dependsOn: [0] },
    { tool: "c", dependsOn: [0] },
    { tool: "d", dependsOn: [1, 2] },
  ];
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
      const p = await calibrationPairs(await engineOf(tg).view(project), {
        maxExecutions: 10,
        folds: 5,
        split: "time",
      });
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
      const p = await calibrationPairs(await engineOf(tg).view(project), { maxExecutions: 4, folds: 2, split: "time" });
      // Window = runs 6–9 (blocks 6–7 and 8–9), runs 0–5 train the first block.
      expect(p.foldsScored).toBe(2);
      expect(p.executionsScored).toBe(4);
      // Run 6 and 7 trained on a → b only: wrong; runs 8, 9 trained on 6 a → b and 2 a → c: still wrong.
      expect(p.nextStep.filter((x) => x.ok)).toHaveLength(0);
    });

    it("cross-fit (default): 10 folds of one run, each answered from the other nine", async () => {
      const p = await calibrationPairs(await engineOf(tg).view(project));
      expect(p.foldsScored).toBe(10);
      expect(p.executionsScored).toBe(10);
      // Without its own run, a → b still has 5 or 6 observations against a → c's 3 or 4: the top-1 after a is
      // b for the six a → b runs (right); runs 8 and 9 have intents, whose memory votes may lift c.
      expect(p.nextStep).toHaveLength(10);
      expect(p.nextStep.filter((x) => x.ok).length).toBeGreaterThanOrEqual(6);
      expect(p.search).toHaveLength(2);
    });

    it("cross-fit pairs do not depend on the order the history was collected in", async () => {
      // The ten runs without intents, as collected (a → c last) and with their start times interleaved.
      const order = [6, 0, 7, 1, 8, 2, 9, 3, 4, 5];
      const plain = traces().map(({ intent: _intent, ...t }) => t);
      // Two projects of this file's database (two more PGlites would cost two initdbs).
      const grouped = freshProject("calib-grouped");
      const mixed = freshProject("calib-mixed");
      await tg.importCatalog({ tools }, { project: grouped });
      await tg.importTraces(plain, { project: grouped });
      await tg.importCatalog({ tools }, { project: mixed });
      await tg.importTraces(
        plain.map((t, i) => ({ ...t, startedAt: new Date(T0 + order.indexOf(i) * 60_000).toISOString() })),
        { project: mixed },
      );
      const key = (p: { nextStep: { score: number; ok: boolean }[] }) =>
        p.nextStep.map((x) => `${x.score.toFixed(12)}:${x.ok}`).sort();
      const a = await calibrationPairs(await engineOf(tg).view(grouped));
      const b = await calibrationPairs(await engineOf(tg).view(mixed));
      // Each run answered from the other nine: b after a (5–6 a → b against 3–4 a → c): 6 right, 4 wrong.
      expect(a.nextStep.filter((x) => x.ok)).toHaveLength(6);
      expect(key(b)).toEqual(key(a));
      // The time split does depend on it: grouped, the a → c blocks come last and are all wrong.
      const ta = await calibrationPairs(await engineOf(tg).view(grouped), { split: "time" });
      const tb = await calibrationPairs(await engineOf(tg).view(mixed), { split: "time" });
      expect(ta.nextStep.filter((x) => x.ok)).toHaveLength(5);
      expect(tb.nextStep.filter((x) => x.ok).length).not.toBe(5);
    });

    it("calibrateProject with too few pairs keeps the gate uncalibrated and says so", async () => {
      const reports = await tg.calibrate({ maxExecutions: 10, split: "time" });
      const next = reports.find((r) => r.kind === "next-step")!;
      // Default 10 blocks of one run: runs 1–9 scored — 9 pairs < 30: no map.
      expect(next.method).toBe(
        "rolling time split: 9 of 10 blocks scored, 9 executions; fewer than 30 pairs: uncalibrated gate",
      );
      expect(next.pairs).toBe(9);
      expect(next.blocks).toBe(0);
      expect(engineOf(tg).gatekeeper.calibration(project, "next-step")).toBeUndefined();
    });

    it("an execution that declares dependsOn is judged by its partial order", async () => {
      // Its own project of this file's database (a second PGlite would cost an initdb).
      const deps = freshProject("calib-deps");
      await tg.importCatalog({ tools }, { project: deps });
      // b and c both need only a; even runs do b first, odd runs c first.
      await tg.importTraces(
        Array.from({ length: 10 }, (_, i) => ({
          id: `dep-${i}`,
          startedAt: new Date(T0 + i * 60_000).toISOString(),
          success: true,
          steps: [
            { tool: "a.start" },
            { tool: i % 2 ? "c.right" : "b.left", dependsOn: [0] },
            { tool: i % 2 ? "b.left" : "c.right", dependsOn: [0] },
          ],
        })),
        { project: deps },
      );
      const p = await calibrationPairs(await engineOf(tg).view(deps), { maxExecutions: 10, folds: 5, split: "time" });
      // After a, either b or c is right (an exact-next judge would fail every other run).
      const afterA = p.nextStep.filter((_, k) => k % 2 === 0);
      expect(afterA).toHaveLength(8);
      expect(afterA.every((x) => x.ok)).toBe(true);
    });

    it("misuse names the option", async () => {
      await expect(calibrationPairs(await engineOf(tg).view(project), { folds: 1 })).rejects.toThrow(
        /folds must be an integer ≥ 2/,
      );
      await expect(calibrationPairs(await engineOf(tg).view(project), { maxExecutions: 0 })).rejects.toThrow(
        /maxExecutions/,
      );
      await expect(calibrationPairs(await engineOf(tg).view(project), { split: "random" as never })).rejects.toThrow(
        /split must be/,
      );
    });
  });
}

for (const backend of backends()) {
  describe(`cross-fit pairs reused by the next calibration on ${backend.name}`, () => {
    let tg: Toolgraph;
    let project: string;
    beforeAll(async () => {
      project = freshProject("calib-reuse");
      tg = await openToolgraph({ ...(await backend.options()), project, embeddings: "hash:64", now: () => NOW });
      await tg.importCatalog({ tools });
      await tg.importTraces(traces());
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("a second calibration of the same history reuses every pair; a new trace is the only one scored", async () => {
      const pairs = async (opts: { reuse?: boolean } = {}) => calibrationPairs(await engineOf(tg).view(project), opts);
      const first = await pairs();
      expect(first.executionsScored).toBe(10);
      expect(first.executionsReused).toBe(0);
      const again = await pairs();
      expect(again.executionsReused).toBe(10);
      expect(again.nextStep).toEqual(first.nextStep);
      expect(again.search).toEqual(first.search);
      // reuse: false scores every execution again, and gives the same pairs on the same history.
      const fresh = await pairs({ reuse: false });
      expect(fresh.executionsReused).toBe(0);
      expect(fresh.nextStep).toEqual(first.nextStep);
      // One more run (history 10 → 11: the ten were scored against 10 ≥ 0.8 × 11): only it is scored.
      await tg.importTraces([
        {
          id: "run-10",
          startedAt: new Date(T0 + 10 * 60_000).toISOString(),
          success: true,
          steps: [{ tool: "a.start" }, { tool: "b.left" }],
        },
      ]);
      const grown = await pairs();
      expect(grown.executionsScored).toBe(11);
      expect(grown.executionsReused).toBe(10);
      // The report says how many were reused.
      const report = await tg.calibrate();
      expect(report[0]!.method).toContain("11 executions (11 of them scored by an earlier calibration)");
    });

    it("past a quarter more history every execution is scored again", async () => {
      const more = Array.from({ length: 4 }, (_, k) => ({
        id: `run-${11 + k}`,
        startedAt: new Date(T0 + (11 + k) * 60_000).toISOString(),
        success: true,
        steps: [{ tool: "a.start" }, { tool: "c.right" }],
      }));
      await tg.importTraces(more);
      // 15 executions: the eleven were scored against 11 < 0.8 × 15 = 12.
      const p = await calibrationPairs(await engineOf(tg).view(project));
      expect(p.executionsScored).toBe(15);
      expect(p.executionsReused).toBe(0);
    });
  });
}
