/**
 * Error advice fits the door that returns it (src/formats/advice.ts): the same two mistakes, an execution
 * naming a tool the catalog lacks and a search on a project without tools while another project has some,
 * asked through the CLI, the HTTP API, MCP and the library. Only the CLI advises CLI flags; HTTP names the
 * query flag, the body field and the header; MCP names its argument and the header of /mcp.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolgraphError } from "../../src/contract/errors.ts";
import { type Advice, adviceText, type Door, respell } from "../../src/formats/advice.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { createMcpServer } from "../../src/mcp/mcp-server.ts";
import { PROJECT_HEADER, type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { cli, freshTarget } from "../cli/harness.ts";
import { SKIP_SERVER, serverBackend } from "../helpers/backends.ts";

const CATALOG = {
  tools: [
    { id: "a.one", description: "first tool" },
    { id: "a.two", description: "second tool" },
  ],
};
const UNKNOWN = {
  id: "run-1",
  startedAt: "2026-01-01T00:00:00Z",
  success: true,
  steps: [{ tool: "a.one" }, { tool: "b.missing" }],
};
/** A command-line flag: `--word` at the start or after a space or parenthesis. */
const CLI_FLAG = /(^|[\s(])--[a-z]/;

const backend = SKIP_SERVER ? undefined : serverBackend();
let database: string | undefined;
let tg: Toolgraph;
let server: ServerHandle;

beforeAll(async () => {
  // Project "full" has tools; "default" has none.
  database = backend ? (await backend.options()).database : undefined;
  tg = await openToolgraph({
    ...(database ? { database } : { home: "memory://", database: "" }),
    project: "full",
    embeddings: "hash:32",
  });
  await tg.importCatalog(CATALOG);
  server = await startServer({ api: tg, port: 0, defaultProject: "default", log: () => {}, warmUp: false });
});
afterAll(async () => {
  await server?.close();
  await tg?.close();
  await backend?.dispose();
});

async function http(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any }> {
  const r = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}

async function mcp(project: string): Promise<Client> {
  const s = createMcpServer(tg, { project });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await s.connect(a);
  const c = new Client({ name: "test", version: "1" });
  await c.connect(b);
  return c;
}

describe("an execution naming a tool the catalog lacks", () => {
  it("HTTP: the 400 names the query flag ?autoRegister=true, never --auto-register", async () => {
    const r = await http("/v1/executions", UNKNOWN, { [PROJECT_HEADER]: "full" });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toBe(
      'line 1: steps[1].tool: unknown tool "b.missing" (import it in the catalog first, or add ?autoRegister=true to the request) (nothing was written)',
    );
    expect(r.json.error.message).not.toMatch(CLI_FLAG);
  });

  it("HTTP: a skipped line of an import (?skipInvalid=true) says the same", async () => {
    const r = await http("/v1/import/traces?skipInvalid=true", [UNKNOWN], { [PROJECT_HEADER]: "full" });
    expect(r.status).toBe(200);
    expect(r.json.invalid).toHaveLength(1);
    expect(r.json.invalid[0].message).toBe(
      'unknown tool "b.missing" (import it in the catalog first, or add ?autoRegister=true to the request)',
    );
  });

  it("MCP: record_execution's error names its autoRegister argument", async () => {
    const c = await mcp("full");
    const r: any = await c.callTool({ name: "record_execution", arguments: UNKNOWN });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toContain(
      'unknown tool "b.missing" (import it in the catalog first, or set "autoRegister": true in the arguments)',
    );
    expect(r.content[0].text).not.toMatch(CLI_FLAG);
    await c.close();
  });

  it("library: the thrown error names the option; the CLI names its flag", async () => {
    const e = await tg.recordExecution(UNKNOWN).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ToolgraphError);
    expect((e as ToolgraphError).message).toContain("(import it in the catalog first, or pass { autoRegister: true })");
    expect((e as ToolgraphError).messageFor("cli")).toContain(
      "(import it in the catalog first, or pass --auto-register)",
    );
    expect((e as ToolgraphError).messageFor("cli")).toMatch(
      /^invalid input \(nothing was written\):\n {2}execution:1: steps\[1\]\.tool: /,
    );
  });

  it("CLI: record and search print the flags", async () => {
    const target = await freshTarget();
    try {
      expect((await cli(target, JSON.stringify(CATALOG)).run("import", "catalog", "-", "--project", "full")).code).toBe(
        0,
      );
      const record = await cli(target, JSON.stringify(UNKNOWN)).run("record", "-", "--project", "full");
      expect(record.code).toBe(3);
      expect(record.err).toContain(
        'steps[1].tool: unknown tool "b.missing" (import it in the catalog first, or pass --auto-register)',
      );
      const search = await cli(target).run("search", "first");
      expect(search.code).toBe(1);
      expect(search.err).toMatch(/full \(2 tools\) — e\.g\. --project full\n$/);
    } finally {
      await target.dispose();
    }
  });
});

describe("a search on a project without tools while another has some", () => {
  it("HTTP: the 404 names the body field and the header, never --project", async () => {
    const r = await http("/v1/search", { intent: "first" });
    expect(r.status).toBe(404);
    expect(r.json.error.message).toBe(
      'project "default" has no tools: import a catalog first, or use one of the projects here: full (2 tools) — e.g. "project": "full" in the body, or the header x-toolgraph-project: full',
    );
  });

  it("MCP: the error names the header of /mcp and TOOLGRAPH_PROJECT, never --project", async () => {
    const c = await mcp("default");
    const r: any = await c.callTool({ name: "search_tools", arguments: { intent: "first" } });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toContain(
      "— e.g. the header x-toolgraph-project: full on /mcp, or TOOLGRAPH_PROJECT=full where the MCP server starts",
    );
    expect(r.content[0].text).not.toMatch(CLI_FLAG);
    await c.close();
  });

  it("library: the thrown error names the option", async () => {
    const e = (await tg.search({ intent: "first", project: "default" }).catch((x: unknown) => x)) as ToolgraphError;
    expect(e.code).toBe("empty-project");
    expect(e.message).toMatch(/— e\.g\. \{ project: "full" \}$/);
  });
});

describe("the spellings", () => {
  const advice = fc.oneof(
    fc.constant<Advice>({ kind: "auto-register" }),
    fc.constant<Advice>({ kind: "import-catalog" }),
    fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}$/).map((project): Advice => ({ kind: "project", project })),
  );
  const door = fc.constantFrom<Door>("cli", "http", "mcp", "library");

  it("no door but the CLI advises a CLI flag", () => {
    fc.assert(
      fc.property(advice, fc.constantFrom<Door>("http", "mcp", "library"), (a, d) => {
        expect(adviceText(a, d)).not.toMatch(CLI_FLAG);
      }),
    );
  });

  it("respelling a library message for a door gives the message written for that door", () => {
    fc.assert(
      fc.property(advice, door, fc.string(), (a, d, base) => {
        expect(respell(base + adviceText(a, "library"), a, d)).toBe(base + adviceText(a, d));
      }),
    );
  });

  it("the header named by the advice is the server's", () => {
    expect(adviceText({ kind: "project", project: "p" }, "http")).toContain(`${PROJECT_HEADER}: p`);
  });
});
