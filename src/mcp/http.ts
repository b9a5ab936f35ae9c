/**
 * The MCP Streamable HTTP endpoint, stateless: a fresh McpServer and transport per request (the SDK's
 * stateless pattern), JSON responses instead of SSE. The HTTP server (src/server/http-server.ts) mounts it
 * at /mcp behind its token and body limit and passes the parsed JSON-RPC body.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { RecommenderApi } from "../contract/api.ts";
import { createMcpServer, type McpServerOptions } from "./mcp-server.ts";

export async function handleMcpHttp(api: RecommenderApi, req: IncomingMessage, res: ServerResponse, body: unknown, options: McpServerOptions = {}): Promise<void> {
  const server = createMcpServer(api, options);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
