/**
 * The synchronous fast paths the jobs take before awaiting (fewer awaits per request): each answers
 * exactly what its awaited form answers while its cache is fresh, and undefined otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULTS as NEXT_DEFAULTS } from "../../algorithms/prediction/next-step.ts";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { MARKOV_WEIGHTS, weightsFor, weightsNow } from "../../src/jobs/next.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { cachedProjectConfigNow, fallbacksOf, projectFallbacks } from "../../src/view/filters.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
let t = NOW;
let tg: Toolgraph;

beforeAll(async () => {
  tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: "demo",
    embeddings: "hash:128",
    now: () => t,
    clock: () => t,
    versionCheckMs: 250,
    recommendationLog: { enabled: false },
  });
  await tg.importCatalog(demoCatalog());
  await tg.importTraces(demoTraces(300, 42, NOW));
});

afterAll(async () => {
  await tg?.close();
});

describe("synchronous fast paths", () => {
  it("cachedSnapshot: the snapshot itself within versionCheckMs of its last check, undefined after", async () => {
    const e = engineOf(tg);
    const s = await e.snapshot("demo");
    expect(e.cachedSnapshot("demo")).toBe(s);
    expect(e.cachedSnapshot("nobody")).toBeUndefined();
    t += 300; // past the version check
    expect(e.cachedSnapshot("demo")).toBeUndefined();
    expect(await e.snapshot("demo")).toBe(s); // same version: the check renews it
    expect(e.cachedSnapshot("demo")).toBe(s);
  });

  it("weightsNow and cachedProjectConfigNow: fixed modes at once, stored weights from a fresh configuration only", async () => {
    const e = engineOf(tg);
    expect(weightsNow(await e.view("demo"), "markov")).toBe(MARKOV_WEIGHTS);
    expect(weightsNow(await e.view("demo"), "seed")).toBe(NEXT_DEFAULTS.weights);
    const fit = await tg.fitNextStepWeights();
    const awaited = await weightsFor(await e.view("demo"), "auto");
    expect(awaited).toEqual(fit.weights);
    expect(cachedProjectConfigNow(e, "demo")).toBeDefined();
    expect(weightsNow(await e.view("demo"), "auto")).toEqual(awaited);
    expect(weightsNow(await e.view("demo"), undefined)).toEqual(awaited);
    expect(fallbacksOf(cachedProjectConfigNow(e, "demo")!)).toEqual(await projectFallbacks(e, "demo"));
    expect(cachedProjectConfigNow(e, "elsewhere")).toBeUndefined();
    expect(weightsNow(await e.view("elsewhere"), "auto")).toBeUndefined();
  });

  it("preparedNow: the memoised gate of an anonymous request after prepare, undefined for users, workflows and first requests", async () => {
    const g = engineOf(tg).gatekeeper;
    const req = { project: "demo", text: "", workflow: { steps: [{ tool: "git.status", success: true }], replans: 0 } };
    const fresh = { ...req, text: "a request never prepared before" };
    expect(g.preparedNow(fresh)).toBeUndefined();
    const prepared = await g.prepare(req);
    expect(g.preparedNow(req)).toBe(prepared);
    expect(g.preparedNow({ ...req, user: "ann" })).toBeUndefined();
    expect(g.preparedNow({ ...req, workflowId: "wf-1" })).toBeUndefined();
    expect(g.preparedNow({ ...req, requestWorkflow: { steps: [{ tool: "git.status" }] } })).toBeUndefined();
    expect(g.preparedNow({ ...req, environment: { production: true, critical: true } })).toBeUndefined();
    // A learned step in the context: the memo no longer answers until prepare runs again.
    await g.recordOutcome("demo", prepared.detected.operationType, prepared.detected.domain, "accepted-failed");
    expect(g.preparedNow(req)).toBeUndefined();
    const again = await g.prepare(req);
    expect(again).not.toBe(prepared);
    expect(g.preparedNow(req)).toBe(again);
  });
});
