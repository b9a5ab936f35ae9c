/**
 * Lone UTF-16 surrogates through the doors (docs/decisions/text-validation.md). Before, they were accepted
 * silently: a description was stored with U+FFFD in their place, a lone surrogate inside an inputSchema made
 * the catalog import a 500 (jsonb refuses the escape), and an intent or a session carrying one was answered
 * with a recommendationId while the log's whole batch (other callers' answers too) failed to write. Now each is
 * a 400 naming the field, and well-formed text (emoji: surrogate pairs) is stored exactly as sent.
 * One backend: both are PostgreSQL, and the embedded one shows the same jsonb and text behaviour.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { callTool, ERROR_META_KEY, MCP_TOOLS } from "../../src/mcp/mcp-server.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { countRecommendations } from "../../src/store/recommendations.ts";

let tg: Toolgraph;
let server: ServerHandle;
const internal: string[] = [];
const logErrors: string[] = [];

beforeAll(async () => {
  tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: "text",
    embeddings: "hash:64",
    recommendationLog: { flushMs: 60_000, onError: (m) => logErrors.push(m) },
  });
  await tg.importCatalog({ tools: [{ id: "fetch", description: "fetch a page" }, { id: "parse" }] });
  server = await startServer({ api: tg, port: 0, log: (l) => internal.push(l) });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await tg?.close();
});

/** Bodies written as JSON text, so the escapes reach the server exactly (JSON.stringify would keep them too). */
async function post(path: string, body: string) {
  const res = await fetch(server.url + path, { method: "POST", headers: { "content-type": "application/json" }, body });
  return { status: res.status, json: (await res.json()) as any };
}

const EXEC = (intent: string, id = "run-1") =>
  `{"id": "${id}", "startedAt": "2026-11-01T12:00:00Z", "success": true, "intent": "${intent}", "steps": [{"tool": "fetch"}]}`;

describe("lone surrogates are refused with the field, never stored or half-logged", () => {
  it.each([
    ["/v1/search", '{"intent": "find \\ud800 a page"}', "intent"],
    ["/v1/search", '{"intent": "find a page", "session": "s-\\udc00"}', "session"],
    ["/v1/next", '{"context": ["fetch"], "intent": "\\ud83d"}', "intent"],
    ["/v1/plan", '{"intent": "fetch \\ude00 and parse"}', "intent"],
    ["/v1/feedback", '{"intent": "x\\udbff", "decision": "accepted", "success": true}', "intent"],
    ["/v1/executions", EXEC("lone \\ud83d"), "intent"],
    ["/v1/import/catalog", '{"tools": [{"id": "t1", "description": "bad \\udc00"}]}', "tools[0].description"],
    [
      "/v1/import/catalog",
      '{"tools": [{"id": "t2", "inputSchema": {"properties": {"q": {"description": "\\udc00"}}}}]}',
      "tools[0].inputSchema.properties.q.description",
    ],
    ["/v1/import/catalog", '{"tools": [{"id": "t3", "tags": ["ok", "\\ud800\\ud800"]}]}', "tools[0].tags[1]"],
  ])("%s %s → 400 at %s", async (path, body, field) => {
    const before = await countRecommendations(engineOf(tg).db, "text");
    const r = await post(path, body);
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe(field);
    expect(r.json.error.message).toMatch(
      /must be well-formed Unicode \(found a lone surrogate U\+D[89A-F][0-9A-F]{2} at index \d+\)/,
    );
    await tg.recommendations.flush();
    expect(await countRecommendations(engineOf(tg).db, "text")).toEqual(before);
    expect(internal.filter((l) => l.includes("internal error"))).toEqual([]);
  });

  it("MCP answers isError naming the field", async () => {
    const r = await callTool(tg, MCP_TOOLS.find((t) => t.name === "search_tools")!, { intent: "find \ud800" });
    expect(r.isError).toBe(true);
    expect((r._meta![ERROR_META_KEY] as { field: string }).field).toBe("intent");
  });

  it("a JSONL line with one is skipped with --skip-invalid like any bad line, naming line and field", async () => {
    const r = await tg.importTraces([EXEC("ok", "jl-1"), EXEC("bad \\udfff", "jl-2")].join("\n"), {
      skipInvalid: true,
    });
    expect(r.inserted).toBe(1);
    expect(r.invalid.map((e) => [e.line, e.field])).toEqual([[2, "intent"]]);
  });

  it("well-formed text round-trips exactly (surrogate pairs, other scripts), and every logged answer is written", async () => {
    const description = "fetch 😀 a page — 検索 \u{1F600}\u{10FFFF}";
    expect(
      (
        await post(
          "/v1/import/catalog",
          JSON.stringify({ tools: [{ id: "emoji", description, inputSchema: { description } }] }),
        )
      ).status,
    ).toBe(200);
    const row = await engineOf(tg)
      .db.selectFrom("tools")
      .select(["description", "input_schema"])
      .where("project", "=", "text")
      .where("id", "=", "emoji")
      .executeTakeFirstOrThrow();
    expect(row.description).toBe(description);
    expect(row.input_schema).toEqual({ description });
    const before = (await countRecommendations(engineOf(tg).db, "text")).recommendations;
    const ids: string[] = [];
    for (const intent of ["fetch 😀", "parse 検索", "fetch a page"])
      ids.push(
        (await post("/v1/search", JSON.stringify({ intent, session: `s-${ids.length}-😀` }))).json.recommendationId,
      );
    await tg.recommendations.flush();
    expect(ids.every((id) => typeof id === "string")).toBe(true);
    expect((await countRecommendations(engineOf(tg).db, "text")).recommendations).toBe(before + 3);
    expect(tg.recommendations.dropped).toBe(0);
    expect(logErrors).toEqual([]);
  });
});
