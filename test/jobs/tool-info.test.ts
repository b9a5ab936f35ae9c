/**
 * tool_info on a hand-built history, through the library, HTTP (and its OpenAPI document), MCP and the CLI.
 *
 * Catalog a, b, c. Executions: three of a → b (all steps succeed), one of a → c (c fails).
 * Hand-computed (edge quality = type weight × source multiplier, algorithms/graph/edge-quality.ts):
 *   a → b: 3 sequence observations → promoted to observed: 0.5 × 1.0 = 0.5;
 *   a → c: 1 sequence observation → inferred: 0.5 × 0.7 = 0.35.
 *   a: 4 steps, 4 successes → success rate 1, latency (10 + 10 + 10 + 30) / 4 = 15 ms; c: 1 step, 0 successes → 0.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createMcpServer } from "../../src/mcp/mcp-server.ts";
import { createServer } from "../../src/server/http-server.ts";
import { freshTarget, type Target } from "../cli/harness.ts";

const CATALOG = {
  tools: [
    {
      id: "a",
      name: "A",
      description: "fetch a web page",
      safetyTags: ["network"],
      inputSchema: { type: "object", properties: { url: { type: "string" } } },
    },
    { id: "b", name: "B", description: "parse the html of a page" },
    { id: "c", name: "C", description: "delete the cached page", safetyTags: ["destructive"] },
  ],
};
const at = (k: number) => new Date(Date.UTC(2026, 10, 1, 12, k)).toISOString();
const TRACES = [
  ...[0, 1, 2].map((k) => ({
    id: `ab-${k}`,
    intent: "fetch and parse",
    success: true,
    startedAt: at(k),
    steps: [
      { tool: "a", success: true, durationMs: 10 },
      { tool: "b", success: true },
    ],
  })),
  {
    id: "ac",
    intent: "fetch and clean",
    success: false,
    startedAt: at(3),
    steps: [
      { tool: "a", success: true, durationMs: 30 },
      { tool: "c", success: false },
    ],
  },
];

let target: Target;
let tg: Toolgraph;
beforeAll(async () => {
  target = await freshTarget();
  tg = await openToolgraph({ ...target.options, project: "info", embeddings: "hash:64" });
  await tg.importCatalog(CATALOG);
  await tg.importTraces(TRACES);
}, 120_000);
afterAll(async () => {
  await tg?.close();
  await target?.dispose();
});

describe("toolInfo", () => {
  it("a: its entry, its use, its neighbours by edge quality", async () => {
    const r = await tg.toolInfo({ tool: "a" });
    expect(r.tool).toMatchObject({
      id: "a",
      description: "fetch a web page",
      safetyTags: ["network"],
      available: true,
      server: null,
    });
    expect(r.tool.inputSchema).toEqual({ type: "object", properties: { url: { type: "string" } } });
    expect(r.stats).toMatchObject({ executions: 4, successRate: 1, avgLatencyMs: 15, lastUsedAt: expect.any(String) });
    expect(r.neighbours.next).toEqual([
      { tool: "b", weight: 0.5, type: "sequence", observations: 3 },
      { tool: "c", weight: expect.closeTo(0.35, 12), type: "sequence", observations: 1 },
    ]);
    expect(r.neighbours.previous).toEqual([]);
    expect(r.explanation).toMatch(
      /^a: used in 4 steps, 100 % successful; .*most often followed by b \(sequence, quality 0\.50\)\.$/,
    );
  });

  it("c: a failed tool with its predecessor; the neighbour count is bounded by the request", async () => {
    const r = await tg.toolInfo({ tool: "c" });
    expect(r.stats).toMatchObject({ executions: 1, successRate: 0 });
    expect(r.tool.safetyTags).toEqual(["destructive"]);
    expect(r.neighbours.previous.map((n) => n.tool)).toEqual(["a"]);
    const one = await tg.toolInfo({ tool: "a", neighbours: 1 });
    expect(one.neighbours.next.map((n) => n.tool)).toEqual(["b"]);
  });

  it("an unknown tool or a bad bound names the field", async () => {
    await expect(tg.toolInfo({ tool: "zzz" })).rejects.toMatchObject({
      code: "unknown-tool",
      details: { field: "tool" },
    });
    await expect(tg.toolInfo({ tool: "a", neighbours: 99 })).rejects.toMatchObject({
      code: "invalid-input",
      details: { field: "neighbours" },
    });
  });
});

describe("tool_info on every door", () => {
  it("HTTP route and OpenAPI", async () => {
    const s = createServer(tg, { token: "", log: () => {}, defaultProject: "info", mcp: false });
    const addr = await s.listen(0, "127.0.0.1");
    try {
      const base = `http://127.0.0.1:${addr.port}`;
      const r = await fetch(`${base}/v1/tools/info`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ tool: "a" }),
      });
      expect(r.status).toBe(200);
      expect((await r.json()).neighbours.next[0]).toMatchObject({ tool: "b", weight: 0.5 });
      const doc = await (await fetch(`${base}/openapi.json`)).json();
      expect(doc.paths["/v1/tools/info"].post.operationId).toBe("toolInfo");
    } finally {
      await s.close();
    }
  });

  it("MCP tool", async () => {
    const server = createMcpServer(tg, { project: "info" });
    const [x, y] = InMemoryTransport.createLinkedPair();
    await server.connect(x);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(y);
    const tools = await client.listTools();
    const spec = tools.tools.find((t) => t.name === "tool_info");
    expect(spec?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    const r: any = await client.callTool({ name: "tool_info", arguments: { tool: "c" } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.stats).toMatchObject({ executions: 1, successRate: 0 });
    expect(r.content[0].text).toBe(
      "tool c: c: used in 1 steps, 0 % successful; community " +
        r.structuredContent.graph.community +
        ", PageRank " +
        r.structuredContent.graph.pagerank.toFixed(3) +
        "; most often after a.",
    );
    await client.close();
  });

  it("CLI command", async () => {
    let out = "";
    const code = await main(["tool-info", "a", "--neighbours", "1", "--json", "--project", "info", ...target.argv], {
      out: (s) => (out += s),
      err: () => {},
    });
    expect(code).toBe(0);
    expect(JSON.parse(out).neighbours.next).toEqual([{ tool: "b", weight: 0.5, type: "sequence", observations: 3 }]);
  });
});
