/**
 * Per-identity policy: the config's `policies` selected by an HTTP bearer token (`tokens`), applied to that
 * session on top of the gateway's policy — in search, plan, next step, the exposed list and call_tool — while
 * a stdio session (or the server's own token) gets the gateway's policy alone. The hostile trust upstream
 * (fixtures/trust-server.mjs) over stdio; the gateway behind the HTTP server, driven by the SDK client.
 */
import { join } from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway, gatewayApi } from "../../src/gateway/gateway.ts";
import { policyApi, SessionPolicy } from "../../src/gateway/session-policy.ts";
import { ToolMask } from "../../src/jobs/tool-mask.ts";
import { type GatewayHttpHandler, gatewayHttpHandler, tokenIdentity } from "../../src/gateway/transports.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createServer, type ToolgraphServer } from "../../src/server/http-server.ts";

const fixture = join(process.cwd(), "test/gateway/fixtures/trust-server.mjs");
const SERVER_TOKEN = "server-token-0123456789";
const READONLY = "readonly-token-0123456789";
const OPS = "ops-token-0123456789abcdef";
const servers = { trust: { command: process.execPath, args: [fixture] } };

describe("config: policies and tokens", () => {
  it("resolves tokens (literal or from the environment) to a named policy and user", () => {
    process.env.TG_TEST_OPS_TOKEN = OPS;
    const c = parseGatewayConfig({
      mcpServers: servers,
      policies: { readonly: { deny: [{ tag: "destructive" }] }, ops: {} },
      tokens: [
        { token: READONLY, policy: "readonly", user: "ana" },
        { tokenEnv: "TG_TEST_OPS_TOKEN", policy: "ops" },
      ],
    });
    expect(c.tokens).toEqual([
      { token: READONLY, policy: "readonly", user: "ana" },
      { token: OPS, policy: "ops" },
    ]);
    expect(tokenIdentity(c.tokens, `Bearer ${OPS}`)?.policy).toBe("ops");
    expect(tokenIdentity(c.tokens, `Bearer ${OPS}x`)).toBeUndefined();
    expect(tokenIdentity(c.tokens, undefined)).toBeUndefined();
  });

  it("names the field of each mistake", () => {
    const policies = { readonly: { deny: [{ tag: "destructive" }] } };
    expect(() =>
      parseGatewayConfig({ mcpServers: servers, policies, tokens: [{ token: READONLY, policy: "nope" }] }),
    ).toThrow(/tokens\[0\]\.policy: names policy "nope"/);
    expect(() =>
      parseGatewayConfig({ mcpServers: servers, policies, tokens: [{ token: "short", policy: "readonly" }] }),
    ).toThrow(/tokens\[0\]\.token: must be at least 16 characters/);
    expect(() => parseGatewayConfig({ mcpServers: servers, policies, tokens: [{ policy: "readonly" }] })).toThrow(
      /tokens\[0\]: give exactly one of token, tokenEnv/,
    );
    expect(() =>
      parseGatewayConfig({
        mcpServers: servers,
        policies,
        tokens: [{ tokenEnv: "TG_TEST_UNSET_TOKEN_VAR", policy: "readonly" }],
      }),
    ).toThrow(/tokens\[0\]\.tokenEnv: environment variable TG_TEST_UNSET_TOKEN_VAR is not set/);
    expect(() =>
      parseGatewayConfig({
        mcpServers: servers,
        policies,
        tokens: [
          { token: READONLY, policy: "readonly" },
          { token: READONLY, policy: "readonly" },
        ],
      }),
    ).toThrow(/tokens\[1\]: repeats a token/);
    expect(() => parseGatewayConfig({ mcpServers: servers, policies: { "bad name": {} } })).toThrow(
      /policies\.bad name: policy name must be/,
    );
    expect(() => parseGatewayConfig({ mcpServers: servers, policies: { p: { deny: [{ server: "other" }] } } })).toThrow(
      /policies\.p: a rule names server "other"/,
    );
  });
});

describe("SessionPolicy", () => {
  const tools = new Map([
    ["fs.read", { name: "read", inputSchema: { type: "object" as const } }],
    ["fs.rm", { name: "rm", inputSchema: { type: "object" as const }, annotations: { destructiveHint: true } }],
  ]);
  const policy = new SessionPolicy(
    "readonly",
    { deny: [{ tag: "destructive" }] },
    {
      toolOf: (id) => tools.get(id),
      allTools: () => [...tools].map(([id, tool]) => ({ id, tool })),
      generation: () => 0,
    },
  );

  it("denies by the listed tool's tags and names the policy", () => {
    expect(policy.denies("fs.read")).toBeUndefined();
    expect(policy.denies("fs.rm")).toBe(
      'denied by the policy "readonly" of this session\'s token (deny rule: tag "destructive")',
    );
    expect(policy.deniedIds()).toEqual(["fs.rm"]);
  });

  it("gives search, next and plan only the denied tools as a mask, leaving their exclude as it was", () => {
    const searched = policy.request("search", { intent: "x", exclude: ["a.b"] }) as Record<string, unknown>;
    expect(searched.exclude).toEqual(["a.b"]);
    const mask = searched.deny as ToolMask;
    expect([...mask.ids()]).toEqual(["fs.rm"]);
    expect(mask.has("fs.read")).toBe(false);
    // One mask per policy and lists' generation (its key is the result cache's).
    expect((policy.request("plan", { intent: "x" }) as { deny: ToolMask }).deny).toBe(mask);
    expect(JSON.stringify({ deny: mask })).toBe(JSON.stringify({ deny: 'tool mask "readonly"@0' }));
    expect(policy.request("stats", { project: "p" })).toEqual({ project: "p" });
  });

  it("filters every array item naming a denied tool, and nothing else", () => {
    const answer = {
      results: [{ tool: "fs.rm" }, { tool: "fs.read" }],
      accepted: ["fs.rm", "fs.read"],
      edges: [{ from: "fs.read", to: "fs.rm" }],
      notes: ["fs.rm is risky"],
    };
    expect(policy.filter(answer)).toEqual({
      results: [{ tool: "fs.read" }],
      accepted: ["fs.read"],
      edges: [],
      notes: ["fs.rm is risky"],
    });
    expect(answer.results).toHaveLength(2);
  });
});

describe("per-token policy through the gateway", () => {
  let tg: Toolgraph;
  let gateway: Gateway;
  let mcp: GatewayHttpHandler;
  let server: ToolgraphServer;
  let base: string;

  beforeAll(async () => {
    tg = await openToolgraph({ home: "memory://", database: "", project: "tokens", embeddings: "hash:256" });
    const config = parseGatewayConfig({
      mcpServers: servers,
      policies: { readonly: { deny: [{ tag: "destructive" }] }, ops: {} },
      tokens: [
        { token: READONLY, policy: "readonly", user: "ana" },
        { token: OPS, policy: "ops" },
      ],
    });
    gateway = new Gateway(tg, { config, expose: 5, log: () => {} });
    await gateway.start();
    mcp = gatewayHttpHandler(gateway, { serverToken: SERVER_TOKEN });
    server = createServer(gatewayApi(tg, gateway), {
      token: SERVER_TOKEN,
      log: () => {},
      mcpHandler: (req, res, body) => mcp.handle(req, res, body),
      mcpTokens: (h) => tokenIdentity(config.tokens, h) !== undefined,
    });
    base = (await server.listen(0, "127.0.0.1")).url;
  }, 180_000);

  afterAll(async () => {
    await mcp?.close();
    await server?.close();
    await gateway?.close();
    await tg?.close();
  });

  async function httpClient(token: string): Promise<Client> {
    const client = new Client({ name: "token-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  const call = (c: Client, name: string, args: Record<string, unknown>) =>
    c.callTool({ name, arguments: args }) as Promise<{
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: any;
    }>;
  const DEPLOY = "deploy the application to production";

  it("a token's policy keeps its denied tools out of search, plan, next, the exposed list and call_tool", {
    timeout: 120_000,
  }, async () => {
    const c = await httpClient(READONLY);
    try {
      const found = await call(c, "search_tools", { intent: DEPLOY, limit: 10 });
      const ids = found.structuredContent.results.map((r: { tool: string }) => r.tool);
      expect(ids).toContain("trust.status");
      expect(ids).not.toContain("trust.deploy");
      expect(JSON.stringify(found.structuredContent)).not.toContain("trust.deploy");
      const plan = await call(c, "plan_workflow", { intent: DEPLOY });
      expect(JSON.stringify(plan.structuredContent ?? {})).not.toContain("trust.deploy");
      const next = await call(c, "suggest_next_tool", { context: ["trust.status"] });
      expect(JSON.stringify(next.structuredContent ?? {})).not.toContain("trust.deploy");
      const refused = await call(c, "call_tool", { name: "trust.deploy", arguments: {} });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain(
        'denied by the policy "readonly" of this session\'s token (deny rule: tag "destructive")',
      );
      expect((await c.listTools()).tools.map((t) => t.name)).not.toContain("trust.deploy");
      expect((await call(c, "call_tool", { name: "trust.status", arguments: { text: "ok" } })).isError ?? false).toBe(
        false,
      );
    } finally {
      await c.close();
    }
  });

  it("another token's policy, the server's token and a stdio session see the tool", { timeout: 120_000 }, async () => {
    for (const token of [OPS, SERVER_TOKEN]) {
      const c = await httpClient(token);
      try {
        const found = await call(c, "search_tools", { intent: DEPLOY, limit: 10 });
        expect(found.structuredContent.results.map((r: { tool: string }) => r.tool)).toContain("trust.deploy");
      } finally {
        await c.close();
      }
    }
    const session = gateway.createSession();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    const local = new Client({ name: "stdio-like", version: "1" });
    await local.connect(b);
    const found = await call(local, "search_tools", { intent: DEPLOY, limit: 10 });
    expect(found.structuredContent.results.map((r: { tool: string }) => r.tool)).toContain("trust.deploy");
    await local.close();
    expect(() => gateway.createSession({ policy: "nope" })).toThrow(
      /policy: no policy "nope" in the gateway config \(policies: readonly, ops\)/,
    );
  });

  it("refuses an unknown token, and a session's requests under another token", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    };
    expect((await post({ authorization: "Bearer not-a-known-token-at-all" }, init)).status).toBe(401);
    const opened = await post({ authorization: `Bearer ${READONLY}` }, init);
    expect(opened.status).toBe(200);
    const sid = opened.headers.get("mcp-session-id")!;
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    const other = await post(
      { authorization: `Bearer ${OPS}`, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" },
      list,
    );
    expect(other.status).toBe(403);
    expect(other.body).toMatch(/opened with another bearer token/);
    expect(
      (
        await post(
          { authorization: `Bearer ${READONLY}`, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" },
          list,
        )
      ).status,
    ).toBe(200);
  });

  it("a 2026-07-28 client gets its token's policy on each request, and 401 without a known token", async () => {
    const modern = async (token: string) => {
      const c = new ModernClient(
        { name: "modern-token-test", version: "1" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await c.connect(
        new ModernHttp(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      return c;
    };
    const c = await modern(READONLY);
    try {
      expect(c.getProtocolEra()).toBe("modern");
      const refused = await c.callTool({ name: "call_tool", arguments: { name: "trust.deploy", arguments: {} } });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0]?.text).toContain(
        'denied by the policy "readonly" of this session\'s token',
      );
      const ok = await c.callTool({
        name: "call_tool",
        arguments: { name: "trust.status", arguments: { text: "ok" } },
      });
      expect(ok.isError ?? false).toBe(false);
    } finally {
      await c.close();
    }
    await expect(modern("not-a-known-token-at-all")).rejects.toThrow();
    const discover = {
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    };
    const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" };
    expect((await post({ ...headers, authorization: "Bearer not-a-known-token-at-all" }, discover)).status).toBe(401);
    expect((await post({ ...headers, authorization: `Bearer ${OPS}` }, discover)).status).toBe(200);
  });

  async function post(
    headers: Record<string, string>,
    body: unknown,
  ): Promise<{ status: number; body: string; headers: Headers }> {
    const r = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: await r.text(), headers: r.headers };
  }
});

describe("a policy that denies more tools than a request may exclude", () => {
  // 1,200 denied tools that match the intent word for word, and 5 allowed ones that match it less: an answer of
  // 5 must be the 5 allowed tools (the only ones there are), whatever the 1,200 score.
  const denied = Array.from({ length: 1200 }, (_, i) => ({
    id: `loud.deploy_${i}`,
    description: "deploy the application to production servers now",
  }));
  const allowed = ["ship", "release", "rollout", "promote", "publish"].map((w) => ({
    id: `calm.${w}`,
    description: `${w} a build of the application`,
  }));
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({ home: "memory://", database: "", project: "mask", embeddings: "hash:256" });
    await tg.importCatalog({ tools: [...denied, ...allowed] });
  }, 180_000);
  afterAll(async () => {
    await tg?.close();
  });

  const allowedIds = allowed.map((t) => t.id).sort();
  const intent = "deploy the application to production";

  it("the scorers skip the mask: the answer still has `limit` items, all allowed", async () => {
    const mask = new ToolMask(
      "test",
      denied.map((t) => t.id),
    );
    const r = await tg.search({ intent, limit: 5, deny: mask });
    expect(r.results.map((x) => x.tool).sort()).toEqual(allowedIds);
    // Without it the denied tools rank first (the case the mask is for).
    const open = await tg.search({ intent, limit: 5 });
    expect(open.results.every((x) => x.tool.startsWith("loud."))).toBe(true);
  });

  it("through a session's policy: search and plan answer from the allowed tools only", async () => {
    const listed = new Map(
      [...denied, ...allowed].map((t) => [t.id, { name: t.id, inputSchema: { type: "object" as const } }]),
    );
    const policy = new SessionPolicy(
      "calm-only",
      { deny: [{ tool: "loud.*" }] },
      {
        toolOf: (id) => listed.get(id),
        allTools: () => [...listed].map(([id, tool]) => ({ id, tool })),
        generation: () => 0,
      },
    );
    expect(policy.deniedIds()).toHaveLength(1200);
    const api = policyApi(tg, policy);
    const r = await api.search({ intent, limit: 5 });
    expect(r.results.map((x) => x.tool).sort()).toEqual(allowedIds);
    const plan = await api.plan({ intent });
    const planned = plan.tools.map((t) => t.tool);
    expect(planned.length).toBeGreaterThan(0);
    expect(planned.every((t) => t.startsWith("calm."))).toBe(true);
  });
});
