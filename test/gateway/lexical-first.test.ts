/**
 * The gateway answers before the embeddings are in: a fresh home behind an upstream of 200 tools
 * (fixtures/hostile-server.mjs) whose embeddings are held back (a provider that waits until the test releases
 * it: the stand-in for a slow local model). The SDK client's first search_tools right after connecting finds
 * the tool by the lexical channel, says so (`degraded: "embedding"`, channels, the explanation) and is never
 * accepted outright, and plan_workflow does not wait either; once the embeddings land the same search ranks with
 * every channel. Embedded database.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { heldProvider } from "../helpers/held-embeddings.ts";

const fixture = fileURLToPath(new URL("./fixtures/hostile-server.mjs", import.meta.url));

let tg: Toolgraph;
let gateway: Gateway;
let provider: ReturnType<typeof heldProvider>;
let client: Client;

beforeAll(async () => {
  provider = heldProvider();
  tg = await openToolgraph({ home: "memory://", database: "", project: "lexical", embeddings: provider });
  const config = parseGatewayConfig({
    mcpServers: { hostile: { command: process.execPath, args: [fixture], env: { HOSTILE_TOOLS: "200" } } },
  });
  gateway = new Gateway(tg, { config, log: () => {} });
  await gateway.start({ waitForEmbeddings: false });
  const session = gateway.createSession();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await session.server.connect(a);
  client = new Client({ name: "lexical-test", version: "1" });
  await client.connect(b);
}, 120_000);

afterAll(async () => {
  provider?.release();
  await gateway?.close();
  await tg?.close();
});

const search = async (intent: string) =>
  ((await client.callTool({ name: "search_tools", arguments: { intent, limit: 5 } })) as { structuredContent: any })
    .structuredContent;

describe("search while the embeddings are computed", () => {
  it("the first search after connecting answers lexically and says so", async () => {
    const first = await search("shout one stderr line of many characters");
    // The catalog's embedding is under way (and held): the answer did not wait for it.
    expect(provider.calls).toBeGreaterThan(0);
    expect(first.degraded).toBe("embedding");
    expect(first.channels).toEqual({ lexical: true, embedding: false, graph: true });
    expect(first.results[0].tool).toBe("hostile.shout");
    expect(first.results[0].breakdown.cosine).toBe(0);
    expect(first.results[0].explanation).toMatch(/lexical and graph channels only/);
    expect(first.routing.mode).toBe("flat");
    for (const r of first.results) expect(r.gate.decision).not.toBe("accepted");
    // Every listed tool is searchable from the first answer, not only the control tools.
    const numbered = await search("generation 0 tool number 137 converts quarterly widget reports");
    expect(numbered.results.map((r: { tool: string }) => r.tool)).toContain("hostile.g0_tool_137");
    // The plan does not wait either (its capability match answers from the same lexical index).
    const plan = (
      (await client.callTool({
        name: "plan_workflow",
        arguments: { intent: "shout one stderr line of many characters" },
      })) as { structuredContent: any }
    ).structuredContent;
    expect(plan.degraded).toBe("embedding");
    expect(plan.tools.map((t: { tool: string }) => t.tool)).toContain("hostile.shout");
    expect(plan.gate.decision).not.toBe("accepted");
  });

  it("once the embeddings land, the same search ranks with every channel", async () => {
    provider.release();
    await gateway.indexed();
    const full = await search("shout one stderr line of many characters");
    expect(full.degraded).toBeUndefined();
    expect(full.channels).toEqual({ lexical: true, embedding: true, graph: true });
    expect(full.results[0].tool).toBe("hostile.shout");
    expect(full.results[0].breakdown.cosine).toBeGreaterThan(0);
    expect(full.results[0].explanation).not.toMatch(/lexical and graph channels only/);
  });
});
