/**
 * `toolgraph learn-weights` through the CLI (in process, test/cli/harness.ts) on a 20-tool catalog with 32
 * traces of repeated requests (test/fixtures/repeated-intents.ts): the fit never switches descriptions off,
 * `--dry-run` stores nothing, `stats` shows the weights in force and why.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repeatedIntentsCatalog, repeatedIntentsTraces } from "../fixtures/repeated-intents.ts";
import { cli, freshTarget, type Target, useEmbeddings } from "./harness.ts";

let target: Target;
let dir: string;
let restoreEmbeddings: () => void;

beforeAll(async () => {
  restoreEmbeddings = useEmbeddings("hash:256");
  target = await freshTarget();
  dir = mkdtempSync(join(tmpdir(), "tg-learn-"));
  writeFileSync(join(dir, "catalog.json"), JSON.stringify(repeatedIntentsCatalog()));
  writeFileSync(
    join(dir, "traces.jsonl"),
    repeatedIntentsTraces()
      .map((t) => JSON.stringify(t))
      .join("\n"),
  );
});
afterAll(async () => {
  await target?.dispose();
  rmSync(dir, { recursive: true, force: true });
  restoreEmbeddings();
});

describe("toolgraph learn-weights on 20 tools and 32 repeated traces", () => {
  it("keeps descriptions in the score: the best-described tool ranks in the top 3 after the fit", async () => {
    const { json, run } = cli(target);
    const p = ["--project", "rep"];
    expect((await json("import", "catalog", join(dir, "catalog.json"), ...p)).tools.inserted).toBe(20);
    expect((await json("import", "traces", join(dir, "traces.jsonl"), ...p)).inserted).toBe(32);

    // A dry run shows what would change and stores nothing.
    const dry = await run("learn-weights", "--dry-run", ...p);
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/would be in force/);
    expect(dry.out).toMatch(/why: /);
    const before = await json("stats", ...p);
    expect(before.learning.searchWeights.fit).toBeNull();
    expect(before.learning.nextStepWeights.fit).toBeNull();

    const lw = await run("learn-weights", ...p);
    expect(lw.code).toBe(0);
    const content = Number(/content weight ([\d.]+)/.exec(lw.out)![1]);
    expect(content).toBeGreaterThanOrEqual(0.5);
    expect(lw.out).toMatch(/before: .* → after: /);

    const merge = await json("search", "merge the approved pull request", "--limit", "3", ...p);
    const mergeTools = merge.results.map((r: { tool: string }) => r.tool);
    expect(mergeTools).toContain("github.merge_pull_request");
    const writeFile = merge.results.find((r: { tool: string }) => r.tool === "fs.write_file");
    if (writeFile) expect(writeFile.gate.decision).not.toBe("accepted");

    const del = await json("search", "delete an old file from the workspace", "--limit", "3", ...p);
    expect(del.results.map((r: { tool: string }) => r.tool)).toContain("fs.delete_file");

    // stats: the weights in force and when and why they were (or were not) fitted.
    const stats = await json("stats", ...p);
    expect(stats.learning.searchWeights.inForce.contentWeight).toBeGreaterThanOrEqual(0.5);
    expect(stats.learning.searchWeights.fit.reason).toEqual(expect.any(String));
    expect(stats.learning.nextStepWeights.fit.fittedAt).toEqual(expect.any(String));
    // Next step: one-step traces teach nothing — the seed formula answers, and says why.
    expect(stats.learning.nextStepWeights.fit.accepted).toBe(false);
    expect(stats.learning.nextStepWeights.fit.reason).toMatch(/no training examples/);
    expect(stats.learning.nextStepWeights.inForce).toEqual({ cooc: 0.6, community: 0.3, recency: 0.1, pagerank: 0.1 });
    const next = await json("next", "--context", "git.status", ...p);
    expect(next.weights).toEqual({ cooc: 0.6, community: 0.3, recency: 0.1, pagerank: 0.1 });
    expect(lw.out).toMatch(/next step: .* in force \(seed; /);
    const text = await run("stats", ...p);
    expect(text.out).toMatch(
      /search weights: beta [\d.]+, memoryWeight [\d.]+, contentWeight [\d.]+, graphWeight [\d.]+, historyGuard [\d.]+ \(fitted /,
    );
  }, 300_000);
});
