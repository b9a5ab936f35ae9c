/**
 * The HTTP front door through a real server on an ephemeral loopback port, over a real database (see `backend`)
 * with the demo catalog and traces imported through the server itself.
 */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createServer, runServer, type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { ROUTES } from "../../src/server/routes.ts";
import { backends } from "../helpers/backends.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const TOKEN = "test-token-1234";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_HEADERS = { ...AUTH, "content-type": "application/json" };
const DECISIONS = ["accepted", "accepted-with-caution", "abstained"];

/** The PostgreSQL server when there is one (its own schema, opened in ms), else PGlite in memory (an initdb: tens of seconds on a busy machine). */
const backend = backends().at(-1)!;
let tg: Toolgraph;
let server: ServerHandle;
let base: string;

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { ...JSON_HEADERS, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: res.headers };
}

async function get(
  path: string,
  headers: Record<string, string> = AUTH,
): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(base + path, { headers });
  return { status: res.status, json: await res.json(), headers: res.headers };
}

function jsonl(records: unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join("\n");
}

function expectGatedItems(items: any[]): void {
  expect(items.length).toBeGreaterThan(0);
  for (const item of items) {
    expect(typeof item.explanation).toBe("string");
    expect(item.explanation.length).toBeGreaterThan(0);
    expect(DECISIONS).toContain(item.gate.decision);
    expect(typeof item.gate.threshold).toBe("number");
  }
}

beforeAll(async () => {
  tg = await openToolgraph({ ...(await backend.options()), project: "demo", embeddings: "hash:256" });
  server = await startServer({ api: tg, port: 0, token: TOKEN, log: () => {} });
  base = server.url;
  const cat = await post("/v1/import/catalog", demoCatalog());
  expect(cat.status).toBe(200);
  const traces = await fetch(`${base}/v1/import/traces`, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/x-ndjson" },
    body: jsonl(demoTraces(300, 42, NOW)),
  });
  expect(traces.status).toBe(200);
});

afterAll(async () => {
  await server?.close();
  await tg?.close();
  await backend.dispose();
});

describe("listening", () => {
  it("binds 127.0.0.1 by default", () => {
    expect(server.host).toBe("127.0.0.1");
    expect(server.port).toBeGreaterThan(0);
  });
});

describe("imports through HTTP", () => {
  it("imported the demo catalog and traces", async () => {
    const r = await get("/v1/stats");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ project: "demo", backend: backend.name, tools: 41, capabilities: 10 });
    expect(Number(r.json.executions)).toBeGreaterThanOrEqual(300);
  });

  it("imports traces sent as a JSON array", async () => {
    const r = await post("/v1/import/traces", demoTraces(5, 7, NOW));
    expect(r.status).toBe(200);
    expect(r.json.inserted).toBe(5);
    const again = await post("/v1/import/traces", demoTraces(5, 7, NOW));
    expect(again.json).toMatchObject({ inserted: 0, skippedExisting: 5 });
  });

  it("imports declared edges as JSONL", async () => {
    const res = await fetch(`${base}/v1/import/edges`, {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/x-ndjson" },
      body: jsonl([{ from: "ci.build", to: "ci.deploy", type: "dependency", source: "declared" }]),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).edges).toBe(1);
  });

  it("imports declared edges sent as a JSON array", async () => {
    const r = await post("/v1/import/edges", [{ from: "db.backup", to: "db.migrate", type: "dependency" }]);
    expect(r.status).toBe(200);
    expect(r.json.edges).toBe(1);
  });

  it("skips invalid trace lines with ?skipInvalid=true and reports them", async () => {
    const good = demoTraces(1, 99, NOW)[0]!;
    const body = `${JSON.stringify(good)}\n{"id": "broken"\n`;
    const res = await fetch(`${base}/v1/import/traces?skipInvalid=true`, {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/x-ndjson" },
      body,
    });
    const json = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(json.inserted).toBe(1);
    expect(json.invalid[0].line).toBe(2);
  });
});

describe("recommendation endpoints", () => {
  it("POST /v1/search ranks tools with gate fields and explanations", async () => {
    const r = await post("/v1/search", { intent: "open a pull request", limit: 5 });
    expect(r.status).toBe(200);
    expect(r.json.project).toBe("demo");
    expect(r.json.results).toHaveLength(5);
    expectGatedItems(r.json.results);
    expect(r.json.results.map((x: any) => x.tool)).toContain("github.create_pull_request");
    expect(Array.isArray(r.json.accepted)).toBe(true);
  });

  it("POST /v1/next suggests tools after a context", async () => {
    const r = await post("/v1/next", { context: ["git.status", "git.diff"], limit: 3 });
    expect(r.status).toBe(200);
    expect(r.json.suggestions.length).toBeLessThanOrEqual(3);
    expectGatedItems(r.json.suggestions);
    expect(r.json.suggestions.map((x: any) => x.tool)).not.toContain("git.diff");
  });

  it("POST /v1/capabilities/match returns gated capabilities", async () => {
    const r = await post("/v1/capabilities/match", { intent: "ship my change for review", limit: 3 });
    expect(r.status).toBe(200);
    expect(typeof r.json).toBe("object");
    expect(JSON.stringify(r.json)).toContain("ship-change");
  });

  it("POST /v1/capabilities/discover answers for a context", async () => {
    const r = await post("/v1/capabilities/discover", { context: ["git.commit", "git.push"] });
    expect(r.status).toBe(200);
    expect(typeof r.json).toBe("object");
  });

  it("POST /v1/dag orders tools", async () => {
    const r = await post("/v1/dag", { tools: ["github.create_pull_request", "git.commit", "git.push"] });
    expect(r.status).toBe(200);
    const text = JSON.stringify(r.json);
    for (const t of ["github.create_pull_request", "git.commit", "git.push"]) expect(text).toContain(t);
  });

  it("POST /v1/plan plans a workflow for an intent", async () => {
    const r = await post("/v1/plan", { intent: "commit and push this fix then open a PR" });
    expect(r.status).toBe(200);
    expect(typeof r.json).toBe("object");
  });

  it("DAG and plan reasons name tools, never internal indices", async () => {
    const dag = await post("/v1/dag", { tools: ["git.diff", "git.commit", "git.push", "ci.run_tests"] });
    const plan = await post("/v1/plan", { intent: "commit and push this fix then open a PR" });
    for (const r of [dag, plan]) {
      expect(r.status).toBe(200);
      const reasons: string[] = r.json.nodes.map((n: { reason: string }) => n.reason);
      expect(reasons.some((x) => /runs after|required by/.test(x))).toBe(true);
      for (const x of reasons) expect(x).not.toMatch(/(runs after|required by|edges from) \d/);
    }
    const commit = dag.json.nodes.find((n: { tool: string }) => n.tool === "git.commit");
    expect(commit.reason).toBe("layer 1: runs after git.diff");
  });

  it("POST /v1/alternatives lists replacements", async () => {
    const r = await post("/v1/alternatives", { tool: "web.search", limit: 3 });
    expect(r.status).toBe(200);
    expect(r.json.results.length).toBeGreaterThan(0);
    expectGatedItems(r.json.results);
    expect(r.json.results.map((x: any) => x.tool)).not.toContain("web.search");
  });

  it("POST /v1/executions records one execution, idempotently", async () => {
    const before = await get("/v1/stats");
    const ex = {
      id: "http-exec-1",
      user: "ana",
      startedAt: "2026-10-30T10:00:00Z",
      success: true,
      steps: [{ tool: "git.status" }, { tool: "git.diff" }],
    };
    const r = await post("/v1/executions", ex);
    expect(r.status).toBe(200);
    expect(r.json.inserted).toBe(1);
    const again = await post("/v1/executions", ex);
    expect(again.json).toMatchObject({ inserted: 0, skippedExisting: 1 });
    const after = await get("/v1/stats");
    expect(Number(after.json.executions)).toBe(Number(before.json.executions) + 1);
  });
});

describe("project isolation", () => {
  it("a second project named by the header sees nothing", async () => {
    const stats = await get("/v1/stats", { ...AUTH, "x-toolgraph-project": "other" });
    expect(stats.json).toMatchObject({ project: "other", tools: 0, executions: 0 });
    const r = await post("/v1/search", { intent: "open a pull request" }, { "x-toolgraph-project": "other" });
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("empty-project");
  });

  it("GET takes ?project=", async () => {
    const r = await get("/v1/stats?project=third");
    expect(r.json).toMatchObject({ project: "third", tools: 0 });
  });

  it("a write to one project is invisible to another", async () => {
    const cat = { tools: [{ id: "solo.tool", description: "the only tool of the isolated project" }] };
    expect((await post("/v1/import/catalog", { ...cat, project: "iso" })).status).toBe(200);
    const iso = await get("/v1/stats", { ...AUTH, "x-toolgraph-project": "iso" });
    expect(iso.json.tools).toBe(1);
    const demo = await get("/v1/stats");
    expect(demo.json.tools).toBe(41);
    const r = await post("/v1/search", { intent: "tool", project: "iso" });
    expect(r.json.results.map((x: any) => x.tool)).toEqual(["solo.tool"]);
  });

  it("rejects a body project that disagrees with the header", async () => {
    const r = await post("/v1/search", { intent: "x", project: "a" }, { "x-toolgraph-project": "b" });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("project");
  });

  it("rejects an invalid project name", async () => {
    const r = await post("/v1/search", { intent: "x", project: "" });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("project");
  });
});

describe("bad input", () => {
  it("malformed JSON is 400", async () => {
    const r = await post("/v1/search", '{"intent": "x",');
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: "invalid-input", field: "" });
    expect(r.json.error.message).toMatch(/malformed JSON/);
  });

  it("an empty body is 400", async () => {
    const r = await post("/v1/search", "");
    expect(r.status).toBe(400);
    expect(r.json.error.message).toMatch(/empty body/);
  });

  it("a missing field is 400 naming it", async () => {
    const r = await post("/v1/search", { limit: 3 });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("intent");
  });

  it("a wrong type is 400 naming the field", async () => {
    const r = await post("/v1/search", { intent: "x", limit: "five" });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("limit");
  });

  it("a nested wrong type names the path", async () => {
    const r = await post("/v1/next", { context: ["git.status", 7] });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("context[1]");
  });

  it("an unknown field is 400 naming it", async () => {
    const r = await post("/v1/search", { intent: "x", colour: "red" });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("colour");
  });

  it("a body that is not an object is 400", async () => {
    const r = await post("/v1/search", [1, 2]);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("invalid-input");
  });

  it("an unknown tool in the context is 400 naming the field", async () => {
    const r = await post("/v1/search", { intent: "x", context: ["git.status", "no.such.tool"] });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: "unknown-tool", field: "context[1]" });
  });

  it("an unknown tool in a recorded execution is 400 naming the step", async () => {
    const r = await post("/v1/executions", {
      id: "bad-1",
      startedAt: "2026-10-30T10:00:00Z",
      success: true,
      steps: [{ tool: "no.such.tool" }],
    });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("steps[0].tool");
  });

  it("an execution with a bad date is 400 naming the field", async () => {
    const r = await post("/v1/executions", {
      id: "bad-2",
      startedAt: "yesterday-ish",
      success: true,
      steps: [{ tool: "git.status" }],
    });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("startedAt");
  });

  it("a bad trace line is 400 with its line and nothing written", async () => {
    const before = await get("/v1/stats");
    const good = demoTraces(1, 1234, NOW)[0]!;
    const res = await fetch(`${base}/v1/import/traces`, {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/x-ndjson" },
      body: `${JSON.stringify(good)}\n${JSON.stringify({ ...good, id: "x2", success: "yes" })}\n`,
    });
    const json = (await res.json()) as any;
    expect(res.status).toBe(400);
    expect(json.error.field).toBe("success");
    expect(json.error.details[0].line).toBe(2);
    expect((await get("/v1/stats")).json.executions).toBe(before.json.executions);
  });

  it("a bad catalog is 400 naming the field", async () => {
    const r = await post("/v1/import/catalog", { tools: [{ id: "" }] });
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("tools[0].id");
  });

  it("a traces JSON body that is not an array is 400", async () => {
    const r = await post("/v1/import/traces", { id: "x" });
    expect(r.status).toBe(400);
  });

  it("a bad query flag is 400 naming it", async () => {
    const r = await post("/v1/import/traces?skipInvalid=maybe", []);
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("skipInvalid");
  });

  it("a body over the limit is 413", async () => {
    const big = JSON.stringify({ intent: "x".repeat(10 * 1024 * 1024) });
    const r = await post("/v1/search", big);
    expect(r.status).toBe(413);
    expect(r.json.error.code).toBe("payload-too-large");
  });

  it("an unknown path is 404", async () => {
    const r = await get("/v1/nothing-here");
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("not-found");
  });

  it("a wrong method is 405 with Allow", async () => {
    const r = await get("/v1/search");
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("POST");
    const s = await post("/v1/stats", {});
    expect(s.status).toBe(405);
    expect(s.headers.get("allow")).toBe("GET");
  });

  it("a non-JSON content type on a JSON endpoint is 415", async () => {
    const r = await post("/v1/search", "intent=x", { "content-type": "text/plain" });
    expect(r.status).toBe(415);
    expect(r.json.error.code).toBe("unsupported-media-type");
  });

  it("a missing content type is 415", async () => {
    const res = await fetch(`${base}/v1/search`, { method: "POST", headers: AUTH, body: new Uint8Array([123, 125]) });
    expect(res.status).toBe(415);
  });

  it("NDJSON on a JSON-only endpoint is 415", async () => {
    const r = await post("/v1/search", '{"intent":"x"}', { "content-type": "application/x-ndjson" });
    expect(r.status).toBe(415);
  });
});

describe("token", () => {
  it("401 without a token", async () => {
    const res = await fetch(`${base}/v1/stats`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(((await res.json()) as any).error.code).toBe("unauthorized");
  });

  it("401 with a wrong token", async () => {
    const res = await fetch(`${base}/v1/stats`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(res.status).toBe(401);
  });

  it("401 with a non-bearer scheme", async () => {
    const res = await fetch(`${base}/v1/stats`, { headers: { authorization: `Basic ${TOKEN}` } });
    expect(res.status).toBe(401);
  });

  it("401 before 404 (paths are not revealed)", async () => {
    const res = await fetch(`${base}/v1/nothing-here`);
    expect(res.status).toBe(401);
  });

  it("200 with the token", async () => {
    expect((await get("/v1/stats")).status).toBe(200);
  });

  it("/health is open and, without the token, says ok and nothing more", async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(await (await fetch(`${base}/health`, { headers: AUTH })).json()).toEqual({
      ok: true,
      backend: backend.name,
    });
  });

  it("/health?details=1 needs the token and then adds the project's counts", async () => {
    const open = await fetch(`${base}/health?details=1`);
    expect(open.status).toBe(401);
    const res = await fetch(`${base}/health?details=1`, { headers: AUTH });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: true, backend: backend.name, project: "demo" });
    expect(body.tools).toBe((await get("/v1/stats")).json.tools);
  });
});

describe("OpenAPI document", () => {
  it("lists every path with its method, body schema, errors and bearer security", async () => {
    const r = await get("/openapi.json");
    expect(r.status).toBe(200);
    const doc = r.json;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const route of ROUTES) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op.responses["401"]).toBeDefined();
      if (route.method === "POST") {
        expect(op.responses["400"]).toBeDefined();
        expect(op.responses["413"]).toBeDefined();
        expect(op.responses["415"]).toBeDefined();
        expect(op.requestBody.content["application/json"].schema).toBeDefined();
      }
    }
    for (const p of ["/health", "/openapi.json", "/mcp"]) expect(doc.paths[p]).toBeDefined();
    expect(doc.paths["/health"].get.security).toEqual([]);
  });

  it("the search body schema comes from the zod request schema", async () => {
    const doc = (await get("/openapi.json")).json;
    const schema = doc.paths["/v1/search"].post.requestBody.content["application/json"].schema;
    expect(schema.required).toEqual(["intent"]);
    expect(schema.properties.intent).toMatchObject({ type: "string", minLength: 1, maxLength: 4000 });
    expect(schema.properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.project.type).toBe("string");
  });

  it("dates in the execution schema are date-time strings", async () => {
    const doc = (await get("/openapi.json")).json;
    const schema = doc.paths["/v1/executions"].post.requestBody.content["application/json"].schema;
    expect(JSON.stringify(schema.properties.startedAt)).toContain("date-time");
    expect(doc.paths["/v1/import/traces"].post.requestBody.content["application/x-ndjson"]).toBeDefined();
  });
});

describe("MCP over Streamable HTTP at /mcp", () => {
  it("lists and calls tools behind the token", async () => {
    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: AUTH } }));
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("search_tools");
    const r = (await client.callTool({
      name: "search_tools",
      arguments: { intent: "open a pull request", limit: 3 },
    })) as any;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.results).toHaveLength(3);
    await client.close();
  });

  it("takes the project from the header", async () => {
    const cat = { tools: [{ id: "mcp.only", description: "the only tool of the MCP project" }] };
    expect((await post("/v1/import/catalog", cat, { "x-toolgraph-project": "mcp-iso" })).status).toBe(200);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { ...AUTH, "x-toolgraph-project": "mcp-iso" } },
      }),
    );
    const r = (await client.callTool({ name: "search_tools", arguments: { intent: "tool" } })) as any;
    expect(r.structuredContent.results.map((x: any) => x.tool)).toEqual(["mcp.only"]);
    await client.close();
  });

  it("is 401 without the token", async () => {
    const res = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(401);
  });

  it("is 405 for GET (stateless)", async () => {
    const res = await fetch(`${base}/mcp`, { headers: AUTH });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("answers malformed JSON with a JSON-RPC parse error", async () => {
    const res = await fetch(`${base}/mcp`, { method: "POST", headers: JSON_HEADERS, body: "{" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe(-32700);
  });
});

describe("graceful shutdown", () => {
  it("lets an in-flight import finish, then stops accepting", async () => {
    // Generous bound: the import must finish even on a loaded machine; the bound itself is tested below.
    const s = createServer(tg, { token: "", log: () => {}, shutdownTimeoutMs: 55_000 });
    const addr = await s.listen(0);
    const traces = demoTraces(1500, 5150, NOW).map((e, i) => ({ ...e, id: `shutdown-${i}` }));
    // Close as soon as the server has the request (its own listener ran first, so it is in flight).
    let closed: Promise<void> | undefined;
    s.server.once("request", () => {
      closed = s.close();
    });
    const res = await fetch(`${addr.url}/v1/import/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson" },
      body: jsonl(traces),
    });
    expect(closed).toBeDefined();
    expect(res.status).toBe(200);
    expect(res.headers.get("connection")).toBe("close");
    expect(((await res.json()) as any).inserted).toBe(1500);
    await closed;
    expect(s.server.listening).toBe(false);
    await expect(fetch(`${addr.url}/health`)).rejects.toThrow();
    const stats = await tg.stats();
    expect(Number(stats.executions)).toBeGreaterThanOrEqual(1800);
  });

  it("drops a request still running after the bounded wait", async () => {
    const lines: string[] = [];
    const s = createServer(tg, { token: "", log: (l) => lines.push(l), shutdownTimeoutMs: 200 });
    const addr = await s.listen(0);
    // A client that announces a body and never finishes sending it.
    const req = request(`${addr.url}/v1/search`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": "1000" },
    });
    const failed = new Promise<Error>((resolve) => req.on("error", resolve));
    const arrived = new Promise((resolve) => s.server.once("request", resolve));
    req.write('{"intent":');
    await arrived;
    await s.close();
    expect(s.server.listening).toBe(false);
    expect((await failed).message).toMatch(/socket hang up|ECONNRESET/);
    expect(lines.join("\n")).toContain("still running after 200 ms");
  });

  it("close() is idempotent and works on a server that never listened", async () => {
    const s = createServer(tg, { token: "" });
    await s.close();
    await s.close();
    expect(s.server.listening).toBe(false);
  });

  it("runServer shuts down on a signal and can leave the api open", async () => {
    let url = "";
    const done = runServer({
      api: tg,
      port: 0,
      token: "",
      signals: ["SIGUSR2"],
      closeApi: false,
      log: () => {},
      onListening: (a) => (url = a.url),
    });
    while (url === "") await new Promise((r) => setImmediate(r));
    expect((await fetch(`${url}/health`)).status).toBe(200);
    process.emit("SIGUSR2", "SIGUSR2");
    await done;
    await expect(fetch(`${url}/health`)).rejects.toThrow();
    expect(process.listenerCount("SIGUSR2")).toBe(0);
    expect((await tg.stats()).project).toBe("demo");
  });
});
