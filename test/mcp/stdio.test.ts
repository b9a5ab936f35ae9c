/** The MCP server over real stdio: `toolgraph mcp` as a child process speaking the protocol on stdin/stdout. */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CLI = resolve(import.meta.dirname, "../../src/cli/toolgraph.mjs");

describe("MCP over stdio (toolgraph mcp)", () => {
  let home: string;
  const env = { ...process.env, TOOLGRAPH_EMBEDDINGS: "hash:256", DATABASE_URL: "" } as Record<string, string>;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "tg-mcp-"));
    execFileSync(process.execPath, [CLI, "demo", "--home", home, "--traces", "150", "--json"], { env, encoding: "utf8" });
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("lists tools and answers search_tools, then exits when the client closes", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--home", home, "--project", "demo"], env, stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (d) => {
      stderr += String(d);
    });
    const client = new Client({ name: "stdio-test", version: "1" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["search_tools", "suggest_next_tool", "search_capabilities", "build_dag", "plan_workflow", "record_execution"]));
      const r = (await client.callTool({ name: "search_tools", arguments: { intent: "open a pull request", limit: 3 } })) as any;
      expect(r.isError, stderr).toBeFalsy();
      expect(r.structuredContent.results).toHaveLength(3);
      expect(r.content[0].text).toContain("results for");
    } finally {
      await client.close();
    }
  });

  it("closing stdin lets a piped call finish: the answer is written before exit", () => {
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search_tools", arguments: { intent: "open a pull request", limit: 2 } } },
    ];
    const r = spawnSync(process.execPath, [CLI, "mcp", "--home", home, "--project", "demo"], { env, input: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`, encoding: "utf8", timeout: 170_000 });
    expect(r.status, r.stderr).toBe(0);
    const answers = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const call = answers.find((a) => a.id === 2);
    expect(call, r.stdout + r.stderr).toBeDefined();
    expect(call.result.isError).toBeFalsy();
    expect(call.result.structuredContent.results).toHaveLength(2);
    expect(r.stderr).not.toContain("destroyed");
  }, 180_000);
});
