/**
 * The MCP Streamable HTTP endpoint, stateless, in either protocol era, with a fresh McpServer per request:
 * - a 2026-07-28 request (it carries the `_meta` envelope) goes to the SDK's createMcpHandler, which checks
 *   the MCP-Protocol-Version / Mcp-Method / Mcp-Name headers against the body and answers plain JSON (the tools
 *   send no notifications before their result);
 * - a 2025-06-18 / 2025-11-25 request goes to the SDK's stateless Streamable HTTP transport with JSON answers,
 *   as before (the SDK's own 2025 leg would answer SSE).
 * The HTTP server (src/server/http-server.ts) mounts it at /mcp behind its token, Host/Origin check and body
 * limit, and passes the parsed JSON-RPC body.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { RecommenderApi } from "../contract/api.ts";
import { createMcpServer, type McpServerOptions } from "./mcp-server.ts";

/** The /mcp endpoint as a fetch function (web Request in, Response out), without node's http. */
export interface McpFetchHandler {
  fetch(request: Request, options?: { parsedBody?: unknown }): Promise<Response>;
  /** Ends the 2026-07-28 exchanges still running. */
  close(): Promise<void>;
}

/** Answers one 2025-era request on a fresh server and stateless transport; the JSON answer is read whole. */
async function legacyAnswer(
  api: RecommenderApi,
  options: McpServerOptions,
  request: Request,
  parsedBody: unknown,
): Promise<Response> {
  const server = createMcpServer(api, options);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
    const text = await response.text();
    return new Response(text === "" ? null : text, { status: response.status, headers: response.headers });
  } finally {
    await server.close();
  }
}

export function createMcpHttpHandler(api: RecommenderApi, options: McpServerOptions = {}): McpFetchHandler {
  // A refused request (header mismatch, unsupported version) is answered in-band; nothing to log.
  const modern = createMcpHandler(() => createMcpServer(api, options), { legacy: "reject", onerror: () => {} });
  return {
    async fetch(request, { parsedBody } = {}) {
      if (await isLegacyRequest(request, parsedBody)) return legacyAnswer(api, options, request, parsedBody);
      return modern.fetch(request, parsedBody === undefined ? {} : { parsedBody });
    },
    close: () => modern.close(),
  };
}

/** The node request as a web Request without its body (the caller has read and parsed it already). */
export function webRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === "content-length" || name === "transfer-encoding") continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(req.url ?? "/mcp", "http://localhost"), { method: req.method ?? "POST", headers });
}

/** Writes a web Response to the node response, streaming its body (an SSE answer of the 2025 leg). */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
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

export async function handleMcpHttp(
  api: RecommenderApi,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  options: McpServerOptions = {},
): Promise<void> {
  const handler = createMcpHttpHandler(api, options);
  try {
    await writeResponse(await handler.fetch(webRequest(req), { parsedBody: body }), res);
  } finally {
    await handler.close();
  }
}
