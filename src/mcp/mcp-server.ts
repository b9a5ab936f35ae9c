/**
 * The MCP front door: an McpServer with one tool per operation of the table (src/contract/operations.ts),
 * calling the same RecommenderApi methods as the HTTP server, with each job's request schema as input schema. Each result is a compact text
 * summary (one line per item) plus the full JSON as structuredContent. A gated-out answer is a normal
 * result that says why; `isError` is reserved for real errors (invalid input, unknown tool, no catalog).
 *
 * Arguments are validated once, by the api, with the same schema the tool lists: `tools/call` is answered
 * here instead of by the SDK's handler (which would check them first and word the error its own way,
 * `steps.0.tool`), so an invalid field reads as on every other door (`steps[0].tool`, in `_meta`). Arguments
 * nested deeper than any body may be (LIMITS.documentDepth) are refused first, naming the path.
 *
 * The server is the SDK's v2 McpServer, so one instance serves either protocol era (2025-06-18 / 2025-11-25
 * with `initialize`, 2026-07-28 with `server/discover`): the doors (stdio.ts, http.ts) build one per
 * connection or request. `tools/list` is the same for every caller (the static table), so it and
 * `server/discover` carry a public cache hint on 2026-07-28 (docs/decisions/mcp-protocol-eras.md).
 */

import { type CacheHint, McpServer } from "@modelcontextprotocol/server";
import type { RecommenderApi } from "../contract/api.ts";
import { VERSION } from "../version.ts";
import { callTool, type McpServerOptions, unknownToolResult } from "./call-tool.ts";
import { type Args, MCP_TOOLS } from "./tools.ts";

export { callTool, ERROR_META_KEY, type McpServerOptions, type ToolResult } from "./call-tool.ts";
export { MCP_TOOLS, type McpToolSpec } from "./tools.ts";

export const MCP_SERVER_INFO = { name: "toolgraph", version: VERSION } as const;

/**
 * Cache hints of the 2026-07-28 cacheable results: the tool list and the discover answer depend only on
 * the toolgraph version, never on the caller, so any cache may keep them for an hour.
 */
export const MCP_CACHE_HINTS: Record<"tools/list" | "server/discover", CacheHint> = {
  "tools/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "server/discover": { ttlMs: 3_600_000, cacheScope: "public" },
};

/** An McpServer with every toolgraph tool registered, bound to one project (one per connection or request). */
export function createMcpServer(api: RecommenderApi, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    cacheHints: MCP_CACHE_HINTS,
    instructions:
      "toolgraph recommends tools from a graph learned from past executions. Use search_tools before picking a tool, suggest_next_tool between steps, " +
      "plan_workflow or build_dag for multi-step tasks, and record_execution when a workflow ends. Answers marked abstained are not confident: say so.",
  });
  for (const spec of MCP_TOOLS) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: spec.inputSchema,
        outputSchema: spec.outputSchema,
        annotations: {
          title: spec.title,
          readOnlyHint: spec.readOnly,
          destructiveHint: false,
          idempotentHint: spec.idempotent ?? spec.readOnly,
          openWorldHint: false,
        },
      },
      (args: Args) => callTool(api, spec, args, options),
    );
  }
  // tools/list stays the SDK's (JSON Schemas of the specs); tools/call passes the arguments unchecked to
  // the api, which validates them once (see the header).
  const byName = new Map(MCP_TOOLS.map((spec) => [spec.name, spec]));
  server.server.setRequestHandler("tools/call", async (request) => {
    const spec = byName.get(request.params.name);
    const args = request.params.arguments ?? {};
    return spec ? callTool(api, spec, args, options) : unknownToolResult(request.params.name);
  });
  return server;
}
