/**
 * toolgraph/ai-sdk with the AI SDK's own mock model (`ai/test`): the tools each step's model call receives,
 * the gate's fallback, and the run recorded through recordExecution. No network, no model.
 */
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callsOf, firstUserText, toolgraphSteps } from "../../src/adapters/ai-sdk.ts";
import type { Toolgraph } from "../../src/index.ts";
import { INTENT, openCatalog, TOOLS } from "./catalog.ts";

let tg: Toolgraph;
beforeAll(async () => {
  tg = await openCatalog("ai-sdk");
});
afterAll(async () => {
  await tg?.close();
});

/** The catalog as AI SDK tools, named `server__tool`; `git.push` fails when called. */
function sdkTools() {
  return Object.fromEntries(
    TOOLS.map((t) => [
      t.id.replace(".", "__"),
      tool({
        description: t.description,
        inputSchema: jsonSchema<{ text?: string }>({ type: "object", properties: { text: { type: "string" } } }),
        execute: async () => {
          if (t.id === "git.push") throw new Error("remote rejected");
          return { ok: true };
        },
      }),
    ]),
  );
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const call = (id: string, toolName: string) => ({
  content: [{ type: "tool-call" as const, toolCallId: id, toolName, input: "{}" }],
  finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
  usage,
  warnings: [],
});
const done = {
  content: [{ type: "text" as const, text: "done" }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage,
  warnings: [],
};

/** The tool names a model call was offered. */
const offered = (m: MockLanguageModelV3, i: number) => (m.doGenerateCalls[i]?.tools ?? []).map((t) => t.name).sort();

describe("toolgraph/ai-sdk prepareStep", () => {
  it("offers the search's top k first, then next-step tools after each success, and records the run", async () => {
    const model = new MockLanguageModelV3({ doGenerate: [call("c1", "git__commit"), call("c2", "git__push"), done] });
    const steps = toolgraphSteps(tg, {
      tools: sdkTools(),
      k: 3,
      runId: "ai-sdk-run-1",
      now: () => new Date("2026-02-01T00:00:00Z"),
    });
    const before = await tg.stats();
    const result = await generateText({
      model,
      tools: sdkTools(),
      prompt: INTENT,
      stopWhen: stepCountIs(5),
      prepareStep: steps.prepareStep,
      onFinish: steps.onFinish,
    });

    // Step 0: the three tools of the twenty runs under this very intent (scores 0.83, 0.82, 0.81; the rest ≤ 0.09).
    expect(offered(model, 0)).toEqual(["git__commit", "git__push", "github__create_pull_request"]);
    expect(steps.selections[0]).toMatchObject({ source: "search", abstained: false });
    expect(steps.selections[0]!.picked.map((p) => p.rank)).toEqual([1, 2, 3]);
    // Step 1: git.commit succeeded; git.push followed it in 20 of 20 runs (accepted), then the first step's tools.
    expect(steps.selections[1]!.source).toBe("next");
    expect(steps.selections[1]!.names[0]).toBe("git__push");
    expect(offered(model, 1)).toEqual(["git__commit", "git__push", "github__create_pull_request"]);
    // Step 2: git.push failed, so the context is still [git.commit] and git.push is excluded: the next-step answer
    // abstains (its best, the pull request, scores 0.36), and search with that context and exclusion answers.
    expect(steps.selections[2]!.source).toBe("search");
    expect(steps.selections[2]!.names[0]).not.toBe("git__push");
    expect(offered(model, 2)).not.toContain("git__push");
    expect(model.doGenerateCalls).toHaveLength(3);

    expect(callsOf(result.steps)).toEqual([
      { name: "git__commit", success: true },
      { name: "git__push", success: false },
    ]);
    const after = await tg.stats();
    expect(after.executions).toBe(before.executions + 1);
    // Recording is idempotent by the run id (the gateway's path: recordExecution).
    expect((await steps.record(result.steps))?.inserted).toBe(0);
  }, 120_000);

  it("offers every tool when the gate abstains (default fallback), or the named fallback", async () => {
    const model = new MockLanguageModelV3({ doGenerate: [done] });
    const steps = toolgraphSteps(tg, { tools: sdkTools(), k: 3 });
    await generateText({ model, tools: sdkTools(), prompt: "bake a chocolate cake", prepareStep: steps.prepareStep });
    expect(steps.selections[0]).toMatchObject({ source: "fallback", abstained: true });
    expect(offered(model, 0)).toHaveLength(TOOLS.length);

    const model2 = new MockLanguageModelV3({ doGenerate: [done] });
    const named = toolgraphSteps(tg, {
      tools: sdkTools(),
      k: 3,
      fallback: ["weather__forecast", "not_a_tool"],
      alwaysActive: ["files__read"],
    });
    await generateText({
      model: model2,
      tools: sdkTools(),
      prompt: "bake a chocolate cake",
      prepareStep: named.prepareStep,
    });
    expect(offered(model2, 0)).toEqual(["files__read", "weather__forecast"]);
  }, 120_000);

  it("records nothing for a run without tool calls, and refuses a bad k by name", async () => {
    const steps = toolgraphSteps(tg, { tools: sdkTools(), intent: INTENT });
    expect(await steps.record([{ content: [{ type: "text" }] }])).toBeUndefined();
    expect(() => toolgraphSteps(tg, { tools: sdkTools(), k: 0 })).toThrow(/^k: must be a whole number from 1 to 100/);
    await expect(steps.prepareStep({ stepNumber: 0, steps: [], messages: [] })).resolves.toMatchObject({
      activeTools: expect.any(Array),
    });
    const noIntent = toolgraphSteps(tg, { tools: sdkTools() });
    await expect(
      noIntent.prepareStep({ stepNumber: 0, steps: [], messages: [{ role: "system", content: "be brief" }] }),
    ).rejects.toThrow(/^intent: /);
  }, 120_000);

  it("reads the intent from the first user message (text or text parts)", () => {
    expect(
      firstUserText([
        { role: "system", content: "x" },
        { role: "user", content: " ship it " },
      ]),
    ).toBe("ship it");
    expect(
      firstUserText([
        { role: "user", content: [{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }] },
      ]),
    ).toBe("a\nb");
    expect(firstUserText([{ role: "assistant", content: "hi" }])).toBeUndefined();
  });
});
