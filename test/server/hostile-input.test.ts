/**
 * Valid-looking hostile input through every door on both backends (docs/decisions/text-validation.md): HTTP and MCP
 * answer 400 / isError naming the field (never 500), `skipInvalid` skips such a line like any other, an import that
 * writes nothing leaves the graph version alone, and a bounded property-based fuzzer (fast-check, fixed seed) over
 * every HTTP route and MCP tool checks: no 5xx, every 4xx names a field, row counts change only on 2xx.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATION_LIST } from "../../src/contract/operations.ts";
import { ImportError } from "../../src/formats/parse.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { callTool, ERROR_META_KEY, MCP_TOOLS } from "../../src/mcp/mcp-server.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { ROUTES } from "../../src/server/routes.ts";
import { graphVersion } from "../../src/store/projects.ts";
import { backends, freshProject } from "../helpers/backends.ts";

const TOOLS = ["fetch", "parse", "store"];
const CATALOG = {
  tools: TOOLS.map((id) => ({ id, description: `${id} things` })),
  capabilities: [{ id: "ingest", tools: ["fetch", "parse"] }],
};
const exec = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  startedAt: "2026-11-01T12:00:00Z",
  success: true,
  intent: "fetch and parse",
  steps: [{ tool: "fetch" }, { tool: "parse" }],
  ...over,
});

/** A valid body per JSON route (and the MCP tool with the same arguments). */
/** Every operation of the table from its example request, then hand-written bodies over this test's catalog. */
const BASE: Record<string, Record<string, unknown>> = {
  ...Object.fromEntries(OPERATION_LIST.map((op) => [op.http.path, { ...op.example }])),
  "/v1/search": { intent: "fetch a page", limit: 3 },
  "/v1/next": { context: ["fetch"], limit: 3 },
  "/v1/capabilities/match": { intent: "ingest a page" },
  "/v1/capabilities/discover": { context: ["fetch"] },
  "/v1/dag": { tools: ["fetch", "parse"] },
  "/v1/plan": { intent: "fetch and parse" },
  "/v1/alternatives": { tool: "fetch" },
  "/v1/feedback": { intent: "fetch a page", decision: "accepted", success: true },
  "/v1/executions": exec("base"),
  "/v1/import/catalog": CATALOG,
};
const MCP_BASE: Record<string, string> = {
  ...Object.fromEntries(OPERATION_LIST.map((op) => [op.mcp.name, op.http.path])),
  search_tools: "/v1/search",
  suggest_next_tool: "/v1/next",
  search_capabilities: "/v1/capabilities/match",
  discover_capabilities: "/v1/capabilities/discover",
  build_dag: "/v1/dag",
  plan_workflow: "/v1/plan",
  find_alternatives: "/v1/alternatives",
  record_execution: "/v1/executions",
  record_feedback: "/v1/feedback",
};

/** Values that look valid to JSON but not to PostgreSQL or to an id. */
const HOSTILE: unknown[] = [
  "a\u0000b",
  "\u0000",
  "x\u0085y",
  "x\u2028y",
  "\u202eevil",
  "\ud800",
  "0000-01-01T00:00:00Z",
  "+275760-09-13T00:00:00Z",
  2 ** 40,
  -(2 ** 31) - 1,
  1e308,
  -1,
  0,
  "",
  " padded ",
  "x".repeat(40_000),
  [],
  ["a\u0000"],
  {},
  null,
  true,
  JSON.parse(`${"[".repeat(200)}${"]".repeat(200)}`),
];

/** Every path to a value inside `v` (objects and arrays), for mutation. */
function paths(v: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (v !== null && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      const p = [...prefix, Array.isArray(v) ? Number(k) : k];
      out.push(p, ...paths(x, p));
    }
  }
  return out;
}

function setAt(v: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(v) as Record<string | number, unknown>;
  let o = copy;
  for (const k of path.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  o[path[path.length - 1]!] = value;
  return copy;
}

for (const backend of backends()) {
  describe(`hostile input on ${backend.name}`, () => {
    let tg: Toolgraph;
    let server: ServerHandle;
    const project = freshProject("hostile");
    const internal: string[] = [];

    beforeAll(async () => {
      tg = await openToolgraph({ ...(await backend.options()), project, embeddings: "hash:64" });
      await tg.importCatalog(CATALOG);
      await tg.importTraces([exec("seed-1"), exec("seed-2", { steps: [{ tool: "fetch" }, { tool: "store" }] })]);
      server = await startServer({ api: tg, port: 0, log: (l) => internal.push(l) });
      // The first stats reads the project's learning status, which builds the intent memory (it caches its
      // intents' vectors with the tools'): done here, so the counts below change only by what a request writes.
      await tg.stats();
    }, 180_000);

    afterAll(async () => {
      await server?.close();
      await tg?.close();
      await backend.dispose();
    });

    async function post(path: string, body: unknown, type = "application/json") {
      const res = await fetch(server.url + path, {
        method: "POST",
        headers: { "content-type": type },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        json: text ? (JSON.parse(text) as { error?: { code: string; field?: string; message: string } }) : undefined,
      };
    }

    async function counts() {
      const s = (await tg.stats()) as unknown as Record<string, unknown>;
      return Object.fromEntries(Object.entries(s).filter(([, v]) => typeof v === "number"));
    }

    it.each([
      ["/v1/executions", "intent", exec("nul-intent", { intent: "hi\u0000" })],
      ["/v1/executions", "user", exec("nul-user", { user: "u\u0000" })],
      ["/v1/executions", "startedAt", exec("year0", { startedAt: "0000-01-01T00:00:00Z" })],
      ["/v1/executions", "startedAt", exec("far", { startedAt: "+275760-09-13T00:00:00Z" })],
      ["/v1/executions", "steps[0].durationMs", exec("dur", { steps: [{ tool: "fetch", durationMs: 1e308 }] })],
      ["/v1/executions", "id", exec("ls\u2028id")],
      ["/v1/executions", "id", exec("nel\u0085id")],
      ["/v1/import/catalog", "tools[0].description", { tools: [{ id: "t1", description: "d\u0000" }] }],
      [
        "/v1/import/catalog",
        "tools[0].inputSchema",
        `{"tools":[{"id":"t1","inputSchema":${'{"p":'.repeat(5000)}"leaf"${"}".repeat(5000)}}]}`,
      ],
      [
        "/v1/import/catalog",
        "capabilities[0].priority",
        { tools: [], capabilities: [{ id: "c1", priority: 2 ** 40 }] },
      ],
      [
        "/v1/import/catalog",
        "capabilities[0].dependsOn[0]",
        { tools: [], capabilities: [{ id: "c1", dependsOn: ["c1"] }] },
      ],
      ["/v1/search", "intent", { intent: "find\u0000" }],
      ["/v1/search", "user", { intent: "find", user: "u\u2028" }],
      ["/v1/next", "context[0]", { context: ["fetch\u0000"] }],
    ])("%s refuses a hostile %s with 400 naming the field, and writes nothing", async (path, field, body) => {
      const before = await counts();
      const v0 = await graphVersion(engineOf(tg).db, project);
      const r = await post(path, body);
      expect(r.status).toBe(400);
      expect(r.json?.error?.code).toBe("invalid-input");
      expect(r.json?.error?.field?.startsWith(field)).toBe(true);
      expect(await counts()).toEqual(before);
      expect(await graphVersion(engineOf(tg).db, project)).toBe(v0);
    });

    it("MCP answers isError naming the field for the same input", async () => {
      const spec = MCP_TOOLS.find((t) => t.name === "record_execution")!;
      const r = await callTool(tg, spec, exec("mcp-nul", { intent: "a\u0000" }) as never, {
        log: (l) => internal.push(l),
      });
      expect(r.isError).toBe(true);
      expect((r._meta![ERROR_META_KEY] as { field: string }).field).toBe("intent");
    });

    it("skipInvalid skips hostile lines like any other, and an import that writes nothing keeps the version", async () => {
      const lines = [
        exec("skip-ok"),
        exec("skip-nul", { intent: "\u0000" }),
        exec("skip-year", { startedAt: "0000-01-01T00:00:00Z" }),
        exec("skip\u2028x"),
      ]
        .map((x) => JSON.stringify(x))
        .join("\n");
      await expect(tg.importTraces(lines)).rejects.toBeInstanceOf(ImportError);
      const v0 = await graphVersion(engineOf(tg).db, project);
      const r = await tg.importTraces(lines, { skipInvalid: true });
      expect(r.inserted).toBe(1);
      expect(r.invalid.map((e) => [e.line, e.field])).toEqual([
        [2, "intent"],
        [3, "startedAt"],
        [4, "id"],
      ]);
      const v1 = await graphVersion(engineOf(tg).db, project);
      expect(v1).toBe(v0 + 1);
      // Nothing to write: every line invalid (skipped), already stored, the same catalog again, no edges.
      await tg.importTraces([exec("skip-nul", { intent: "\u0000" })].map((x) => JSON.stringify(x)).join("\n"), {
        skipInvalid: true,
      });
      await tg.importTraces([exec("skip-ok")]);
      await tg.importCatalog({ tools: CATALOG.tools });
      await tg.importEdges(JSON.stringify({ from: "fetch", to: "nope", type: "sequence" }), { skipInvalid: true });
      expect(await graphVersion(engineOf(tg).db, project)).toBe(v1);
    });

    it("a capability closing a dependsOn cycle through stored capabilities is refused at its edge", async () => {
      await tg.importCatalog({ tools: [], capabilities: [{ id: "cyc-a" }, { id: "cyc-b", dependsOn: ["cyc-a"] }] });
      const v0 = await graphVersion(engineOf(tg).db, project);
      const err = await tg
        .importCatalog({ tools: [], capabilities: [{ id: "cyc-a", dependsOn: ["cyc-b"] }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).errors[0]).toMatchObject({ field: "capabilities[0].dependsOn[0]" });
      expect((err as ImportError).errors[0]!.message).toMatch(
        /cycle: cyc-a → cyc-b → cyc-a|cycle: cyc-b → cyc-a → cyc-b/,
      );
      expect(await graphVersion(engineOf(tg).db, project)).toBe(v0);
    });

    it("fuzz: every HTTP route and MCP tool, no 5xx, every 4xx names a field, counts change only on 2xx", async () => {
      const jsonRoutes = Object.keys(BASE);
      const mcpNames = Object.keys(MCP_BASE);
      expect(new Set([...jsonRoutes, "/v1/import/traces", "/v1/import/edges", "/v1/stats"])).toEqual(
        new Set(ROUTES.map((r) => r.path)),
      );
      expect(new Set(mcpNames)).toEqual(new Set(MCP_TOOLS.map((t) => t.name)));
      let baseline = await counts();
      let n = 0;
      const seen = { ok: 0, bad: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...jsonRoutes, "/v1/import/traces", "/v1/import/edges", ...mcpNames.map((m) => `mcp:${m}`)),
          fc.nat(),
          fc.constantFrom(...HOSTILE),
          fc.boolean(),
          async (target, pick, value, mutate) => {
            n++;
            const routePath = target.startsWith("mcp:") ? MCP_BASE[target.slice(4)]! : target;
            let body: unknown;
            if (routePath === "/v1/import/traces" || routePath === "/v1/import/edges") {
              const rec =
                routePath === "/v1/import/traces" ? exec(`fz-${n}`) : { from: "fetch", to: "parse", type: "sequence" };
              const ps = paths(rec);
              body = [mutate ? setAt(rec, ps[pick % ps.length]!, value) : rec];
            } else {
              const base = routePath === "/v1/executions" ? exec(`fz-${n}`) : BASE[routePath]!;
              const ps = paths(base);
              body = mutate ? setAt(base, ps[pick % ps.length]!, value) : base;
            }
            let status: number;
            let field: string | undefined;
            let code: string | undefined;
            if (target.startsWith("mcp:")) {
              const spec = MCP_TOOLS.find((t) => t.name === target.slice(4))!;
              const r = await callTool(tg, spec, body as never, { log: (l) => internal.push(l) });
              const e = r._meta?.[ERROR_META_KEY] as { code: string; field?: string } | undefined;
              status = r.isError ? (e?.code === "internal" ? 500 : 400) : 200;
              field = e?.field;
              code = e?.code;
            } else {
              const r = await post(routePath, body);
              status = r.status;
              field = r.json?.error?.field;
              code = r.json?.error?.code;
            }
            expect(status, `${target} ${JSON.stringify(body).slice(0, 300)} → ${code}`).toBeLessThan(500);
            const now = await counts();
            if (status >= 200 && status < 300) {
              seen.ok++;
              baseline = now;
            } else {
              seen.bad++;
              // A 404 (nothing to answer from) names no field; every 400 does.
              if (status === 400) expect(typeof field, `${target} ${code}: no field`).toBe("string");
              expect(now, `${target} changed counts on ${status}`).toEqual(baseline);
            }
          },
        ),
        { seed: 2121, numRuns: 150 },
      );
      expect(seen.ok).toBeGreaterThan(10);
      expect(seen.bad).toBeGreaterThan(10);
      expect(internal.filter((l) => l.includes("internal error"))).toEqual([]);
    }, 240_000);
  });
}
