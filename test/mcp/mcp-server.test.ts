/**
 * The MCP front door driven by the SDK's own Client over an in-memory transport, on the embedded database
 * with the demo catalog and traces: tool listing, every tool, invalid input, gated-out answers.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createMcpServer, MCP_TOOLS } from "../../src/mcp/mcp-server.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
let tg: Toolgraph;
let client: Client;

async function connect(project?: string): Promise<Client> {
  const server = createMcpServer(tg, project === undefined ? {} : { project });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const c = new Client({ name: "test", version: "1" });
  await c.connect(b);
  return c;
}

async function call(name: string, args: Record<string, unknown>, c: Client = client): Promise<any> {
  return c.callTool({ name, arguments: args });
}

function text(r: any): string {
  return r.content.map((x: any) => x.text).join("\n");
}

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "demo", embeddings: "hash:256" });
  await tg.importCatalog(demoCatalog());
  await tg.importTraces(demoTraces(300, 42, NOW));
  client = await connect();
});

afterAll(async () => {
  await client?.close();
  await tg?.close();
});

describe("tools/list", () => {
  it("lists every tool with a description that says when to call it", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOLS.map((t) => t.name).sort());
    for (const name of [
      "search_tools",
      "suggest_next_tool",
      "search_capabilities",
      "build_dag",
      "plan_workflow",
      "record_execution",
    ]) {
      const t = tools.find((x) => x.name === name)!;
      expect(t.description).toMatch(/^Call this/);
      expect(t.inputSchema.type).toBe("object");
    }
  });

  it("input schemas come from the shared request schemas", async () => {
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === "search_tools")!;
    expect(search.inputSchema.required).toEqual(["intent"]);
    expect(search.inputSchema.properties).toHaveProperty("context");
    expect(search.inputSchema.properties).toHaveProperty("limit");
    const record = tools.find((t) => t.name === "record_execution")!;
    expect(record.inputSchema.required).toEqual(expect.arrayContaining(["id", "startedAt", "success", "steps"]));
    const dag = tools.find((t) => t.name === "build_dag")!;
    expect(dag.inputSchema.required).toEqual(["tools"]);
  });

  it("marks the read-only tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "search_tools")!.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === "record_execution")!.annotations?.readOnlyHint).toBe(false);
  });
});

describe("tools/call", () => {
  it("search_tools: one summary line per result and the JSON as structuredContent", async () => {
    const r = await call("search_tools", { intent: "open a pull request", limit: 3 });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.results).toHaveLength(3);
    const t = text(r);
    expect(t.split("\n")[0]).toBe('3 results for "open a pull request"');
    for (const item of r.structuredContent.results) expect(t).toContain(item.tool);
    expect(t).toMatch(/^1\. /m);
  });

  it("suggest_next_tool", async () => {
    const r = await call("suggest_next_tool", { context: ["git.status", "git.diff"], limit: 3 });
    expect(r.isError).toBeFalsy();
    expect(Array.isArray(r.structuredContent.suggestions)).toBe(true);
    expect(text(r)).toContain("after git.status → git.diff");
  });

  it("search_capabilities", async () => {
    const r = await call("search_capabilities", { intent: "ship my change for review" });
    expect(r.isError).toBeFalsy();
    expect(JSON.stringify(r.structuredContent)).toContain("ship-change");
  });

  it("discover_capabilities", async () => {
    const r = await call("discover_capabilities", { context: ["git.commit", "git.push"] });
    expect(r.isError).toBeFalsy();
    expect(text(r).length).toBeGreaterThan(0);
  });

  it("build_dag", async () => {
    const r = await call("build_dag", { tools: ["github.create_pull_request", "git.commit", "git.push"] });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("execution DAG of 3 tools");
  });

  it("plan_workflow", async () => {
    const r = await call("plan_workflow", { intent: "commit and push this fix then open a PR" });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("plan for");
  });

  it("build_dag and plan_workflow reasons name tools, never internal indices", async () => {
    const dag = await call("build_dag", { tools: ["git.diff", "git.commit", "git.push", "ci.run_tests"] });
    const plan = await call("plan_workflow", { intent: "commit and push this fix then open a PR" });
    for (const r of [dag, plan]) {
      expect(r.isError).toBeFalsy();
      const reasons: string[] = r.structuredContent.nodes.map((n: { reason: string }) => n.reason);
      expect(reasons.some((x) => /runs after|required by/.test(x))).toBe(true);
      for (const x of reasons) expect(x).not.toMatch(/(runs after|required by|edges from) \d/);
      expect(text(r)).not.toMatch(/(runs after|required by|edges from) \d/);
    }
    expect(dag.structuredContent.nodes.find((n: { tool: string }) => n.tool === "git.commit").reason).toBe(
      "layer 1: runs after git.diff",
    );
  });

  it("find_alternatives", async () => {
    const r = await call("find_alternatives", { tool: "web.search", limit: 3 });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("alternatives to web.search");
  });

  it("record_execution records once, then is a no-op", async () => {
    const ex = {
      id: "mcp-exec-1",
      startedAt: "2026-10-30T10:00:00Z",
      success: true,
      steps: [{ tool: "git.status" }, { tool: "git.diff", dependsOn: [0] }],
    };
    const r = await call("record_execution", ex);
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.inserted).toBe(1);
    const again = await call("record_execution", ex);
    expect(again.structuredContent).toMatchObject({ inserted: 0, skippedExisting: 1 });
  });
});

describe("errors and gated-out answers", () => {
  it("invalid input is an isError result naming the field", async () => {
    const r = await call("search_tools", { intent: "" });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("intent");
  });

  it("a wrong type is an isError result", async () => {
    const r = await call("suggest_next_tool", { context: "git.status" });
    expect(r.isError).toBe(true);
  });

  it("an unknown tool is an isError result with the code and the field", async () => {
    const r = await call("suggest_next_tool", { context: ["no.such.tool"] });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^unknown-tool: /);
    expect(r.structuredContent).toBeUndefined();
    expect(r._meta["toolgraph/error"]).toMatchObject({ code: "unknown-tool", field: "context[0]" });
  });

  it("an unknown tool in a recorded execution is an isError result", async () => {
    const r = await call("record_execution", {
      id: "mcp-bad",
      startedAt: "2026-10-30T10:00:00Z",
      success: true,
      steps: [{ tool: "no.such.tool" }],
    });
    expect(r.isError).toBe(true);
    expect(r._meta["toolgraph/error"].field).toBe("steps[0].tool");
  });

  it("a gated-out answer is a normal result that says why", async () => {
    // On the demo data every substitute for web.search stays below the critical-production threshold 0.80.
    const r = await call("find_alternatives", {
      tool: "web.search",
      limit: 3,
      environment: { production: true, critical: true },
    });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.abstained).toBe(true);
    expect(r.structuredContent.results.every((x: any) => x.gate.decision === "abstained")).toBe(true);
    expect(text(r)).toContain(`No confident answer (gated out): ${r.structuredContent.reason}`);
    expect(text(r)).toMatch(/abstained: \d\.\d{3} below threshold/);
  });

  it("an empty answer with a reason is a normal result", async () => {
    const all = demoCatalog().tools.map((t) => t.id);
    const r = await call("search_tools", { intent: "open a pull request", exclude: all });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.results).toEqual([]);
    expect(text(r)).toContain("No confident answer (gated out)");
    expect(text(r)).toContain(r.structuredContent.reason);
  });

  it("a project without a catalog is an isError result", async () => {
    const other = await connect("empty-one");
    const r = await call("search_tools", { intent: "open a pull request" }, other);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^empty-project: /);
    await other.close();
  });
});

describe("the tools as an agent meets them", () => {
  /** Every property of an object schema, nested objects and array items included, with its path. */
  function properties(schema: any, path = ""): [string, any][] {
    const out: [string, any][] = [];
    for (const [k, v] of Object.entries<any>(schema?.properties ?? {})) {
      out.push([`${path}${k}`, v]);
      const inner = v.type === "array" ? v.items : v;
      if (inner?.type === "object") out.push(...properties(inner, `${path}${k}.`));
    }
    return out;
  }

  it("describes every parameter of every tool (the descriptions reach the JSON Schema)", async () => {
    const { tools } = await client.listTools();
    const missing: string[] = [];
    let count = 0;
    for (const t of tools) {
      for (const [p, v] of properties(t.inputSchema)) {
        count++;
        if (typeof v.description !== "string" || v.description.length < 8) missing.push(`${t.name}.${p}`);
      }
    }
    expect(missing).toEqual([]);
    expect(count).toBeGreaterThan(77);
  });

  it("every tool declares an outputSchema, and record_execution / record_feedback are not destructive", async () => {
    const { tools } = await client.listTools();
    for (const t of tools) expect(t.outputSchema?.type, t.name).toBe("object");
    const rec = tools.find((t) => t.name === "record_execution")!;
    expect(rec.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    const fb = tools.find((t) => t.name === "record_feedback")!;
    expect(fb.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(fb.inputSchema.required).toEqual(["intent", "decision", "success"]);
  });

  it("search_tools and plan_workflow results carry each tool's input schema and server", async () => {
    // The SDK client validates structuredContent against outputSchema: these calls would throw otherwise.
    const s = await call("search_tools", { intent: "open a pull request", limit: 3 });
    for (const r of s.structuredContent.results) {
      expect(r).toHaveProperty("server");
      expect(r).toHaveProperty("inputSchema");
    }
    const snapshot = await engineOf(tg).snapshot("demo");
    const first = s.structuredContent.results[0];
    const row = snapshot.tools[snapshot.index.get(first.tool)!]!;
    expect(first.inputSchema).toEqual(row.inputSchema);
    expect(first.server).toBe(row.server);
    const p = await call("plan_workflow", { intent: "commit and push this fix then open a PR" });
    for (const t of p.structuredContent.tools) {
      const r = snapshot.tools[snapshot.index.get(t.tool)!]!;
      expect(t.inputSchema).toEqual(r.inputSchema);
      expect(t.server).toBe(r.server);
    }
  });

  it("record_feedback moves the learned threshold of the answer's context", async () => {
    const r = await call("record_feedback", {
      intent: "deploy the service to production",
      decision: "accepted",
      success: false,
    });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.outcome).toBe("accepted-failed");
    expect(r.structuredContent.offset).toBeCloseTo(0.01, 10);
  });
});

describe("result schemas shared with OpenAPI", () => {
  it("the 200 bodies of the recommending routes are the MCP tools' output schemas, not {type: object}", async () => {
    const { buildOpenApiDocument } = await import("../../src/server/openapi.ts");
    const doc = buildOpenApiDocument() as any;
    const body = (path: string) => doc.paths[path].post.responses["200"].content["application/json"].schema;
    expect(Object.keys(body("/v1/search").properties)).toEqual(
      expect.arrayContaining(["results", "accepted", "abstained"]),
    );
    expect(body("/v1/search").properties.results.items.required).toEqual(
      expect.arrayContaining(["tool", "score", "gate", "server", "inputSchema"]),
    );
    expect(body("/v1/plan").properties.tools.items.properties.inputSchema.description).toMatch(/input JSON Schema/);
    for (const p of [
      "/v1/next",
      "/v1/capabilities/match",
      "/v1/capabilities/discover",
      "/v1/dag",
      "/v1/alternatives",
      "/v1/feedback",
      "/v1/executions",
    ]) {
      expect(body(p).type, p).toBe("object");
      expect(Object.keys(body(p).properties ?? {}).length, p).toBeGreaterThan(2);
    }
  });
});
