/** Refit records: stored per kind and in the log, announced, and two fits finishing together both kept. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FitRecord, LEARNING_LOG_DEFAULTS, storedFits, storeFit } from "../../src/jobs/learning-log.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { projectConfig } from "../../src/store/projects.ts";
import { pgliteBackend } from "../helpers/backends.ts";

const record = (kind: FitRecord["kind"], i: number): FitRecord => ({
  kind,
  project: "log",
  fittedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
  accepted: i % 2 === 0,
  reason: `fit ${i}`,
  before: {},
  after: { i },
  evidence: {},
  data: {},
});

describe("storeFit", () => {
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({ ...(await pgliteBackend().options()), project: "log", embeddings: "hash:16" });
  });
  afterAll(async () => {
    await tg?.close();
  });

  it("two fits stored at once keep each other's fields; every record is announced once", async () => {
    const heard: string[] = [];
    engineOf(tg).learningLog = (r) => heard.push(r.kind);
    const view = await engineOf(tg).view("log");
    await Promise.all([
      storeFit(view, record("search-weights", 0), { searchWeights: { beta: 0.1 } }),
      storeFit(view, record("next-step-weights", 1), { nextStepWeights: { cooc: 1 } }),
    ]);
    const cfg = await projectConfig(engineOf(tg).db, "log");
    expect(cfg.searchWeights).toEqual({ beta: 0.1 });
    expect(cfg.nextStepWeights).toEqual({ cooc: 1 });
    expect(Object.keys(storedFits(cfg)).sort()).toEqual(["next-step-weights", "search-weights"]);
    expect(heard).toEqual(["search-weights", "next-step-weights"]);
  });

  it("keeps the last 20 records in the log and the latest per kind", async () => {
    for (let i = 2; i < 30; i++) await storeFit(await engineOf(tg).view("log"), record("calibration", i), {});
    const cfg = await projectConfig(engineOf(tg).db, "log");
    const log = cfg.fitLog as FitRecord[];
    expect(log).toHaveLength(LEARNING_LOG_DEFAULTS.keep);
    expect(log.at(-1)!.reason).toBe("fit 29");
    expect(storedFits(cfg).calibration!.reason).toBe("fit 29");
    expect(storedFits(cfg)["search-weights"]!.reason).toBe("fit 0");
  });
});
