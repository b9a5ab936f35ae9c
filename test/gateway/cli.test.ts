/**
 * `toolgraph gateway --config FILE` as a real process over stdio, driven by the SDK's StdioClientTransport
 * as an MCP host would launch it: it proxies server-everything, and when the client disconnects the
 * session's execution is in the database (checked after the process exited).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { engineOf, openToolgraph } from "../../src/library/toolgraph.ts";

const CLI = resolve(import.meta.dirname, "../../src/cli/toolgraph.mjs");
const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

// A child process that opens its own embedded database: slow on a loaded machine.
describe("toolgraph gateway (CLI, stdio)", () => {
  let dir: string;
  const env = { ...process.env, TOOLGRAPH_EMBEDDINGS: "hash:256", DATABASE_URL: "" } as Record<string, string>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "tg-gwcli-"));
    writeFileSync(
      join(dir, "mcp.json"),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } }),
    );
    writeFileSync(
      join(dir, "bad.json"),
      JSON.stringify({ mcpServers: { everything: { command: "node", args: "not-a-list" } } }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a bad config exits 3 with the file and field named", async () => {
    const errs: string[] = [];
    const code = await main(["gateway", "--config", join(dir, "bad.json"), "--home", join(dir, "unused")], {
      out: () => {},
      err: (s) => errs.push(s),
    });
    expect(code).toBe(3);
    expect(errs.join("\n")).toMatch(/bad\.json: mcpServers\.everything\.args: /);
    expect(await main(["gateway"], { out: () => {}, err: () => {} })).toBe(2);
    for (const [flag, value] of [
      ["--max-sessions", "0"],
      ["--session-idle-ms", "5"],
      ["--retire-after-ms", "1.5"],
    ] as const) {
      const said: string[] = [];
      expect(
        await main(["gateway", "--config", join(dir, "mcp.json"), `${flag}=${value}`, "--home", join(dir, "unused")], {
          out: () => {},
          err: (s) => said.push(s),
        }),
      ).toBe(2);
      expect(said.join("\n")).toContain(`${flag} must be an integer`);
    }
  });

  it("proxies, then records the session's calls when the client disconnects", async () => {
    const home = join(dir, "home");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        CLI,
        "gateway",
        "--config",
        join(dir, "mcp.json"),
        "--home",
        home,
        "--project",
        "cli",
        "--user",
        "cli-user",
      ],
      env,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d) => {
      stderr += String(d);
    });
    const client = new Client({ name: "host", version: "1" });
    // Generous request timeouts: the child opens a fresh embedded database and spawns its upstream first.
    const slow = { timeout: 200_000 };
    await client.connect(transport, slow);
    const pid = transport.pid!;
    const names = (await client.listTools(undefined, slow)).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["search_tools", "call_tool", "gateway_status"]));
    const s = (await client.callTool(
      { name: "search_tools", arguments: { intent: "echo a message back" } },
      undefined,
      slow,
    )) as any;
    expect(s.isError, stderr).toBeFalsy();
    const r = (await client.callTool(
      { name: "call_tool", arguments: { name: "everything.echo", arguments: { message: "hello gateway" } } },
      undefined,
      slow,
    )) as any;
    expect(r.content, stderr).toEqual([{ type: "text", text: "Echo: hello gateway" }]);
    await client.close();
    // Wait for the process to be gone (it holds the embedded database).
    for (let i = 0; i < 300; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    const tg = await openToolgraph({ home, database: "", project: "cli", embeddings: "hash:256" });
    try {
      const rows = await engineOf(tg)
        .db.selectFrom("executions")
        .select(["intent", "user_id", "step_count", "success"])
        .where("project", "=", "cli")
        .execute();
      expect(rows, stderr).toEqual([
        { intent: "echo a message back", user_id: "cli-user", step_count: 1, success: true },
      ]);
    } finally {
      await tg.close();
    }
  }, 400_000);
});
