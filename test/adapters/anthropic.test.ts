/**
 * toolgraph/anthropic through the real `@anthropic-ai/sdk` client, its `fetch` answered from fixtures (no
 * network): the deferred tools and the tool_result of tool_reference blocks the SDK sends are asserted exactly.
 */
import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANTHROPIC_DEFAULTS, anthropicToolSearch } from "../../src/adapters/anthropic.ts";
import type { Toolgraph } from "../../src/index.ts";
import { fixtureFetch, openCatalog, TOOLS } from "./catalog.ts";

const FIXTURES = JSON.parse(
  readFileSync(new URL("fixtures/anthropic-messages.json", import.meta.url), "utf8"),
) as Record<"searchCall" | "toolCall", object>;

let tg: Toolgraph;
beforeAll(async () => {
  tg = await openCatalog("anthropic");
});
afterAll(async () => {
  await tg?.close();
});

function recordedClient(responses: object[]) {
  const { fetch, sent } = fixtureFetch(responses);
  return { client: new Anthropic({ apiKey: "test-key", maxRetries: 0, fetch }), sent };
}

const sdkTools: Anthropic.Tool[] = TOOLS.map((t) => ({
  name: t.id.replace(".", "__"),
  description: t.description,
  input_schema: { type: "object", properties: { text: { type: "string" } } },
}));

describe("toolgraph/anthropic tool search", () => {
  it("defers every tool and answers the search tool_use with tool_reference blocks for the top k", async () => {
    const ts = anthropicToolSearch(tg, { tools: sdkTools, k: 3 });
    const { client, sent } = recordedClient([FIXTURES.searchCall, FIXTURES.toolCall]);
    const tools: Anthropic.ToolUnion[] = ts.tools; // the SDK's own types accept them
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "ship my fix for review" }];

    const m1 = await client.messages.create({ model: "claude-test-model", max_tokens: 1024, messages, tools });
    const results: Anthropic.ToolResultBlockParam[] = await ts.answer(m1.content);
    messages.push({ role: "assistant", content: m1.content }, { role: "user", content: results });
    const m2 = await client.messages.create({ model: "claude-test-model", max_tokens: 1024, messages, tools });

    expect(sent[0]!.tools).toEqual([
      {
        name: "tool_search",
        description: ANTHROPIC_DEFAULTS.description,
        input_schema: {
          type: "object",
          properties: { query: { type: "string", description: "What you want to do, in plain words" } },
          required: ["query"],
        },
      },
      ...sdkTools.map((t) => ({ ...t, defer_loading: true })),
    ]);
    // search("ship my fix for review"): the three tools of the twenty runs under that very intent (the others score
    // ≤ 0.1), referenced by their names in rank order.
    const picked = ts.selections[0]!.picked;
    expect(picked.map((p) => [p.name, p.tool]).sort()).toEqual([
      ["git__commit", "git.commit"],
      ["git__push", "git.push"],
      ["github__create_pull_request", "github.create_pull_request"],
    ]);
    expect(picked.map((p) => p.rank)).toEqual([1, 2, 3]);
    expect((sent[1]!.messages as { content: unknown }[]).at(-1)!.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: picked.map((p) => ({ type: "tool_reference", tool_name: p.name })),
      },
    ]);
    const use = m2.content.find((b) => b.type === "tool_use");
    expect(use && ts.toolIdOf(use.name)).toBe("github.create_pull_request");
  }, 120_000);

  it("skips other blocks, refuses an empty query by name, and a search tool named like a tool", async () => {
    const ts = anthropicToolSearch(tg, { tools: sdkTools });
    expect(await ts.answer([{ type: "text" }, { type: "tool_use", id: "t", name: "git__push", input: {} }])).toEqual(
      [],
    );
    await expect(
      ts.answer({ type: "tool_use", id: "toolu_9", name: "tool_search", input: { query: " " } }),
    ).rejects.toThrow(/^input\.query: /);
    expect(() => anthropicToolSearch(tg, { tools: sdkTools, name: "git__push" })).toThrow(
      /^name: "git__push" is also one of the tools/,
    );
  }, 120_000);
});
