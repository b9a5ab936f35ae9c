/**
 * The MCP Streamable HTTP endpoint, stateless, in either protocol era: the SDK's createMcpHandler builds a
 * fresh McpServer per request and routes it by its era (a 2026-07-28 request carries the `_meta` envelope
 * and the MCP-Protocol-Version / Mcp-Method / Mcp-Name headers, which it checks against the body; a
 * 2025-06-18 / 2025-11-25 request is served by the stateless 2025 transport, which answers as an SSE
 * stream). 2026-07-28 answers are plain JSON (the tools send no notifications before their result). The HTTP server (src/server/http-server.ts) mounts it at /mcp behind
 * its token, Host/Origin check and body limit, and passes the parsed JSON-RPC body.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { RecommenderApi } from "../contract/api.ts";
import { createMcpServer, type McpServerOptions } from "./mcp-server.ts";

/** The node request as a web Request without its body (the caller has read and parsed it already). */
function webRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === "content-length" || name === "transfer-encoding") continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(req.url ?? "/mcp", "http://localhost"), { method: req.method ?? "POST", headers });
}

/** Writes a web Response to the node response, streaming its body (an SSE answer of the 2025 leg). */
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.once("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise<void>((resolve) => res.once("drain", resolve));
  }
  res.end();
}

/** The fetch-shaped handler of both eras (web Request in, Response out): the /mcp endpoint without node's http. */
export function createMcpHttpHandler(api: RecommenderApi, options: McpServerOptions = {}): McpHttpHandler {
  // A refused request (header mismatch, unsupported version) is answered in-band; nothing to log.
  return createMcpHandler(() => createMcpServer(api, options), { onerror: () => {} });
}

export async function handleMcpHttp(api: RecommenderApi, req: IncomingMessage, res: ServerResponse, body: unknown, options: McpServerOptions = {}): Promise<void> {
  const handler = createMcpHttpHandler(api, options);
  try {
    await writeResponse(await handler.fetch(webRequest(req), { parsedBody: body }), res);
  } finally {
    await handler.close();
  }
}
