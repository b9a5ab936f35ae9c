/**
 * Learned next-step weights are used only when they beat the seed's on grouped held-out executions
 * (fitNextStepWeights, docs/decisions/search-weight-fitting.md); otherwise the seed formula answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULTS as NEXT_DEFAULTS } from "../../algorithms/prediction/next-step.ts";
import { executionGroups } from "../../src/jobs/next.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { pgliteBackend } from "../helpers/backends.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const tools = ["a.open", "b.edit", "c.save", "d.close", "e.lint"].map((id) => ({ id, description: `tool ${id}` }));
/** Three workflows, each under its own repeated request: 3 intent groups, 24 executions, 72 steps. */
const FLOWS = [
  { intent: "polish my essay", steps: ["a.open", "b.edit", "c.save"] },
  { intent: "check the code style", steps: ["a.open", "e.lint", "d.close"] },
  { intent: "archive old notes", steps: ["a.open", "c.save", "d.close"] },
];

describe("fitNextStepWeights", () => {
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({
      ...(await pgliteBackend().options()),
      project: "nx",
      embeddings: "hash:16",
      now: () => NOW,
    });
    await tg.importCatalog({ tools });
    await tg.importTraces(
      Array.from({ length: 24 }, (_, i) => ({
        id: `x${i}`,
        intent: FLOWS[i % 3]!.intent,
        startedAt: new Date(NOW - (i + 1) * 60_000).toISOString(),
        success: true,
        steps: FLOWS[i % 3]!.steps.map((tool) => ({ tool, success: true })),
      })),
    );
  });
  afterAll(async () => {
    await tg?.close();
  });

  it("groups executions by near-duplicate intent; an execution without one is its own group", () => {
    const seqs = [
      { id: "1", steps: [] },
      { id: "2", steps: [] },
      { id: "3", steps: [] },
      { id: "4", steps: [] },
    ];
    const g = executionGroups(
      seqs,
      new Map([
        ["1", "edit and save the draft"],
        ["2", "Edit and save the draft!"],
        ["3", "close it"],
      ]),
    );
    expect(g.count).toBe(3);
    expect(g.group[0]).toBe(g.group[1]);
    expect(new Set([g.group[0], g.group[2], g.group[3]]).size).toBe(3);
  });

  it("with 3 request groups the learned weights are not used: the seed formula answers, and the fit says why", async () => {
    const fit = await tg.fitNextStepWeights();
    expect(fit.examples).toBeGreaterThan(0);
    expect(fit.accepted).toBe(false);
    expect(fit.reason).toMatch(/only 3 distinct execution groups/);
    expect(fit.weights).toEqual(NEXT_DEFAULTS.weights);
    expect(fit.candidate).not.toEqual(NEXT_DEFAULTS.weights);
    const auto = await tg.suggestNext({ context: ["a.open"] });
    expect(auto.weights).toEqual(NEXT_DEFAULTS.weights);
    // The learned mode still answers with what was learned.
    const learned = await tg.suggestNext({ context: ["a.open"], mode: "learned" });
    expect(learned.weights).toEqual(fit.candidate);
    const stats = await tg.stats();
    expect(stats.learning.nextStepWeights.fit?.reason).toBe(fit.reason);
  });
});
