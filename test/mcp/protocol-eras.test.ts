/**
 * Both MCP protocol eras at the HTTP door: the SDK's v2 client pinned to 2026-07-28 (in process through the
 * fetch-shaped handler, and over a real `serve` port), the v1 client (2025-11-25) and a raw 2025-06-18
 * exchange on the same port, and raw 2026-07-28 requests whose headers disagree with their body.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createMcpHttpHandler } from "../../src/mcp/http.ts";
import { ERROR_META_KEY, MCP_TOOLS } from "../../src/mcp/mcp-server.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const MODERN = "2026-07-28";
let tg: Toolgraph;
let server: ServerHandle;

function modernClient(): ModernClient {
  return new ModernClient({ name: "modern-test", version: "1" }, { versionNegotiation: { mode: { pin: MODERN } } });
}

/** A 2026-07-28 client on the in-process handler (no socket). */
async function inProcess(project?: string): Promise<ModernClient> {
  const handler = createMcpHttpHandler(tg, project === undefined ? {} : { project });
  const client = modernClient();
  await client.connect(
    new ModernHttp(new URL("http://in-process.test/mcp"), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  return client;
}

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** One raw POST to the real /mcp: the status and the JSON-RPC body (the first SSE event for an SSE answer). */
async function rawPost(
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; json: any; type: string | null }> {
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const type = res.headers.get("content-type");
  const json = type?.startsWith("text/event-stream")
    ? JSON.parse(
        text
          .split("\n")
          .find((l) => l.startsWith("data: "))!
          .slice(6),
      )
    : JSON.parse(text);
  return { status: res.status, json, type };
}

function modernHeaders(method: string, name?: string): Record<string, string> {
  return { "mcp-protocol-version": MODERN, "mcp-method": method, ...(name === undefined ? {} : { "mcp-name": name }) };
}

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "demo", embeddings: "hash:256" });
  await tg.importCatalog(demoCatalog());
  await tg.importTraces(demoTraces(200, 42, NOW));
  server = await startServer({ api: tg, port: 0, log: () => {} });
}, 300_000);

afterAll(async () => {
  await server?.close();
  await tg?.close();
});

describe("2026-07-28 client, in process", () => {
  it("discovers the server, lists every tool and calls one", async () => {
    const client = await inProcess();
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getServerVersion()?.name).toBe("toolgraph");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
      const r = await client.callTool({ name: "search_tools", arguments: { intent: "open a pull request", limit: 2 } });
      expect(r.isError).toBeFalsy();
      expect((r.structuredContent as any).results).toHaveLength(2);
      expect((r.content as any[])[0].text).toContain("results for");
    } finally {
      await client.close();
    }
  });

  it("keeps toolgraph's error object in _meta and the text summary", async () => {
    const client = await inProcess();
    try {
      const bad = await client.callTool({ name: "search_tools", arguments: { intent: "" } });
      expect(bad.isError).toBe(true);
      expect(bad._meta?.[ERROR_META_KEY]).toMatchObject({ code: "invalid-input", field: "intent" });
      expect((bad.content as any[])[0].text).toMatch(/^invalid-input: intent/);
      const unknown = await client.callTool({ name: "no_such_tool", arguments: {} });
      expect(unknown._meta?.[ERROR_META_KEY]).toMatchObject({ code: "unknown-tool", field: "name" });
    } finally {
      await client.close();
    }
  });

  it("binds the project given to the handler", async () => {
    await tg.importCatalog(
      { tools: [{ id: "eras.only", description: "the only tool of the eras project" }] },
      { project: "eras" },
    );
    const client = await inProcess("eras");
    try {
      const r = await client.callTool({ name: "search_tools", arguments: { intent: "tool" } });
      expect((r.structuredContent as any).results.map((x: any) => x.tool)).toEqual(["eras.only"]);
    } finally {
      await client.close();
    }
  });
});

describe("2026-07-28 over a real serve port", () => {
  it("the v2 client connects, lists and calls through /mcp", async () => {
    const client = modernClient();
    await client.connect(new ModernHttp(new URL(`${server.url}/mcp`)));
    try {
      expect(client.getProtocolEra()).toBe("modern");
      const r = await client.callTool({ name: "search_tools", arguments: { intent: "open a pull request", limit: 2 } });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect((r.structuredContent as any).results).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it("server/discover answers the revision and a public cache hint; tools/list is byte-identical for every caller", async () => {
    const discover = await rawPost(
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } },
      modernHeaders("server/discover"),
    );
    expect(discover.status).toBe(200);
    expect(discover.json.result.supportedVersions).toContain(MODERN);
    expect(discover.json.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" });
    const lists = [];
    for (const name of ["one", "two"]) {
      const env = { ...ENVELOPE, "io.modelcontextprotocol/clientInfo": { name, version: "1" } };
      const r = await rawPost(
        { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: env } },
        modernHeaders("tools/list"),
      );
      expect(r.status).toBe(200);
      expect(r.json.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" });
      lists.push(JSON.stringify(r.json.result));
    }
    expect(lists[1]).toBe(lists[0]);
  });

  it("accepts W3C trace context in _meta", async () => {
    const env = {
      ...ENVELOPE,
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      tracestate: "tg=1",
    };
    const r = await rawPost(
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "search_tools", arguments: { intent: "open a pull request", limit: 1 }, _meta: env },
      },
      modernHeaders("tools/call", "search_tools"),
    );
    expect(r.status).toBe(200);
    expect(r.json.result.structuredContent.results).toHaveLength(1);
  });
});

describe("2026-07-28 headers that disagree with the body", () => {
  const listBody = { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: ENVELOPE } };

  it("Mcp-Method naming another method: 400, -32020 (header mismatch)", async () => {
    const r = await rawPost(listBody, modernHeaders("server/discover"));
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32020);
    expect(r.json.id).toBe(7);
  });

  it("Mcp-Name naming another tool: 400, -32020", async () => {
    const body = {
      jsonrpc: "2.0",
      id: 8,
      method: "tools/call",
      params: { name: "search_tools", arguments: { intent: "x" }, _meta: ENVELOPE },
    };
    const r = await rawPost(body, modernHeaders("tools/call", "build_dag"));
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32020);
  });

  it("MCP-Protocol-Version missing: 400, -32020", async () => {
    const r = await rawPost(listBody, { "mcp-method": "tools/list" });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32020);
  });

  it("an unknown revision: 400, -32022 (unsupported protocol version) naming the supported one", async () => {
    const env = { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
    const r = await rawPost(
      { ...listBody, params: { _meta: env } },
      { "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list" },
    );
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32022);
    expect(r.json.error.data.supported).toContain(MODERN);
  });
});

describe("2025 era on the same port", () => {
  it("the v1 client (2025-11-25) lists and calls", async () => {
    const client = new LegacyClient({ name: "legacy-test", version: "1" });
    await client.connect(new LegacyHttp(new URL(`${server.url}/mcp`)));
    try {
      expect(client.getServerVersion()?.name).toBe("toolgraph");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
      const r = (await client.callTool({
        name: "search_tools",
        arguments: { intent: "open a pull request", limit: 1 },
      })) as any;
      expect(r.structuredContent.results).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("a raw 2025-06-18 initialize is answered in that revision as plain JSON, and a call needs no session", async () => {
    const init = await rawPost(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      },
      {},
    );
    expect(init.status).toBe(200);
    expect(init.type).toMatch(/^application\/json/);
    expect(init.json.result.protocolVersion).toBe("2025-06-18");
    const call = await rawPost(
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search_tools", arguments: { intent: "" } } },
      { "mcp-protocol-version": "2025-06-18" },
    );
    expect(call.status).toBe(200);
    expect(call.json.result._meta[ERROR_META_KEY]).toMatchObject({ code: "invalid-input", field: "intent" });
  });
});
