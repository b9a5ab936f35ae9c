/**
 * Deep JSON through every import door (docs/decisions/json-nesting.md): HTTP /v1/import/{catalog,traces,edges}
 * as JSON and as NDJSON and /v1/executions, MCP over HTTP and a tool call as the stdio transport makes it, and
 * CLI import files.
 * A document nested past LIMITS.documentDepth is a 400 naming its line and path, never a 500; a fast-check
 * property mixes arrays and objects at random depths (up to 20,000) in random places of valid records.
 * Parsing is the subject, so one backend (the embedded one) is enough.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImportError } from "../../src/formats/parse.ts";
import { LIMITS } from "../../src/formats/schemas.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { callTool, ERROR_META_KEY, MCP_TOOLS } from "../../src/mcp/mcp-server.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { cli, freshTarget, type Target } from "../cli/harness.ts";

const DEPTH = LIMITS.documentDepth;
const ISSUE_BODY = `${"[".repeat(5000)}${"]".repeat(5000)}`;

/** `depth` nested containers, arrays or objects (`{"k": …}`) by the repeating pattern `kinds` (true = array), around 0. */
function nested(depth: number, kinds: readonly boolean[] = [true]): string {
  let open = "";
  let close = "";
  for (let i = 0; i < depth; i++) {
    const array = kinds[i % kinds.length]!;
    open += array ? "[" : '{"k":';
    close = (array ? "]" : "}") + close;
  }
  return `${open}0${close}`;
}

const execLine = (id: string, field = "", value = "") => {
  const base: Record<string, string> = {
    id: JSON.stringify(id),
    startedAt: '"2026-11-01T12:00:00Z"',
    success: "true",
    intent: '"fetch and parse"',
    steps: '[{"tool": "fetch"}, {"tool": "parse"}]',
  };
  if (field) base[field] = value;
  return `{${Object.entries(base)
    .map(([k, v]) => `${JSON.stringify(k)}: ${v}`)
    .join(", ")}}`;
};
const edgeLine = (field = "", value = "") => {
  const base: Record<string, string> = { from: '"fetch"', to: '"parse"', type: '"sequence"' };
  if (field) base[field] = value;
  return `{${Object.entries(base)
    .map(([k, v]) => `${JSON.stringify(k)}: ${v}`)
    .join(", ")}}`;
};

let tg: Toolgraph;
let server: ServerHandle;
const internal: string[] = [];

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "deep", embeddings: "hash:64" });
  await tg.importCatalog({ tools: ["fetch", "parse", "store"].map((id) => ({ id, description: `${id} things` })) });
  server = await startServer({ api: tg, port: 0, log: (l) => internal.push(l) });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await tg?.close();
});

async function post(path: string, body: string, type = "application/json") {
  const res = await fetch(server.url + path, {
    method: "POST",
    headers: { "content-type": type, accept: "application/json, text/event-stream" },
    body,
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as any };
}

async function counts() {
  const s = (await tg.stats()) as unknown as Record<string, unknown>;
  return Object.fromEntries(Object.entries(s).filter(([, v]) => typeof v === "number"));
}

describe("deep JSON on every import door", () => {
  it.each([
    ["/v1/import/edges", "application/json"],
    ["/v1/import/edges", "application/x-ndjson"],
    ["/v1/import/traces", "application/json"],
    ["/v1/import/traces", "application/x-ndjson"],
    ["/v1/import/catalog", "application/json"],
  ])("%s (%s): the issue's 5000-deep body is a 400 naming line 1, not a 500", async (path, type) => {
    const r = await post(path, ISSUE_BODY, type);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("invalid-input");
    expect(r.json.error.message).toMatch(new RegExp(`nested deeper than ${DEPTH} levels`));
    if (path !== "/v1/import/catalog") expect(r.json.error.details[0].line).toBe(1);
    expect(internal.filter((l) => l.includes("internal error"))).toEqual([]);
  });

  it("a deep record on line 3 of an array or a JSONL body is named by its line and path", async () => {
    const deep = nested(DEPTH + 5, [false, true]);
    const asArray = `[${edgeLine()}, ${edgeLine()}, ${edgeLine("to", deep)}]`;
    const asLines = [execLine("d1"), execLine("d2"), execLine("d3", "steps", deep)].join("\n");
    const a = await post("/v1/import/edges", asArray);
    const b = await post("/v1/import/traces", asLines, "application/x-ndjson");
    const path = ["to", ...Array.from({ length: DEPTH - 2 }, (_, i) => (i % 2 === 0 ? "k" : "[0]"))];
    const field = path.join(".").replaceAll(".[", "[");
    expect([a.status, a.json.error.details[0]]).toEqual([
      400,
      { line: 3, field, message: `is nested deeper than ${DEPTH} levels` },
    ]);
    expect([b.status, b.json.error.details[0].line, b.json.error.field.startsWith("steps.k[0].k")]).toEqual([
      400,
      3,
      true,
    ]);
  });

  it("a catalog file names the line of the deep value", async () => {
    const text = `{\n  "tools": [\n    {"id": "x", "inputSchema": ${nested(300, [false])}}\n  ]\n}`;
    const err = (await tg.importCatalog(text).then(
      () => undefined,
      (e: unknown) => e,
    )) as ImportError;
    expect(err).toBeInstanceOf(ImportError);
    expect(err.errors[0]!.line).toBe(3);
    expect(err.errors[0]!.field.startsWith("tools[0].inputSchema.k.k")).toBe(true);
  });

  it("MCP over HTTP refuses a message past the bound with a JSON-RPC parse error naming the path", async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record_execution","arguments":{"id":${ISSUE_BODY}}}}`;
    const r = await post("/mcp", body);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32700);
    expect(r.json.error.message).toMatch(
      /^Parse error: params\.arguments\.id\[0\]\[0\].*: is nested deeper than 128 levels$/,
    );
  });

  it("an MCP tool call (as stdio hands it over: already parsed) refuses deep arguments naming the field", async () => {
    const spec = MCP_TOOLS.find((t) => t.name === "record_execution")!;
    const r = await callTool(tg, spec, JSON.parse(execLine("mcp-deep", "intent", nested(20_000, [true, false]))), {
      log: (l) => internal.push(l),
    });
    expect(r.isError).toBe(true);
    const e = r._meta![ERROR_META_KEY] as { code: string; field: string };
    expect(e.code).toBe("invalid-input");
    expect(e.field.startsWith("intent[0].k[0]")).toBe(true);
  });

  describe("CLI import files", () => {
    let target: Target;
    let dir: string;
    beforeAll(async () => {
      target = await freshTarget();
      dir = mkdtempSync(join(tmpdir(), "tg-deep-"));
      writeFileSync(join(dir, "catalog.json"), JSON.stringify({ tools: [{ id: "fetch" }, { id: "parse" }] }));
      expect((await cli(target).run("import", "catalog", join(dir, "catalog.json"))).code).toBe(0);
    }, 120_000);
    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true });
      await target?.dispose();
    });

    it.each([
      ["import", "edges", "edges.jsonl", `${edgeLine()}\n${ISSUE_BODY}\n`, 2],
      ["import", "traces", "traces.jsonl", `${execLine("c1")}\n${execLine("c2", "steps", ISSUE_BODY)}\n`, 2],
      ["import", "catalog", "deep.json", ISSUE_BODY, 1],
      ["record", "", "run.json", execLine("c3", "intent", nested(10_000, [false])), 1],
    ])("%s %s: a deep line exits 3 naming the file and line", async (cmd, what, name, text, line) => {
      const file = join(dir, name);
      writeFileSync(file, text);
      const r = await cli(target).run(cmd, ...(what ? [what] : []), file);
      expect(r.code).toBe(3);
      expect(r.err).toContain(`${name}:${line}: `);
      expect(r.err).toContain(`nested deeper than ${DEPTH} levels`);
    });
  });

  it("fuzz: arrays and objects nested at random depths in random places of every import route give no 5xx", async () => {
    let baseline = await counts();
    let n = 0;
    const seen = { ok: 0, deep: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          "traces-json",
          "traces-ndjson",
          "edges-json",
          "edges-ndjson",
          "catalog",
          "executions",
          "mcp-http",
          "mcp-call",
        ),
        fc.oneof(fc.integer({ min: 1, max: DEPTH + 2 }), fc.integer({ min: DEPTH - 2, max: 20_000 })),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 3 }),
        fc.nat(),
        async (door, depth, kinds, before, pick) => {
          n++;
          const deep = nested(depth, kinds);
          const tooDeep = depth + 2 > DEPTH; // a value inside a record sits at least 2 levels down
          let status: number;
          let line: number | undefined;
          let field: unknown;
          if (door === "mcp-http" || door === "mcp-call") {
            const fields = ["id", "intent", "steps", "user"];
            const args = execLine(`fz-mcp-${n}`, fields[pick % fields.length], deep);
            if (door === "mcp-http") {
              const r = await post(
                "/mcp",
                `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"record_execution","arguments":${args}}}`,
              );
              status = r.status === 200 && r.json.result?.isError ? 400 : r.status;
              field = r.status === 200 ? r.json.result?._meta?.[ERROR_META_KEY]?.field : r.json.error?.message;
            } else {
              const r = await callTool(tg, MCP_TOOLS.find((t) => t.name === "record_execution")!, JSON.parse(args), {
                log: (l) => internal.push(l),
              });
              const e = r._meta?.[ERROR_META_KEY] as { code: string; field?: string } | undefined;
              status = r.isError ? (e?.code === "internal" ? 500 : 400) : 200;
              field = e?.field;
            }
          } else {
            let path: string;
            let body: string;
            let type = "application/json";
            if (door === "catalog") {
              const fields = ["inputSchema", "description", "tags", "outputSchema"];
              path = "/v1/import/catalog";
              body = `{"tools": [{"id": "fz-${n}", ${JSON.stringify(fields[pick % fields.length])}: ${deep}}]}`;
            } else if (door === "executions") {
              const fields = ["id", "intent", "steps", "user", "startedAt"];
              path = "/v1/executions";
              body = execLine(`fz-ex-${n}`, fields[pick % fields.length], deep);
            } else {
              const traces = door.startsWith("traces");
              const fields = traces ? ["id", "intent", "steps", "success", ""] : ["from", "to", "type", "source", ""];
              const f = fields[pick % fields.length]!;
              const good = Array.from({ length: before }, (_, i) => (traces ? execLine(`fz-${n}-${i}`) : edgeLine()));
              const bad = f === "" ? deep : traces ? execLine(`fz-${n}-bad`, f, deep) : edgeLine(f, deep);
              path = traces ? "/v1/import/traces" : "/v1/import/edges";
              if (door.endsWith("ndjson")) {
                type = "application/x-ndjson";
                body = [...good, bad].join("\n");
              } else body = `[${[...good, bad].join(", ")}]`;
              line = before + 1;
            }
            const r = await post(path, body, type);
            status = r.status;
            field = r.json.error?.field;
            if (status === 400 && line !== undefined)
              expect(r.json.error.details?.[0]?.line, `${door} line`).toBe(line);
          }
          expect(status, `${door} depth ${depth}`).toBeLessThan(500);
          const now = await counts();
          if (status === 200) {
            seen.ok++;
            baseline = now;
          } else {
            expect(status).toBe(400);
            expect(typeof field, `${door} depth ${depth}: names no field`).toBe("string");
            expect(now).toEqual(baseline);
          }
          if (tooDeep) {
            seen.deep++;
            expect(status, `${door} depth ${depth} accepted`).toBe(400);
          }
        },
      ),
      { seed: 4242, numRuns: 120 },
    );
    expect(seen.deep).toBeGreaterThan(20);
    expect(seen.ok).toBeGreaterThan(0);
    expect(internal.filter((l) => l.includes("internal error"))).toEqual([]);
  }, 240_000);
});
