/**
 * The gateway against a hostile upstream (fixtures/hostile-server.mjs, ours: list_changed storms, renames of
 * every tool, huge stderr lines, a secret on stderr, a first start that fails), driven by the official SDK
 * client in memory and over Streamable HTTP: storms coalesce into at most 2 re-lists, renamed tools past the
 * grace period leave search, the console and the stored vectors (stats still count them), log lines are bounded, a failed
 * attempt counts once, HTTP sessions expire and are capped, /health without the token says only ok, the
 * project header is refused when it names another project, and a search before any upstream has listed its
 * tools says which servers are pending.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway, type GatewaySession, gatewayApi } from "../../src/gateway/gateway.ts";
import { type GatewayHttpHandler, gatewayHealth, gatewayHttpHandler } from "../../src/gateway/transports.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createServer, type ToolgraphServer } from "../../src/server/http-server.ts";
import { graphView } from "../../src/view/graph-view.ts";

const fixture = fileURLToPath(new URL("./fixtures/hostile-server.mjs", import.meta.url));
const TOKEN = "churn-token";
const SECRET = "sk-live-0123456789abcdef";
let dir: string;
let tg: Toolgraph;
let gateway: Gateway;
let mcp: GatewayHttpHandler;
let server: ToolgraphServer;
let base: string;
let agent: { client: Client; session: GatewaySession };
const logged: string[] = [];

async function waitFor<T>(
  what: string,
  f: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function connect(g: Gateway, name = "churn-agent"): Promise<{ client: Client; session: GatewaySession }> {
  const session = g.createSession();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await session.server.connect(a);
  const client = new Client({ name, version: "1" });
  await client.connect(b);
  return { client, session };
}

const text = (r: any): string => r.content.map((x: any) => x.text ?? "").join("\n");
const status = (g: Gateway, server: string) => g.status().servers.find((s) => s.server === server)!;
const counts = async (c: Client, server = "hostile") =>
  JSON.parse(text(await c.callTool({ name: "call_tool", arguments: { name: `${server}.counts` } }))) as {
    lists: number;
    generation: number;
  };

function raw(
  headers: Record<string, string>,
  body: unknown,
  method = "POST",
  path = "/mcp",
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path,
        method,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let data = "";
        res.on("data", (c) => {
          data += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tg-churn-"));
  tg = await openToolgraph({ home: "memory://", database: "", project: "churn", embeddings: "hash:256" });
  const config = parseGatewayConfig({
    mcpServers: {
      hostile: { command: process.execPath, args: [fixture] },
      loud: { command: process.execPath, args: [fixture], env: { HOSTILE_TOOLS: "1" } },
      broken: { command: process.execPath, args: ["-e", "process.exit(2)"] },
    },
  });
  gateway = new Gateway(tg, {
    config,
    minBackoffMs: 600_000,
    maxBackoffMs: 600_000,
    retireAfterMs: 300,
    log: (l) => logged.push(l),
  });
  await gateway.start();
  mcp = gatewayHttpHandler(gateway, { sessionIdleMs: 500, maxSessions: 3 });
  server = createServer(gatewayApi(tg, gateway), {
    token: TOKEN,
    log: () => {},
    mcpHandler: (req, res, body, project) => mcp.handle(req, res, body, project),
    healthExtra: gatewayHealth(gateway),
  });
  base = (await server.listen(0, "127.0.0.1")).url;
  agent = await connect(gateway);
}, 180_000);

afterAll(async () => {
  await agent?.client.close();
  await mcp?.close();
  await server?.close();
  await gateway?.close();
  await tg?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("upstream churn", () => {
  it("a failed start counts one attempt (the backoff doubles once per attempt)", () => {
    expect(status(gateway, "broken")).toMatchObject({ state: "down", attempts: 1 });
  });

  it("20 tools/list_changed notifications cause at most 2 re-lists, in a burst and spread over a second", async () => {
    for (const everyMs of [0, 50]) {
      const before = await counts(agent.client);
      const seen = status(gateway, "hostile").listChanged;
      await agent.client.callTool({
        name: "call_tool",
        arguments: { name: "hostile.storm", arguments: { count: 20, everyMs } },
      });
      await waitFor("the notifications", () => status(gateway, "hostile").listChanged === seen + 20);
      await waitFor("the re-lists to settle", () => !status(gateway, "hostile").relisting);
      await gateway.flush();
      const after = await counts(agent.client);
      expect(after.lists - before.lists).toBeGreaterThanOrEqual(1);
      expect(after.lists - before.lists).toBeLessThanOrEqual(2);
    }
    expect(status(gateway, "hostile").relists).toBeLessThanOrEqual(4);
  });

  it("renamed tools leave search and the console after the grace period; stats count them; the read model stays bounded", async () => {
    const ids = async () =>
      (await graphView(engineOf(tg), "churn")).nodes.map((n) => n.id).filter((id) => id.startsWith("hostile."));
    expect((await ids()).filter((id) => id.startsWith("hostile.g0_"))).toHaveLength(30);
    for (const gen of [1, 2]) {
      await agent.client.callTool({ name: "call_tool", arguments: { name: "hostile.rename" } });
      await waitFor(`generation ${gen} retired`, async () => ((await tg.stats()) as any).retiredTools === 30 * gen);
      await gateway.flush();
      // Stored vectors: only the read model's tools keep theirs (35 of hostile, 6 of loud).
      expect(((await tg.stats()) as any).embeddings).toBe(41);
      const nodes = await ids();
      // 5 control tools and the current generation: the old names are gone from the console's graph.
      expect(nodes).toHaveLength(35);
      expect(nodes.filter((id) => /^hostile\.g\d+_/.test(id)).every((id) => id.startsWith(`hostile.g${gen}_`))).toBe(
        true,
      );
      const found = (await agent.client.callTool({
        name: "search_tools",
        arguments: { intent: `generation ${gen - 1} tool number 7 converts quarterly widget reports`, limit: 50 },
      })) as any;
      const tools = (found.structuredContent.results as { tool: string }[]).map((r) => r.tool);
      expect(tools.some((t) => t.startsWith(`hostile.g${gen}_`))).toBe(true);
      expect(tools.filter((t) => /^hostile\.g\d+_/.test(t) && !t.startsWith(`hostile.g${gen}_`))).toEqual([]);
    }
    const st = (await tg.stats()) as any;
    // History kept: every tool ever listed is still a row, the retired ones counted.
    expect([st.tools, st.unavailableTools, st.retiredTools]).toEqual([5 + 30 * 3 + 6, 60, 60]);
  });

  it("bounds log lines and stderr lines: an 80,000-character stderr line is cut with a marker", async () => {
    await agent.client.callTool({ name: "call_tool", arguments: { name: "loud.shout", arguments: { chars: 80_000 } } });
    await agent.client.callTool({ name: "call_tool", arguments: { name: "loud.crash", arguments: { chars: 80_000 } } });
    await waitFor("loud down", () => status(gateway, "loud").state === "down");
    expect(status(gateway, "loud").attempts).toBe(1);
    const down = logged.filter((l) => l.includes("loud is down"));
    expect(down).toHaveLength(1);
    expect(down[0]).toMatch(/more characters cut\]/);
    expect(Math.max(...logged.map((l) => l.length))).toBeLessThanOrEqual(2_000 + 40);
    expect(status(gateway, "loud").error!.length).toBeLessThan(2_000);
  });
});

describe("the gateway's HTTP door", () => {
  it("/health without the token says only ok or not; with it, the servers", async () => {
    const open = await raw({}, undefined, "GET", "/health");
    expect(open.status).toBe(200);
    const body = JSON.parse(open.body);
    expect(body.gateway).toEqual({ ok: false });
    expect(open.body).not.toContain(SECRET);
    expect(open.body).not.toMatch(/pid|stderr|hostile|broken/);
    const full = JSON.parse((await raw(auth, undefined, "GET", "/health")).body);
    expect(full.gateway.down).toEqual(["loud", "broken"]);
    expect(full.gateway.servers.find((s: any) => s.server === "hostile").pid).toBeGreaterThan(0);
  });

  it("honours x-toolgraph-project naming the gateway's project and refuses another with 400", async () => {
    const other = await raw({ ...auth, "x-toolgraph-project": "elsewhere" }, initialize);
    expect(other.status).toBe(400);
    expect(JSON.parse(other.body).error.message).toMatch(
      /x-toolgraph-project: this gateway serves project "churn" only.*got "elsewhere"/,
    );
    const same = await raw({ ...auth, "x-toolgraph-project": "churn" }, initialize);
    expect(same.status).toBe(200);
    expect(same.headers["mcp-session-id"]).toBeTruthy();
  });

  it("caps the HTTP sessions and ends those idle past the limit", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await raw(auth, initialize);
      expect(r.status).toBe(200);
      ids.push(String(r.headers["mcp-session-id"]));
    }
    expect(mcp.size).toBeLessThanOrEqual(3);
    // The newest one is open; the first (least recently used) was ended at the cap.
    expect((await raw({ ...auth, "mcp-session-id": ids[0]! }, { jsonrpc: "2.0", id: 2, method: "ping" })).status).toBe(
      404,
    );
    await waitFor("idle sessions ended", () => mcp.size === 0);
    expect((await raw({ ...auth, "mcp-session-id": ids[4]! }, { jsonrpc: "2.0", id: 2, method: "ping" })).status).toBe(
      404,
    );
    // Only the in-memory agent's session is left in the gateway's count.
    expect(gateway.status().sessions).toBe(1);
  });

  it("keeps the session of an SDK client holding its event stream open, and ends it once the client is gone", async () => {
    const client = new Client({ name: "http-agent", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: auth } });
    await client.connect(transport);
    const sid = transport.sessionId!;
    await waitFor("its event stream", () => mcp.size === 1);
    // Several idle limits later (checked by the sweep itself, not by the clock here) it still answers.
    for (let i = 0; i < 3; i++) await mcp.sweep();
    await new Promise((r) => setTimeout(r, 1_200));
    expect(await mcp.sweep()).toBe(0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("call_tool");
    await client.close();
    await waitFor("its session ended", () => mcp.size === 0);
    expect((await raw({ ...auth, "mcp-session-id": sid }, { jsonrpc: "2.0", id: 2, method: "ping" })).status).toBe(404);
  });

  it("at the cap, a new session ends one whose client only holds its event stream open (no 503)", async () => {
    const clients: Client[] = [];
    for (let i = 0; i < 3; i++) {
      const c = new Client({ name: `streaming-${i}`, version: "1" });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: auth } }));
      await c.listTools();
      clients.push(c);
    }
    expect(mcp.size).toBe(3);
    const r = await raw(auth, initialize);
    expect(r.status).toBe(200);
    expect(mcp.size).toBe(3);
    for (const c of clients) await c.close().catch(() => undefined);
    await waitFor("the sessions ended", () => mcp.size === 0);
  });
});

describe("a search before any upstream has listed its tools", () => {
  it("says the catalog is still loading and which server is pending, then finds the tools once listed", async () => {
    const tg2 = await openToolgraph({ home: "memory://", database: "", project: "loading", embeddings: "hash:256" });
    const config = parseGatewayConfig({
      mcpServers: {
        // Its first connection attempt fails: two starts, as the client's 2026-07-28 probe runs on a sibling process.
        slowstart: {
          command: process.execPath,
          args: [fixture],
          env: { HOSTILE_FAIL_STARTS: `${join(dir, "failed-starts")}:2` },
        },
      },
    });
    const g = new Gateway(tg2, { config, minBackoffMs: 3_000, log: () => {} });
    try {
      await g.start();
      expect(status(g, "slowstart")).toMatchObject({ state: "down", attempts: 1, listed: false });
      const { client } = await connect(g, "early-agent");
      const early = (await client.callTool({
        name: "search_tools",
        arguments: { intent: "converts quarterly widget reports" },
      })) as any;
      expect(early.isError).toBe(true);
      expect(text(early)).toMatch(
        /^catalog-loading: the gateway's catalog is still loading.*pending: slowstart \(down: failed to start/,
      );
      expect(text(early)).not.toMatch(/toolgraph import|toolgraph demo/);
      // The retry lists the tools; the same search then finds them.
      const found = await waitFor("the tools searchable", async () => {
        const r = (await client.callTool({
          name: "search_tools",
          arguments: { intent: "converts quarterly widget reports" },
        })) as any;
        return r.isError ? undefined : r;
      });
      expect(
        (found.structuredContent.results as { tool: string }[]).some((r) => r.tool.startsWith("slowstart.g0_tool_")),
      ).toBe(true);
      await client.close();
    } finally {
      await g.close();
      await tg2.close();
    }
  }, 60_000);
});
