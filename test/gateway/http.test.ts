/**
 * `toolgraph gateway --http`: sessionful Streamable HTTP at /mcp on the HTTP server, driven by the SDK's
 * StreamableHTTPClientTransport, behind the same bearer token; Origin/Host validation (DNS-rebinding
 * protection) on /mcp for the gateway and the plain MCP endpoint; /health names the servers that are down
 * (with the token; without it, only whether all are up). Both protocol eras: http-eras.test.ts.
 */
import { request } from "node:http";
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway, gatewayApi } from "../../src/gateway/gateway.ts";
import { type GatewayHttpHandler, gatewayHealth, gatewayHttpHandler } from "../../src/gateway/transports.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createServer, type ToolgraphServer } from "../../src/server/http-server.ts";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const TOKEN = "s3cret";
let tg: Toolgraph;
let gateway: Gateway;
let mcp: GatewayHttpHandler;
let server: ToolgraphServer;
let plain: ToolgraphServer;
let base: string;
let plainBase: string;

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "gwh", embeddings: "hash:256" });
  const config = parseGatewayConfig({
    mcpServers: {
      everything: { command: process.execPath, args: [everything, "stdio"] },
      broken: { command: process.execPath, args: ["-e", "process.exit(2)"] },
    },
  });
  gateway = new Gateway(tg, { config, minBackoffMs: 60_000, log: () => {} });
  await gateway.start();
  mcp = gatewayHttpHandler(gateway);
  server = createServer(gatewayApi(tg, gateway), {
    token: TOKEN,
    log: () => {},
    mcpHandler: (req, res, body) => mcp.handle(req, res, body),
    healthExtra: gatewayHealth(gateway),
  });
  base = (await server.listen(0, "127.0.0.1")).url;
  plain = createServer(tg, { token: "", log: () => {} });
  plainBase = (await plain.listen(0, "127.0.0.1")).url;
}, 180_000);

afterAll(async () => {
  await mcp?.close();
  await server?.close();
  await plain?.close();
  await gateway?.close();
  await tg?.close();
});

function raw(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let data = "";
        res.on("data", (c) => {
          data += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("gateway over Streamable HTTP", () => {
  it("serves a session: list, call_tool, and records the session's calls when it ends", async () => {
    const client = new Client({ name: "http-agent", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    await client.connect(transport);
    expect(transport.sessionId).toBeTruthy();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("call_tool");
    await client.callTool({ name: "search_tools", arguments: { intent: "add numbers over http" } });
    const r = await client.callTool({
      name: "call_tool",
      arguments: { name: "everything.get-sum", arguments: { a: 20, b: 22 } },
    });
    expect(r.content).toEqual([{ type: "text", text: "The sum of 20 and 22 is 42." }]);
    await transport.terminateSession();
    await client.close();
    await new Promise((res) => setTimeout(res, 50));
    await gateway.flush();
    const rows = await engineOf(tg)
      .db.selectFrom("executions")
      .select(["intent", "user_id", "step_count"])
      .where("project", "=", "gwh")
      .execute();
    expect(rows).toEqual([{ intent: "add numbers over http", user_id: "http-agent", step_count: 1 }]);
  });

  it("needs the bearer token", async () => {
    expect((await raw(`${base}/mcp`, {}, initialize)).status).toBe(401);
  });

  it("refuses a foreign Origin and a non-loopback Host with 403; accepts the server's own origin", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const foreign = await raw(`${base}/mcp`, { ...auth, origin: "http://evil.example" }, initialize);
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body).error.message).toMatch(/Origin "http:\/\/evil\.example" is not allowed/);
    const rebound = await raw(`${base}/mcp`, { ...auth, host: "evil.example" }, initialize);
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.message).toMatch(/Host "evil\.example" is not a loopback name/);
    const own = await raw(`${base}/mcp`, { ...auth, origin: base }, initialize);
    expect(own.status).toBe(200);
  });

  it("the plain (stateless) MCP endpoint refuses a foreign Origin too", async () => {
    const foreign = await raw(`${plainBase}/mcp`, { origin: "https://attacker.example" }, initialize);
    expect(foreign.status).toBe(403);
    expect((await raw(`${plainBase}/mcp`, {}, initialize)).status).toBe(200);
  });

  it("GET /v1/stats names the upstream servers and which are down", async () => {
    const r = await fetch(`${base}/v1/stats`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
    const body = (await r.json()) as any;
    expect(body.gateway.down).toEqual(["broken"]);
    expect(body.gateway.servers.map((s: any) => [s.server, s.state])).toEqual([
      ["everything", "up"],
      ["broken", "down"],
    ]);
    expect(body.tools).toBeGreaterThan(5);
  });

  it("/health names the servers that are down to a caller with the token, and says only ok or not without it", async () => {
    const r = await fetch(`${base}/health`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ ok: true, gateway: { ok: false, down: ["broken"] } });
    const open = await fetch(`${base}/health`);
    expect(open.status).toBe(200);
    expect((await open.json()).gateway).toEqual({ ok: false });
  });
});
