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

const FIXTURES = JSON.parse(readFileSync(new URL("fixtures/anthropic-messages.json", import.meta.url), "utf8")) as Record<"searchCall" | "toolCall", object>;

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

const sdkTools: Anthropic.Tool[] = TOOLS.map((t) => ({ name: t.id.replace(".", "__"), description: t.description, input_schema: { type: "object", properties: { text: { type: "string" } } } }));

describe("toolgraph/anthropic tool search", () => {
  it("defers every tool and answers the search tool_use with tool_reference blocks for the top k", async () => {
    const ts = anthropicToolSearch(tg, { tools: sdkTools, k: 3 });
    const { client, sent } = recordedClient([FIXTURES.searchCall, FIXTURES.toolCall]);
    const tools: Anthropic.ToolUnion[] = ts.tools; // the SDK's own types accept them
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "open a pull request for my fix" }];

    const m1 = await client.messages.create({ model: "claude-test-model", max_tokens: 1024, messages, tools });
    const results: Anthropic.ToolResultBlockParam[] = await ts.answer(m1.content);
    messages.push({ role: "assistant", content: m1.content }, { role: "user", content: results });
    const m2 = await client.messages.create({ model: "claude-test-model", max_tokens: 1024, messages, tools });

    expect(sent[0]!.tools).toEqual([
      {
        name: "tool_search",
        description: ANTHROPIC_DEFAULTS.description,
        input_schema: { type: "object", properties: { query: { type: "string", description: "What you want to do, in plain words" } }, required: ["query"] },
      },
      ...sdkTools.map((t) => ({ ...t, defer_loading: true })),
    ]);
    // search("open a pull request"): the pull request (0.88), git.commit (0.14), git.push (0.10), by their names.
    expect((sent[1]!.messages as { content: unknown }[]).at(-1)!.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: [
          { type: "tool_reference", tool_name: "github__create_pull_request" },
          { type: "tool_reference", tool_name: "git__commit" },
          { type: "tool_reference", tool_name: "git__push" },
        ],
      },
    ]);
    expect(ts.selections[0]!.picked.map((p) => [p.name, p.tool, p.rank])).toEqual([
      ["github__create_pull_request", "github.create_pull_request", 1],
      ["git__commit", "git.commit", 2],
      ["git__push", "git.push", 3],
    ]);
    const use = m2.content.find((b) => b.type === "tool_use");
    expect(use && ts.toolIdOf(use.name)).toBe("github.create_pull_request");
  }, 120_000);

  it("skips other blocks, refuses an empty query by name, and a search tool named like a tool", async () => {
    const ts = anthropicToolSearch(tg, { tools: sdkTools });
    expect(await ts.answer([{ type: "text" }, { type: "tool_use", id: "t", name: "git__push", input: {} }])).toEqual([]);
    await expect(ts.answer({ type: "tool_use", id: "toolu_9", name: "tool_search", input: { query: " " } })).rejects.toThrow(/^input\.query: /);
    expect(() => anthropicToolSearch(tg, { tools: sdkTools, name: "git__push" })).toThrow(/^name: "git__push" is also one of the tools/);
  }, 120_000);
});
