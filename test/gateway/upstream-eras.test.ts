/**
 * The gateway's upstream side in both protocol eras: in front of a server that speaks only 2026-07-28
 * (fixtures/modern-server.mjs, refusing every 2025 opening) over stdio and over Streamable HTTP, and of
 * server-everything (a 2025-only server), each connection negotiates its own revision, the calls pass through
 * unchanged, and a session that uses all three is recorded as one execution with its steps in order.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { runGatewayStdio } from "../../src/gateway/transports.ts";
import { Upstream } from "../../src/gateway/upstream.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const modern = fileURLToPath(new URL("./fixtures/modern-server.mjs", import.meta.url));
let tg: Toolgraph;
let gateway: Gateway;
let httpServer: ChildProcess;

beforeAll(async () => {
  httpServer = spawn(process.execPath, [modern, "http"], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(httpServer.stdout!, "data")) as [Buffer];
  const { listening } = JSON.parse(String(line)) as { listening: string };
  tg = await openToolgraph({ home: "memory://", database: "", project: "gwu", embeddings: "hash:256" });
  const config = parseGatewayConfig({
    mcpServers: {
      modern: { command: process.execPath, args: [modern, "stdio"] },
      remote: { url: `${listening}/mcp` },
      everything: { command: process.execPath, args: [everything, "stdio"] },
    },
  });
  gateway = new Gateway(tg, { config, log: () => {} });
  await gateway.start();
}, 180_000);

afterAll(async () => {
  await gateway?.close();
  await tg?.close();
  httpServer?.kill();
});

describe("gateway upstreams of either era", () => {
  it("negotiates 2026-07-28 with the new server over stdio and HTTP, 2025 with the old one", () => {
    const st = gateway.status();
    expect(st.down).toEqual([]);
    const byName = Object.fromEntries(st.servers.map((s) => [s.server, s]));
    expect(byName.modern).toMatchObject({ state: "up", tools: 3, protocolVersion: "2026-07-28" });
    expect(byName.remote).toMatchObject({ state: "up", tools: 3, protocolVersion: "2026-07-28" });
    expect(byName.everything?.protocolVersion).toMatch(/^2025-/);
  });

  it("forwards calls to all three and records them as one execution, in order", async () => {
    const session = gateway.createSession();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    const client = new Client({ name: "eras-agent", version: "1" });
    await client.connect(b);
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name: "call_tool", arguments: { name, arguments: args } });
    await client.callTool({ name: "search_tools", arguments: { intent: "add, shout and sum across eras" } });
    expect((await call("modern.add", { a: 40, b: 2 })).content).toEqual([{ type: "text", text: "42" }]);
    expect((await call("remote.shout", { text: "quiet" })).content).toEqual([{ type: "text", text: "QUIET" }]);
    expect((await call("everything.get-sum", { a: 1, b: 1 })).content).toEqual([
      { type: "text", text: "The sum of 1 and 1 is 2." },
    ]);
    await client.close();
    await session.close();
    await gateway.flush();
    const rows = await engineOf(tg).db
      .selectFrom("executions as e")
      .innerJoin("execution_steps as s", (j) =>
        j.onRef("s.project", "=", "e.project").onRef("s.execution_id", "=", "e.id"),
      )
      .select(["e.intent", "e.user_id", "s.tool_id", "s.success"])
      .where("e.project", "=", "gwu")
      .orderBy("s.idx")
      .execute();
    expect(rows).toEqual(
      ["modern.add", "remote.shout", "everything.get-sum"].map((tool_id) => ({
        intent: "add, shout and sum across eras",
        user_id: "eras-agent",
        tool_id,
        success: true,
      })),
    );
  });

  it("follows a 2026-07-28 stdio server's tool list changes through its subscription", async () => {
    const session = gateway.createSession();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    const client = new Client({ name: "grow-agent", version: "1" });
    await client.connect(b);
    const modernStatus = () => gateway.status().servers.find((s) => s.server === "modern")!;
    const end = Date.now() + 20_000;
    while (!modernStatus().subscribed && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(modernStatus().subscribed).toBe(true);
    const grown = await client.callTool({ name: "call_tool", arguments: { name: "modern.grow", arguments: {} } });
    expect(grown.content).toEqual([{ type: "text", text: "grown_3" }]);
    while (modernStatus().tools < 4 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(modernStatus()).toMatchObject({ tools: 4, listChanged: 1, relists: 1 });
    expect(gateway.upstreamTool("modern.grown_3")?.tool.name).toBe("grown_3");
    await client.close();
    await session.close();
  });

  it("2026-07-28 end to end: a client of that era on the gateway's stdio door reaches the 2026-only server", async () => {
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "pipe-2026", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (c) => {
      out += String(c);
    });
    const done = runGatewayStdio(gateway, { stdin, stdout, signals: [] });
    const params = { name: "call_tool", arguments: { name: "modern.add", arguments: { a: 5, b: 6 } }, _meta: envelope };
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params })}\n`);
    stdin.end();
    await done;
    const answer = JSON.parse(out.trim().split("\n").at(-1)!);
    expect(answer.result.content).toEqual([{ type: "text", text: "11" }]);
    await gateway.flush();
    const rows = await engineOf(tg).db
      .selectFrom("executions as e")
      .innerJoin("execution_steps as s", (j) =>
        j.onRef("s.project", "=", "e.project").onRef("s.execution_id", "=", "e.id"),
      )
      .select(["s.tool_id"])
      .where("e.project", "=", "gwu")
      .where("e.user_id", "=", "pipe-2026")
      .execute();
    expect(rows).toEqual([{ tool_id: "modern.add" }]);
  });
});

describe("a server's protocol setting", () => {
  const upstream = (args: string[], protocol: string) => {
    const config = parseGatewayConfig({ mcpServers: { s: { command: process.execPath, args, protocol } } });
    return new Upstream("s", config.servers.get("s")!, { minBackoffMs: 600_000, log: () => {} });
  };

  it('"2025" opens with initialize, "2026-07-28" requires that revision, each refusing the other era', async () => {
    const cases: [string[], string, string | undefined][] = [
      [[everything, "stdio"], "2025", "2025-11-25"],
      [[modern, "stdio"], "2026-07-28", "2026-07-28"],
      [[everything, "stdio"], "2026-07-28", undefined], // a 2025 server cannot satisfy the pin
      [[modern, "stdio"], "2025", undefined], // the 2026-only server refuses initialize
    ];
    for (const [args, protocol, negotiated] of cases) {
      const u = upstream(args, protocol);
      try {
        await u.start();
        const st = u.status();
        if (negotiated) expect(st).toMatchObject({ state: "up", protocolVersion: negotiated });
        else expect(st).toMatchObject({ state: "down", error: expect.stringMatching(/^failed to start: /) });
      } finally {
        await u.close();
      }
    }
  });

  it("refuses an unknown value, naming the field", () => {
    expect(() => parseGatewayConfig({ mcpServers: { s: { command: "x", protocol: "2024" } } }, "mcp.json")).toThrow(
      /^mcp\.json: mcpServers\.s\.protocol: /,
    );
  });
});
