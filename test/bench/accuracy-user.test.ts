/**
 * The accuracy bench on a user's own files: records are validated before anything is embedded
 * (file:line: field: message, "required" for an absent field), and each distinct set of inputs gets its own
 * project, named after the eval file and a hash of the contents.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadUserDataset } from "../../bench/accuracy.ts";
import { describeIssue, executionSchema } from "../../src/formats/schemas.ts";

const dir = mkdtempSync(join(tmpdir(), "tg-acc-user-"));
const put = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const catalog = put(
  "catalog.json",
  JSON.stringify({
    tools: [
      { id: "a", description: "tool a" },
      { id: "b", description: "tool b" },
    ],
  }),
);
const cases = put("my cases.jsonl", `${JSON.stringify({ kind: "next-step", id: "n1", steps: ["a", "b"] })}\n`);

describe("loadUserDataset", () => {
  it("says which field of which line is missing: startedAt required", () => {
    const traces = put(
      "t1.jsonl",
      `${JSON.stringify({ id: "t0", startedAt: "2026-01-01T00:00:00Z", success: true, steps: [{ tool: "a" }] })}\n\n${JSON.stringify({ id: "t1", success: true, steps: [{ tool: "a" }] })}\n`,
    );
    expect(() => loadUserDataset({ catalog, traces, eval: cases })).toThrow(`${traces}:3: startedAt: required`);
  });

  it("names bad JSON, bad edges and an empty eval file", () => {
    const broken = put("t2.jsonl", "{nope\n");
    expect(() => loadUserDataset({ catalog, traces: broken, eval: cases })).toThrow(`${broken}:1: not valid JSON`);
    const edges = put("e.jsonl", `${JSON.stringify({ from: "a", to: "b", type: "needs" })}\n`);
    expect(() => loadUserDataset({ catalog, edges, eval: cases })).toThrow(`${edges}:1: type:`);
    const empty = put("empty.jsonl", "\n");
    expect(() => loadUserDataset({ catalog, eval: empty })).toThrow(`${empty}: no evaluation cases`);
  });

  it("a project per distinct input, a result name per eval file; no traces is fine", () => {
    const one = loadUserDataset({ catalog, eval: cases });
    expect(one.resultName).toBe("user-my-cases");
    expect(one.name).toMatch(/^user-my-cases-[0-9a-f]{10}$/);
    expect(one.traces).toEqual([]);
    expect(loadUserDataset({ catalog, eval: cases }).name).toBe(one.name);
    const other = put(
      "catalog2.json",
      JSON.stringify({
        tools: [
          { id: "a", description: "tool a" },
          { id: "b", description: "tool b" },
          { id: "c", description: "c" },
        ],
      }),
    );
    expect(loadUserDataset({ catalog: other, eval: cases }).name).not.toBe(one.name);
  });
});

describe("describeIssue", () => {
  it("an absent field is 'required' (also through a union), a wrong one keeps zod's message", () => {
    const missing = executionSchema.safeParse({ id: "x", success: true, steps: [{ tool: "a" }] });
    expect(missing.error!.issues.map(describeIssue)).toEqual(["startedAt: required"]);
    const noSteps = executionSchema.safeParse({ id: "x", startedAt: "2026-01-01T00:00:00Z", success: true });
    expect(noSteps.error!.issues.map(describeIssue)).toEqual(["steps: required"]);
    const wrong = executionSchema.safeParse({
      id: "x",
      startedAt: "2026-01-01T00:00:00Z",
      success: "yes",
      steps: [{ tool: "a" }],
    });
    expect(wrong.error!.issues.map(describeIssue)).toEqual([
      "success: Invalid input: expected boolean, received string",
    ]);
  });
});

describe("toolgraph bench accuracy --help", () => {
  it("prints the accuracy bench's own options", () => {
    const r = spawnSync(process.execPath, ["src/cli/toolgraph.mjs", "bench", "accuracy", "--help"], {
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    for (const opt of [
      "--dataset",
      "--embeddings",
      "--home",
      "--gating-only",
      "--fusion-stress",
      "--catalog",
      "--eval",
      "--traces",
      "--edges",
    ])
      expect(r.stdout).toContain(opt);
  }, 60_000);
});
