/**
 * Learning that never makes it worse, end to end through `openToolgraph` on the demo project (the default
 * embeddings, as `toolgraph demo` and `toolgraph serve` run it): a search-weight fit — by `learn-weights` or in
 * the background — keeps descriptions in the score, is stored with the evidence that decided it, and weights
 * stored by an earlier version that switched descriptions off are raised to the floor when read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_NOW } from "../../src/cli/commands/demo.ts";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import type { FitRecord } from "../../src/jobs/learning-log.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { projectConfig, setProjectConfig } from "../../src/store/projects.ts";
import { pgliteBackend } from "../helpers/backends.ts";

const rankOf = async (tg: Toolgraph, intent: string, tool: string) => {
  const r = await tg.search({ intent, limit: 41 });
  return { rank: r.results.findIndex((x) => x.tool === tool) + 1, results: r.results };
};

describe("search-weight fit on the demo project", () => {
  let tg: Toolgraph;
  const refits: FitRecord[] = [];
  beforeAll(async () => {
    tg = await openToolgraph({
      ...(await pgliteBackend().options()),
      project: "demo",
      embeddings: "use-lite",
      now: () => DEMO_NOW,
    });
    engineOf(tg).learningLog = (r) => refits.push(r);
    await tg.importCatalog(demoCatalog());
    await tg.importTraces(demoTraces(600, 42, DEMO_NOW));
  }, 240_000);
  afterAll(async () => {
    await tg?.close();
  });

  it("after the fit, 'delete an old file from the workspace' ranks fs.delete_file in the top 3 and the content weight stays ≥ 0.5", async () => {
    const fit = await tg.fitSearchWeights();
    expect(fit.contentWeight).toBeGreaterThanOrEqual(0.5);
    expect(fit.groups).toBeGreaterThanOrEqual(10);
    const del = await rankOf(tg, "delete an old file from the workspace", "fs.delete_file");
    expect(del.rank).toBeGreaterThanOrEqual(1);
    expect(del.rank).toBeLessThanOrEqual(3);
    expect(del.results[del.rank - 1]!.score).toBeGreaterThan(0.4);
    const desc = await rankOf(tg, "describe the columns of the users table", "db.describe_table");
    expect(desc.rank).toBe(1);
    // The refit is logged with before → after, the evidence and the data it saw, and stored for `stats`.
    expect(refits).toHaveLength(1);
    expect(refits[0]).toMatchObject({
      kind: "search-weights",
      project: "demo",
      accepted: fit.accepted,
      after: fit.accepted ? fit.candidate : { beta: 0.5, memoryWeight: 0.8, contentWeight: 1, graphWeight: 1 },
    });
    expect(refits[0]!.data).toMatchObject({ executions: expect.any(Number), groups: expect.any(Number) });
    expect(refits[0]!.evidence).toMatchObject({
      margin: 0.02,
      minGroups: 10,
      default: expect.any(Object),
      fitted: expect.any(Object),
    });
    const stats = await tg.stats();
    expect(stats.learning.searchWeights.inForce.contentWeight).toBe(fit.contentWeight);
    expect(stats.learning.searchWeights.fit?.fittedAt).toBe(new Date(DEMO_NOW).toISOString());
  }, 240_000);

  it("weights stored by an earlier fit with content 0 are raised to the floor; the description is found again", async () => {
    // What the background fit stored (and what survived restarts and a rerun of `demo`).
    const cfg = await projectConfig(engineOf(tg).db, "demo");
    await setProjectConfig(engineOf(tg).db, "demo", {
      ...cfg,
      searchWeights: { beta: 0.7, memoryWeight: 1, contentWeight: 0, graphWeight: 1 },
    });
    engineOf(tg).projectConfigs.delete("demo");
    tg.results.clear();
    const del = await rankOf(tg, "delete an old file from the workspace", "fs.delete_file");
    expect(del.rank).toBeLessThanOrEqual(3);
    expect(del.rank).toBeGreaterThanOrEqual(1);
    expect(del.results[del.rank - 1]!.explanation).toContain("× weight 0.5");
    const desc = await rankOf(tg, "describe the columns of the users table", "db.describe_table");
    expect(desc.rank).toBeLessThanOrEqual(3);
    expect(desc.rank).toBeGreaterThanOrEqual(1);
  }, 240_000);
});
