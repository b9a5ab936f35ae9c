/** The MCP server over real stdio: `toolgraph mcp` as a child process speaking the protocol on stdin/stdout. */
import { execFileSync } from "node:child_process";
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
});
