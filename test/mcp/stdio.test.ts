/**
 * The MCP server over real stdio: `toolgraph mcp` as a child process speaking the protocol on stdin/stdout,
 * to a 2025-era client (the v1 SDK, a raw 2025-06-18 pipe) and a 2026-07-28 one (the v2 SDK, a raw pipe).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CLI = resolve(import.meta.dirname, "../../src/cli/toolgraph.mjs");

/** The v2 stdio transport probes a sibling process; a subclass probes in place (one child, one database). */
class InPlaceStdio extends ModernStdio {}

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "pipe", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

describe("MCP over stdio (toolgraph mcp)", () => {
  let home: string;
  const env = { ...process.env, TOOLGRAPH_EMBEDDINGS: "hash:256", DATABASE_URL: "" } as Record<string, string>;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "tg-mcp-"));
    execFileSync(process.execPath, [CLI, "demo", "--home", home, "--traces", "150", "--json"], {
      env,
      encoding: "utf8",
    });
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("lists tools and answers search_tools, then exits when the client closes", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--home", home, "--project", "demo"],
      env,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d) => {
      stderr += String(d);
    });
    const client = new Client({ name: "stdio-test", version: "1" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          "search_tools",
          "suggest_next_tool",
          "search_capabilities",
          "build_dag",
          "plan_workflow",
          "record_execution",
        ]),
      );
      const r = (await client.callTool({
        name: "search_tools",
        arguments: { intent: "open a pull request", limit: 3 },
      })) as any;
      expect(r.isError, stderr).toBeFalsy();
      expect(r.structuredContent.results).toHaveLength(3);
      expect(r.content[0].text).toContain("results for");
    } finally {
      await client.close();
    }
  });

  it("closing stdin lets a piped call finish: the answer is written before exit", () => {
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "search_tools", arguments: { intent: "open a pull request", limit: 2 } },
      },
    ];
    const r = spawnSync(process.execPath, [CLI, "mcp", "--home", home, "--project", "demo"], {
      env,
      input: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
      encoding: "utf8",
      timeout: 170_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const answers = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const call = answers.find((a) => a.id === 2);
    expect(call, r.stdout + r.stderr).toBeDefined();
    expect(call.result.isError).toBeFalsy();
    expect(call.result.structuredContent.results).toHaveLength(2);
    expect(r.stderr).not.toContain("destroyed");
  }, 180_000);

  it("a 2026-07-28 client (v2 SDK, pinned) discovers, lists and calls", async () => {
    const transport = new InPlaceStdio({
      command: process.execPath,
      args: [CLI, "mcp", "--home", home, "--project", "demo"],
      env,
      stderr: "pipe",
    });
    const client = new ModernClient(
      { name: "stdio-modern", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe("modern");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("search_tools");
      const r = (await client.callTool({
        name: "search_tools",
        arguments: { intent: "open a pull request", limit: 3 },
      })) as any;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent.results).toHaveLength(3);
    } finally {
      await client.close();
    }
  }, 180_000);

  it("a piped 2026-07-28 exchange (discover, then a call) is answered before exit", () => {
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "search_tools", arguments: { intent: "open a pull request", limit: 2 }, _meta: ENVELOPE },
      },
    ];
    const r = spawnSync(process.execPath, [CLI, "mcp", "--home", home, "--project", "demo"], {
      env,
      input: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
      encoding: "utf8",
      timeout: 170_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const answers = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const discover = answers.find((a) => a.id === 1);
    expect(discover?.result?.supportedVersions, r.stdout + r.stderr).toContain("2026-07-28");
    expect(discover.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" });
    const call = answers.find((a) => a.id === 2);
    expect(call?.result?.structuredContent?.results, r.stdout + r.stderr).toHaveLength(2);
  }, 180_000);
});
