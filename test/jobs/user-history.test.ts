/**
 * The user-history step of recorded executions, on both backends: `updatedUserHistories` by hand, and
 * `recordExecution` through the library door — the history and the graph version move exactly once
 * per execution inserted (in the record's own transaction), never on a re-record or a rejected one,
 * and the in-memory snapshot is patched to the new version rather than rebuilt.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyUserHistory, updateUserHistory } from "../../algorithms/thresholds/user-history.ts";
import { ImportError } from "../../src/formats/parse.ts";
import { validateExecution } from "../../src/jobs/import.ts";
import { updatedUserHistories, updatedUserHistoriesSteps } from "../../src/jobs/user-history.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { backends, freshProject } from "../helpers/backends.ts";

const tools = ["a", "b", "c"].map((id) => ({ id, description: `tool ${id}` }));

for (const backend of backends()) {
  describe(`user history of recorded executions on ${backend.name}`, () => {
    let tg: Toolgraph;
    const project = freshProject("uh");
    beforeAll(async () => {
      tg = await openToolgraph({ ...(await backend.options()), project, embeddings: "hash:64" });
      await tg.importCatalog({ tools }, { embed: false });
    });
    afterAll(async () => {
      await tg?.close();
      await backend.dispose();
    });

    it("updatedUserHistories folds each user's executions in start order (hand-checked)", () => {
      const late = validateExecution({
        id: "x2",
        user: "ana",
        startedAt: "2026-01-01T11:00:00Z",
        success: false,
        steps: [{ tool: "a" }, { tool: "b", success: false, durationMs: 30 }],
      });
      const early = validateExecution({
        id: "x1",
        user: "ana",
        startedAt: "2026-01-01T10:00:00Z",
        success: true,
        steps: [{ tool: "a", durationMs: 20 }],
      });
      const anonymous = validateExecution({
        id: "x3",
        startedAt: "2026-01-01T12:00:00Z",
        success: true,
        steps: [{ tool: "c" }],
      });
      const stored = new Map([
        [
          "ana",
          {
            ...emptyUserHistory(),
            taskCount: 5,
            successCount: 5,
            recent: [true, true, true, true, true],
            lastTaskAt: 0,
          },
        ],
      ]);
      const out = updatedUserHistories(engineOf(tg).gatekeeper, stored, [late, anonymous, early]);
      expect(out.map(([u]) => u)).toEqual(["ana"]);
      const h = out[0]![1];
      expect([h.taskCount, h.successCount, h.errorCount]).toEqual([7, 6, 1]);
      expect(h.recent).toEqual([true, true, true, true, true, true, false]); // x1 before x2
      expect(h.lastTaskAt).toBe(Date.parse("2026-01-01T11:00:00Z") + 30); // start + step durations
      expect(h.lastError).toBe("step b failed");
      expect(stored.get("ana")!.taskCount).toBe(5); // input untouched
    });

    it("updatedUserHistoriesSteps pauses every 250 executions and folds as a hand fold of updateUserHistory", () => {
      const executions = Array.from({ length: 600 }, (_, i) =>
        validateExecution({
          id: `s${i}`,
          user: `u${i % 3}`,
          startedAt: new Date(Date.UTC(2026, 0, 1) + (599 - i) * 60_000).toISOString(),
          success: i % 4 !== 0,
          steps: [
            { tool: "a", durationMs: i % 7 },
            { tool: "b", success: i % 4 !== 0 },
          ],
        }),
      );
      const steps = updatedUserHistoriesSteps(engineOf(tg).gatekeeper, new Map(), executions);
      let yields = 0;
      let r = steps.next();
      while (!r.done) {
        yields++;
        r = steps.next();
      }
      expect(yields).toBe(2);
      expect(r.value).toEqual(updatedUserHistories(engineOf(tg).gatekeeper, new Map(), executions));
      for (const [user, h] of r.value) {
        const mine = executions
          .filter((e) => e.user === user)
          .sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
        const byHand = mine.reduce(
          (acc, e) =>
            updateUserHistory(acc, {
              success: e.success,
              at: e.startedAt.getTime() + (e.steps[0]!.durationMs ?? 0),
              domain: undefined,
              operationType: undefined,
              errorMessage: e.success ? undefined : "step b failed",
            }),
          emptyUserHistory(),
        );
        expect(h).toEqual(byHand);
      }
    });

    it("recordExecution: history and graph version once per execution inserted, none on a re-record or a rejected one", async () => {
      const stats0 = await tg.stats();
      const snapshot0 = await engineOf(tg).snapshot(project);
      const e = {
        id: "r1",
        user: "bo",
        intent: "ship the fix",
        startedAt: "2026-02-01T09:00:00Z",
        success: true,
        steps: [{ tool: "a" }, { tool: "b" }],
      };
      const r = await tg.recordExecution(e);
      expect(r).toMatchObject({
        inserted: 1,
        skippedExisting: 0,
        steps: 2,
        edgesTouched: 1,
        graphVersion: stats0.graphVersion + 1,
      });
      const h1 = await engineOf(tg).gatekeeper.userStore.load(project, "bo");
      expect([h1?.taskCount, h1?.successCount, h1?.recent]).toEqual([1, 1, [true]]);
      // patched in place: the cached snapshot object moved to the new version
      const snapshot1 = await engineOf(tg).snapshot(project);
      expect(snapshot1).toBe(snapshot0);
      expect(snapshot1.version).toBe(stats0.graphVersion + 1);

      const again = await tg.recordExecution({ ...e, success: false });
      expect(again).toMatchObject({ inserted: 0, skippedExisting: 1, graphVersion: stats0.graphVersion + 1 });
      const bad = await tg
        .recordExecution({ ...e, id: "r2", steps: [{ tool: "a" }, { tool: "ghost" }] })
        .catch((x: unknown) => x);
      expect(bad).toBeInstanceOf(ImportError);
      expect((bad as ImportError).errors[0]).toMatchObject({
        field: "steps[1].tool",
        message: expect.stringContaining('"ghost"'),
      });
      expect(await engineOf(tg).gatekeeper.userStore.load(project, "bo")).toEqual(h1);
      expect((await tg.stats()).graphVersion).toBe(stats0.graphVersion + 1);

      await tg.recordExecution({ ...e, id: "r3", success: false, steps: [{ tool: "c", success: false }] });
      const h3 = await engineOf(tg).gatekeeper.userStore.load(project, "bo");
      expect([h3?.taskCount, h3?.errorCount, h3?.recent, h3?.lastError]).toEqual([
        2,
        1,
        [true, false],
        "step c failed",
      ]);
      const stats3 = await tg.stats();
      expect([stats3.graphVersion, stats3.executions, stats3.users]).toEqual([
        stats0.graphVersion + 2,
        stats0.executions + 2,
        stats0.users + 1,
      ]);
    });
  });
}
