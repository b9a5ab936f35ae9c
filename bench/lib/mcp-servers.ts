/**
 * The pinned MCP servers (devDependencies) as benches list them: each spawned over stdio with the SDK client,
 * its `tools/list` returned as the server sends it, and the process closed.
 */
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

const require = createRequire(import.meta.url);

/** The tools of `@modelcontextprotocol/<pkg>`, started with `args`. */
export async function listMcpTools(pkg: string, args: string[] = []): Promise<Tool[]> {
  const client = new Client({ name: "toolgraph-bench", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`), ...args],
      stderr: "ignore",
    }),
  );
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}
