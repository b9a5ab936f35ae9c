/**
 * `toolgraph gateway --http` in both protocol eras, in front of server-everything (a 2025-only upstream):
 * a 2025-06-18 session (v1 client) is one gateway session; 2026-07-28 calls (v2 client pinned to the
 * revision) are grouped by a client-chosen execution id, else by W3C trace context, else by the client
 * (docs/decisions/gateway-stateless-executions.md). The recorded executions (their steps, in order, their
 * intent and user) are read back from the store and the gateway's stats.
 */
import { createRequire } from "node:module";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway, gatewayApi } from "../../src/gateway/gateway.ts";
import { type GatewayHttpHandler, gatewayHttpHandler } from "../../src/gateway/transports.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createServer, type ToolgraphServer } from "../../src/server/http-server.ts";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
let tg: Toolgraph;
let gateway: Gateway;
let mcp: GatewayHttpHandler;
let server: ToolgraphServer;
let url: URL;

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "gwe2", embeddings: "hash:256" });
  const config = parseGatewayConfig({
    mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } },
  });
  gateway = new Gateway(tg, { config, log: () => {} });
  await gateway.start();
  mcp = gatewayHttpHandler(gateway);
  server = createServer(gatewayApi(tg, gateway), {
    token: "",
    log: () => {},
    mcpHandler: (req, res, body) => mcp.handle(req, res, body),
  });
  url = new URL(`${(await server.listen(0, "127.0.0.1")).url}/mcp`);
}, 180_000);

afterAll(async () => {
  await mcp?.close();
  await server?.close();
  await gateway?.close();
  await tg?.close();
});

async function modernClient(name: string): Promise<ModernClient> {
  const client = new ModernClient({ name, version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernHttp(url));
  return client;
}

const sum = (a: number, b: number) => ({ name: "everything.get-sum", arguments: { a, b } });
const echo = (message: string) => ({ name: "everything.echo", arguments: { message } });

function text(r: unknown): string {
  return JSON.stringify((r as { content?: unknown }).content);
}

/** Every recorded execution of the project: user, intent and step tools in order, sorted for comparison. */
async function recorded(): Promise<{ user: string | null; intent: string | null; steps: string[] }[]> {
  const rows = await engineOf(tg).db
    .selectFrom("executions as e")
    .innerJoin("execution_steps as s", (j) =>
      j.onRef("s.project", "=", "e.project").onRef("s.execution_id", "=", "e.id"),
    )
    .select(["e.id", "e.user_id", "e.intent", "s.idx", "s.tool_id"])
    .where("e.project", "=", "gwe2")
    .orderBy("e.id")
    .orderBy("s.idx")
    .execute();
  const byId = new Map<string, { user: string | null; intent: string | null; steps: string[] }>();
  for (const r of rows) {
    const e = byId.get(r.id) ?? { user: r.user_id, intent: r.intent, steps: [] };
    e.steps.push(r.tool_id);
    byId.set(r.id, e);
  }
  return [...byId.values()].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

describe("gateway --http in both eras", () => {
  it("2026-07-28 over HTTP: headers must match the body, and tools/list is the same for every caller", async () => {
    const envelope = (name: string) => ({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name, version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    });
    const post = async (headers: Record<string, string>, body: unknown) => {
      const r = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as any };
    };
    const v = { "mcp-protocol-version": "2026-07-28" };
    const call = { name: "call_tool", arguments: sum(1, 1), _meta: envelope("raw") };
    const mismatch = await post(
      { ...v, "mcp-method": "tools/call", "mcp-name": "search_tools" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: call },
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe(-32020);
    const lists = await Promise.all(
      ["one", "two"].map((name) =>
        post(
          { ...v, "mcp-method": "tools/list" },
          { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: envelope(name) } },
        ),
      ),
    );
    expect(lists[0]!.status).toBe(200);
    expect(lists[0]!.body.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" });
    expect(JSON.stringify(lists[0]!.body.result.tools)).toBe(JSON.stringify(lists[1]!.body.result.tools));
  });

  it("records a 2025 session and 2026-07-28 calls grouped by execution id, trace and client", async () => {
    // 2025-06-18: one MCP session, one execution.
    const legacy = new Client({ name: "legacy-agent", version: "1" });
    const transport = new StreamableHTTPClientTransport(url);
    await legacy.connect(transport);
    await legacy.callTool({ name: "search_tools", arguments: { intent: "add and echo the old way" } });
    expect(text(await legacy.callTool({ name: "call_tool", arguments: sum(1, 2) }))).toContain("3");
    await legacy.callTool({ name: "call_tool", arguments: echo("old") });

    // 2026-07-28: discover, the fixed tool list, then calls in three groups.
    const modern = await modernClient("modern-agent");
    expect(modern.getProtocolEra()).toBe("modern");
    expect(modern.getDiscoverResult()?.supportedVersions).toContain("2026-07-28");
    const names = (await modern.listTools()).tools.map((t) => t.name);
    expect(names).toContain("call_tool");
    expect(names.some((n) => n.startsWith("everything."))).toBe(false);

    const traceA = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
    const traceB = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
    const task = { "toolgraph/execution": "task-7" };
    const call = (args: object, _meta?: Record<string, unknown>) =>
      modern.callTool({ name: "call_tool", arguments: args as Record<string, unknown>, ...(_meta ? { _meta } : {}) });
    // Interleaved: trace A (with an intent), trace B, the explicit id, back to A.
    await modern.callTool({ name: "search_tools", arguments: { intent: "sum then echo in a trace" }, _meta: traceA });
    expect(text(await call(sum(20, 22), traceA))).toContain("42");
    await call(echo("b1"), traceB);
    await call(sum(5, 5), task);
    await call(echo("a2"), traceA);
    await call(echo("t2"), task);
    // An invalid traceparent is ignored (W3C): the call falls to the client's group, as one without one.
    await call(sum(7, 7), { traceparent: "00-zz-not-a-trace" });
    await call(echo("c2"));
    // A malformed execution id is refused, naming the field, and records nothing.
    const bad = await call(sum(1, 1), { "toolgraph/execution": "" });
    expect(bad.isError).toBe(true);
    expect((bad._meta?.["toolgraph/error"] as { field?: string } | undefined)?.field).toBe(
      "params._meta.toolgraph/execution",
    );

    // A second 2026 client on the same address is its own group.
    const other = await modernClient("other-agent");
    await other.callTool({ name: "call_tool", arguments: sum(2, 2) });

    await transport.terminateSession();
    await legacy.close();
    await modern.close();
    await other.close();
    await mcp.close(); // ends every group: their open executions are recorded
    await gateway.flush();

    const sumId = "everything.get-sum";
    const echoId = "everything.echo";
    const expected = [
      { user: "legacy-agent", intent: "add and echo the old way", steps: [sumId, echoId] },
      { user: "modern-agent", intent: "sum then echo in a trace", steps: [sumId, echoId] }, // trace A
      { user: "modern-agent", intent: null, steps: [echoId] }, // trace B
      { user: "modern-agent", intent: null, steps: [sumId, echoId] }, // task-7
      { user: "modern-agent", intent: null, steps: [sumId, echoId] }, // the client's own group
      { user: "other-agent", intent: null, steps: [sumId] },
    ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(await recorded()).toEqual(expected);
    expect(gateway.status().recorded).toMatchObject({ executions: 6, steps: 10 });
  });
});

describe("gateway --http: 2026-07-28 groups share the session cap", () => {
  it("a new group at the cap ends the least recently used one, whose execution is recorded then", async () => {
    const capped = gatewayHttpHandler(gateway, { maxSessions: 2 });
    const srv = createServer(gatewayApi(tg, gateway), {
      token: "",
      log: () => {},
      mcpHandler: (req, res, body) => capped.handle(req, res, body),
    });
    const cappedUrl = new URL(`${(await srv.listen(0, "127.0.0.1")).url}/mcp`);
    const client = new ModernClient(
      { name: "cap-agent", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new ModernHttp(cappedUrl));
    const inTask = (task: string) =>
      client.callTool({ name: "call_tool", arguments: sum(1, 2), _meta: { "toolgraph/execution": task } });
    const capAgentExecutions = async () => {
      await gateway.flush();
      return (
        await engineOf(tg).db
          .selectFrom("executions")
          .select("id")
          .where("project", "=", "gwe2")
          .where("user_id", "=", "cap-agent")
          .execute()
      ).length;
    };
    try {
      await inTask("t1");
      await inTask("t2");
      expect(capped.size).toBe(2);
      expect(await capAgentExecutions()).toBe(0);
      await inTask("t3"); // t1 is the least recently used: ended, its execution recorded
      expect(capped.size).toBe(2);
      expect(await capAgentExecutions()).toBe(1);
    } finally {
      await client.close();
      await capped.close();
      await srv.close();
    }
    expect(await capAgentExecutions()).toBe(3);
  });
});
