/**
 * toolgraph/openai through the real `openai` client, its `fetch` answered from fixtures (no network): the
 * request bodies the SDK sends — the deferred namespaces, then the tool_search_output — are asserted exactly.
 */
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultNamespaceOf, OPENAI_DEFAULTS, openaiToolSearch } from "../../src/adapters/openai.ts";
import type { Toolgraph } from "../../src/index.ts";
import { fixtureFetch, openCatalog, TOOLS } from "./catalog.ts";

const FIXTURES = JSON.parse(readFileSync(new URL("fixtures/openai-responses.json", import.meta.url), "utf8")) as Record<
  "searchCall" | "functionCall",
  object
>;
const PARAMS = { type: "object", properties: { text: { type: "string" } } };

let tg: Toolgraph;
beforeAll(async () => {
  tg = await openCatalog("openai");
});
afterAll(async () => {
  await tg?.close();
});

function recordedClient(responses: object[]) {
  const { fetch, sent } = fixtureFetch(responses);
  return { client: new OpenAI({ apiKey: "test-key", maxRetries: 0, fetch }), sent };
}

const fn = (name: string, description: string) => ({
  type: "function",
  name,
  description,
  parameters: PARAMS,
  defer_loading: true,
});

describe("toolgraph/openai tool_search", () => {
  it("defers the functions in namespaces and answers a client tool_search_call with the top k loaded", async () => {
    const ts = openaiToolSearch(tg, {
      functions: TOOLS.map((t) => ({ name: t.id, description: t.description, parameters: PARAMS })),
      k: 3,
    });
    const { client, sent } = recordedClient([FIXTURES.searchCall, FIXTURES.functionCall]);
    const tools: OpenAI.Responses.Tool[] = ts.tools; // the SDK's own types accept them

    const r1 = await client.responses.create({ model: "gpt-5.4", input: "ship my fix for review", tools });
    const loaded = await ts.answer(r1.output);
    const input: OpenAI.Responses.ResponseInputItem[] = loaded;
    const r2 = await client.responses.create({ model: "gpt-5.4", previous_response_id: r1.id, input, tools });

    // Request 1: the client tool_search, then one namespace per server, every function deferred.
    expect(sent[0]!.tools).toEqual([
      {
        type: "tool_search",
        execution: "client",
        description: OPENAI_DEFAULTS.description,
        parameters: {
          type: "object",
          properties: { query: { type: "string", description: "What you want to do, in plain words" } },
          required: ["query"],
          additionalProperties: false,
        },
      },
      {
        type: "namespace",
        name: "git",
        description: "Tools of git: commit, push",
        tools: [fn("commit", TOOLS[0]!.description), fn("push", TOOLS[1]!.description)],
      },
      {
        type: "namespace",
        name: "github",
        description: "Tools of github: create_pull_request",
        tools: [fn("create_pull_request", TOOLS[2]!.description)],
      },
      {
        type: "namespace",
        name: "slack",
        description: "Tools of slack: post_message",
        tools: [fn("post_message", TOOLS[3]!.description)],
      },
      {
        type: "namespace",
        name: "calendar",
        description: "Tools of calendar: create_event",
        tools: [fn("create_event", TOOLS[4]!.description)],
      },
      {
        type: "namespace",
        name: "weather",
        description: "Tools of weather: forecast",
        tools: [fn("forecast", TOOLS[5]!.description)],
      },
      {
        type: "namespace",
        name: "files",
        description: "Tools of files: read, write",
        tools: [fn("read", TOOLS[6]!.description), fn("write", TOOLS[7]!.description)],
      },
    ]);
    // Request 2: search("ship my fix for review") ranks first the three tools of the twenty runs under that very
    // intent (the others score ≤ 0.1); they load under the call's own call_id, grouped by namespace in rank order.
    const picked = ts.selections[0]!.picked;
    expect(picked.map((p) => p.tool).sort()).toEqual(["git.commit", "git.push", "github.create_pull_request"]);
    expect(picked.map((p) => p.rank)).toEqual([1, 2, 3]);
    const git = {
      type: "namespace",
      name: "git",
      description: "Tools of git: commit, push",
      tools: picked
        .filter((p) => p.tool.startsWith("git."))
        .map((p) => fn(p.tool.slice(4), TOOLS.find((t) => t.id === p.tool)!.description)),
    };
    const github = {
      type: "namespace",
      name: "github",
      description: "Tools of github: create_pull_request",
      tools: [fn("create_pull_request", TOOLS[2]!.description)],
    };
    const githubFirst = picked[0]!.tool === "github.create_pull_request";
    expect(sent[1]!.input).toEqual([
      {
        type: "tool_search_output",
        call_id: "call_ts_1",
        execution: "client",
        status: "completed",
        tools: githubFirst ? [github, git] : [git, github],
      },
    ]);
    expect(sent[1]!.previous_response_id).toBe("resp_1");
    // The model's call maps back to the toolgraph id.
    const call = r2.output.find((o) => o.type === "function_call");
    expect(call && ts.toolIdOf(call)).toBe("github.create_pull_request");
  }, 120_000);

  it("loads named paths for the default { paths } arguments, and refuses bad arguments by name", async () => {
    const ts = openaiToolSearch(tg, {
      functions: TOOLS.map((t) => ({ name: t.id, description: t.description, parameters: PARAMS })),
    });
    const [out] = await ts.answer({
      type: "tool_search_call",
      execution: "client",
      call_id: "c2",
      arguments: JSON.stringify({ paths: ["files", "weather.forecast", "nope"] }),
    });
    expect(out!.tools.map((n) => [n.name, n.tools.map((f) => f.name)])).toEqual([
      ["files", ["read", "write"]],
      ["weather", ["forecast"]],
    ]);
    expect(ts.selections).toHaveLength(0);
    await expect(
      ts.answer({ type: "tool_search_call", execution: "client", call_id: "c3", arguments: { q: 1 } }),
    ).rejects.toThrow(/^arguments: /);
    // A server-executed search is not ours to answer.
    expect(
      await ts.answer({ type: "tool_search_call", execution: "server", call_id: "c4", arguments: { query: "x" } }),
    ).toEqual([]);
  }, 120_000);

  it("maps ids to namespaces and refuses two ids on one wire name", () => {
    expect(defaultNamespaceOf("github.create_pull_request")).toEqual({
      namespace: "github",
      name: "create_pull_request",
    });
    expect(defaultNamespaceOf("search")).toEqual({ namespace: "tools", name: "search" });
    expect(defaultNamespaceOf("a.b.c")).toEqual({ namespace: "a", name: "b_c" });
    expect(() => openaiToolSearch(tg, { functions: [{ name: "a.b.c" }, { name: "a.b_c" }] })).toThrow(
      /^functions: "a.b.c" and "a.b_c" both map to a.b_c/,
    );
  });
});
