/**
 * Each request is validated once, whichever door it comes through, and a bad field reads the
 * same on every door (`steps[0].tool`, never `steps.0.tool`). The count is taken on the schema itself: every
 * zod parse (safeParse, parse, the MCP SDK's safeParseAsync) runs the schema's `_zod.run` once at the top.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { z } from "zod";
import { main } from "../../src/cli/main.ts";
import { searchRequest } from "../../src/contract/requests.ts";
import { executionSchema } from "../../src/formats/schemas.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { executionArgs } from "../../src/mcp/execution-input.ts";
import { createMcpServer, ERROR_META_KEY } from "../../src/mcp/mcp-server.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { freshTarget } from "../cli/harness.ts";

vi.setConfig({ testTimeout: 120_000 });

const NOW = Date.parse("2026-11-01T12:00:00Z");
const TOKEN = "validate-once-token";
let tg: Toolgraph;
let server: ServerHandle;
let mcp: Client;

/** Counts the top-level parses of `schema` while `fn` runs. */
async function parsesOf(schema: z.ZodType, fn: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(schema._zod, "run");
  try {
    await fn();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(server.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const call = (name: string, args: Record<string, unknown>): Promise<any> => mcp.callTool({ name, arguments: args });

async function libraryError(fn: () => Promise<unknown>): Promise<{ message: string; field: string | undefined }> {
  const err = (await fn().then(
    () => undefined,
    (e: unknown) => e,
  )) as { message: string; details?: { field?: string }; errors?: { field: string }[] } | undefined;
  expect(err).toBeDefined();
  return { message: err!.message, field: err!.details?.field ?? err!.errors?.[0]?.field };
}

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", embeddings: "hash:256", now: () => NOW });
  await tg.importCatalog({
    tools: [
      { id: "a", description: "read a file" },
      { id: "b", description: "write a file" },
    ],
  });
  server = await startServer({ api: tg, port: 0, token: TOKEN, log: () => {}, warmUp: false });
  const mcpServer = createMcpServer(tg);
  const [x, y] = InMemoryTransport.createLinkedPair();
  await mcpServer.connect(x);
  mcp = new Client({ name: "validate-once", version: "1" });
  await mcp.connect(y);
});

afterAll(async () => {
  await mcp?.close();
  await server?.close();
  await tg?.close();
});

describe("one validation per request", () => {
  it("search: the request schema runs once through the library, HTTP and MCP", async () => {
    const req = { intent: "read a file", limit: 1 };
    expect(await parsesOf(searchRequest, () => tg.search(req))).toBe(1);
    expect(
      await parsesOf(searchRequest, async () =>
        expect((await post("/v1/search", { ...req, limit: 2 })).status).toBe(200),
      ),
    ).toBe(1);
    expect(
      await parsesOf(searchRequest, async () =>
        expect((await call("search_tools", { ...req, limit: 3 })).isError).toBeFalsy(),
      ),
    ).toBe(1);
  });

  it("an invalid search is parsed once too (the door does not check it first)", async () => {
    const bad = { intent: "" };
    expect(await parsesOf(searchRequest, () => tg.search(bad).catch(() => undefined))).toBe(1);
    expect(await parsesOf(searchRequest, async () => expect((await post("/v1/search", bad)).status).toBe(400))).toBe(1);
    expect(
      await parsesOf(searchRequest, async () => expect((await call("search_tools", bad)).isError).toBe(true)),
    ).toBe(1);
  });

  it("record an execution: executionSchema once per door; the MCP argument schema only lists", async () => {
    const ex = (id: string) => ({
      id,
      startedAt: "2026-10-30T10:00:00Z",
      success: true,
      steps: [{ tool: "a" }, { tool: "b", dependsOn: [0] }],
    });
    expect(await parsesOf(executionSchema, () => tg.recordExecution(ex("lib-1")))).toBe(1);
    expect(
      await parsesOf(executionSchema, async () =>
        expect((await post("/v1/executions", ex("http-1"))).status).toBe(200),
      ),
    ).toBe(1);
    let argsRuns = -1;
    const runs = await parsesOf(executionSchema, async () => {
      argsRuns = await parsesOf(executionArgs, async () =>
        expect((await call("record_execution", ex("mcp-1"))).isError).toBeFalsy(),
      );
    });
    expect(runs).toBe(1);
    expect(argsRuns).toBe(0);
  });
});

describe("the CLI door", () => {
  it("toolgraph search parses the request once; a bad value names the same field (exit 3)", async () => {
    // Its own database (a server schema when there is one: a PGlite open per command is slow under load).
    const target = await freshTarget();
    const home = mkdtempSync(join(tmpdir(), "tg-validate-once-"));
    const prev = process.env.TOOLGRAPH_EMBEDDINGS;
    process.env.TOOLGRAPH_EMBEDDINGS = "hash:256";
    const cli = async (...argv: string[]) => {
      let err = "";
      const code = await main([...argv, ...target.argv, "--project", "p"], { out: () => {}, err: (x) => (err += x) });
      return { code, err };
    };
    try {
      const cat = join(home, "catalog.json");
      writeFileSync(cat, JSON.stringify({ tools: [{ id: "a", description: "read a file" }] }));
      expect((await cli("import", "catalog", cat)).code).toBe(0);
      expect(
        await parsesOf(searchRequest, async () => expect((await cli("search", "read a file", "--json")).code).toBe(0)),
      ).toBe(1);
      let bad = { code: -1, err: "" };
      expect(
        await parsesOf(searchRequest, async () => (bad = await cli("search", "read a file", "--urgency", "soon"))),
      ).toBe(1);
      const lib = await libraryError(() => tg.search({ intent: "read a file", urgency: "soon" as "low" }));
      expect(bad.code).toBe(3);
      expect(bad.err).toContain(lib.message);
      expect(lib.field).toBe("urgency");
    } finally {
      if (prev === undefined) delete process.env.TOOLGRAPH_EMBEDDINGS;
      else process.env.TOOLGRAPH_EMBEDDINGS = prev;
      rmSync(home, { recursive: true, force: true });
      await target.dispose();
    }
  });
});

describe("one issue formatter: the same field and message on every door", () => {
  it("a bad workflow step in a search names workflow.steps[0].tool everywhere", async () => {
    const bad = { intent: "read a file", workflow: { steps: [{ tool: "" }] } };
    const lib = await libraryError(() => tg.search(bad));
    const http = (await post("/v1/search", bad)).json.error;
    const m = await call("search_tools", bad);
    const viaMcp = m._meta[ERROR_META_KEY];
    expect(lib.field).toBe("workflow.steps[0].tool");
    expect(http).toMatchObject({ code: "invalid-input", field: "workflow.steps[0].tool", message: lib.message });
    expect(viaMcp).toMatchObject({ code: "invalid-input", field: "workflow.steps[0].tool", message: lib.message });
    expect(m.content[0].text).toBe(`invalid-input: ${lib.message}`);
  });

  it("a bad step of a recorded execution names steps[0].tool everywhere (never steps.0.tool)", async () => {
    const bad = { id: "bad-1", startedAt: "2026-10-30T10:00:00Z", success: true, steps: [{ tool: "" }] };
    const lib = await libraryError(() => tg.recordExecution(bad));
    const http = (await post("/v1/executions", bad)).json.error;
    const viaMcp = (await call("record_execution", bad))._meta[ERROR_META_KEY];
    expect(lib.field).toBe("steps[0].tool");
    expect(http).toMatchObject({ code: "invalid-input", field: "steps[0].tool" });
    expect(viaMcp).toMatchObject({ code: "invalid-input", field: "steps[0].tool", message: http.message });
  });

  it("an absent required field reads 'required' on every door", async () => {
    const lib = await libraryError(() => tg.search({} as { intent: string }));
    const http = (await post("/v1/search", {})).json.error;
    const viaMcp = (await call("search_tools", {}))._meta[ERROR_META_KEY];
    expect(lib.message).toBe("intent: required");
    expect(http).toMatchObject({ field: "intent", message: "intent: required" });
    expect(viaMcp).toMatchObject({ field: "intent", message: "intent: required" });
  });

  it("the library-only graph option of buildDag and plan is validated too, naming graph", async () => {
    const sideways = "sideways" as "auto";
    expect(await libraryError(() => tg.buildDag({ tools: ["a"], graph: sideways }))).toMatchObject({
      field: "graph",
      message: expect.stringMatching(/^graph: /),
    });
    expect(await libraryError(() => tg.plan({ intent: "read a file", graph: sideways }))).toMatchObject({
      field: "graph",
    });
    expect((await tg.buildDag({ tools: ["a"], graph: "history" })).nodes.map((n) => n.tool)).toEqual(["a"]);
  });

  it("an unknown MCP tool is an isError result, not a protocol error", async () => {
    const r = await call("no_such_tool", {});
    expect(r.isError).toBe(true);
    expect(r._meta[ERROR_META_KEY]).toMatchObject({ code: "unknown-tool" });
  });
});
