/**
 * The gateway's stdio door in both protocol eras, in process over piped streams in front of server-everything:
 * a 2025-06-18 pipe (initialize, list, call through call_tool) and a 2026-07-28 pipe (server/discover, the fixed
 * tool list, the same call), each answered before the door returns on EOF, and the 2026 session's call
 * recorded as an execution like a 2025 one.
 */
import { createRequire } from "node:module";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { runGatewayStdio } from "../../src/gateway/transports.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
let tg: Toolgraph;
let gateway: Gateway;

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "pipe", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Writes the lines, ends stdin, waits for the door to return, and gives back the answers by id. */
async function pipe(lines: object[]): Promise<Map<unknown, any>> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (c) => {
    out += String(c);
  });
  const done = runGatewayStdio(gateway, { stdin, stdout, signals: [] });
  for (const l of lines) stdin.write(`${JSON.stringify(l)}\n`);
  stdin.end();
  await done;
  const answers = out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return new Map(answers.filter((a) => a.id !== undefined).map((a) => [a.id, a]));
}

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "gwe", embeddings: "hash:256" });
  const config = parseGatewayConfig({
    mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } },
  });
  gateway = new Gateway(tg, { config, log: () => {} });
  await gateway.start();
}, 180_000);

afterAll(async () => {
  await gateway?.close();
  await tg?.close();
});

/** Recorded steps of everything.get-sum, once at least `n` are there (the writer is asynchronous). */
async function recordedSums(n: number): Promise<number> {
  const end = Date.now() + 20_000;
  for (;;) {
    const rows = await engineOf(tg)
      .db.selectFrom("execution_steps")
      .select("tool_id")
      .where("project", "=", "gwe")
      .where("tool_id", "=", "everything.get-sum")
      .execute();
    if (rows.length >= n || Date.now() > end) return rows.length;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sumCall = { name: "call_tool", arguments: { name: "everything.get-sum", arguments: { a: 3, b: 4 } } };

describe("gateway over stdio, both eras", () => {
  it("2025-06-18: initialize, list, call_tool", async () => {
    const a = await pipe([
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe-2025", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: sumCall },
    ]);
    expect(a.get(1)?.result?.protocolVersion).toBe("2025-06-18");
    expect(a.get(2)?.result?.tools.map((t: any) => t.name)).toContain("call_tool");
    expect(JSON.stringify(a.get(3)?.result?.content)).toContain("7");
  });

  it("2026-07-28: discover, the fixed tool list with cache fields, call_tool", async () => {
    const a = await pipe([
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } },
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: ENVELOPE } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { ...sumCall, _meta: ENVELOPE } },
    ]);
    expect(a.get(1)?.result?.supportedVersions).toContain("2026-07-28");
    const tools = a.get(2)?.result?.tools.map((t: any) => t.name);
    expect(tools).toContain("call_tool");
    expect(tools).toContain("search_tools");
    expect(tools.some((n: string) => n.startsWith("everything."))).toBe(false);
    expect(a.get(2)?.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" });
    expect(a.get(3)?.result?.isError).toBeFalsy();
    expect(JSON.stringify(a.get(3)?.result?.content)).toContain("7");
    // Both sessions (2025 above, 2026 here) recorded their call as an execution step.
    expect(await recordedSums(2)).toBe(2);
  });
});
