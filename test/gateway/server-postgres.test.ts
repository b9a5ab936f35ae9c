/**
 * The gateway in front of an old MCP server from npm: @modelcontextprotocol/server-postgres 0.6.2, built on
 * the SDK 1.0.1 and speaking only 2024-11-05, pointed at the test database server. The gateway's upstream
 * client (SDK v2) probes `server/discover`, gets refused, falls back to `initialize`, and the call passes
 * through unchanged and is recorded as a step of the session's execution.
 */
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { SERVER_URL } from "../helpers/backends.ts";

const require = createRequire(import.meta.url);
const postgresServer = require.resolve("@modelcontextprotocol/server-postgres/dist/index.js");
let tg: Toolgraph;
let gateway: Gateway;

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "gwpg", embeddings: "hash:256" });
  const config = parseGatewayConfig({
    mcpServers: { pg: { command: process.execPath, args: [postgresServer, SERVER_URL] } },
  });
  gateway = new Gateway(tg, { config, log: () => {} });
  await gateway.start();
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await tg?.close();
});

describe("gateway in front of server-postgres 0.6.2 (2024-11-05, SDK 1.0.1)", () => {
  it("negotiates the server's old revision and lists its one tool", () => {
    const st = gateway.status();
    expect(st.down).toEqual([]);
    expect(st.servers).toEqual([
      expect.objectContaining({ server: "pg", state: "up", tools: 1, protocolVersion: "2024-11-05" }),
    ]);
    expect(gateway.upstreamTool("pg.query")?.tool.name).toBe("query");
  });

  it("passes a read-only query through unchanged and records it", async () => {
    const session = gateway.createSession();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    const client = new Client({ name: "pg-agent", version: "1" });
    await client.connect(b);
    const before = gateway.status().recorded;
    await client.callTool({ name: "search_tools", arguments: { intent: "run a sql query on the database" } });
    const answer = await client.callTool({
      name: "call_tool",
      arguments: { name: "pg.query", arguments: { sql: "select 40 + 2 as answer" } },
    });
    expect(answer.isError ?? false).toBe(false);
    const [block] = answer.content as Array<{ type: string; text: string }>;
    expect(JSON.parse(block!.text)).toEqual([{ answer: 42 }]);
    // server-postgres runs every query in a READ ONLY transaction: a write is refused upstream and relayed
    // as the upstream's error, naming the server.
    const refused = await client.callTool({
      name: "call_tool",
      arguments: { name: "pg.query", arguments: { sql: "create table gw_should_not_exist (x int)" } },
    });
    expect(refused.isError).toBe(true);
    await client.close();
    await session.close();
    await gateway.flush();
    const after = gateway.status().recorded;
    expect(after.executions - before.executions).toBe(1);
    expect(after.steps - before.steps).toBe(2);
  });
});
