/**
 * The gateway's two doors: one session over stdio (closing stdin lets running calls finish, then the
 * session's open execution is recorded), and Streamable HTTP sessions on the existing HTTP server (one
 * gateway session per MCP session id; DELETE or a closed transport ends it).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { type InFlight, trackInFlight } from "../mcp/in-flight.ts";
import type { Gateway, GatewaySession } from "./gateway.ts";

export interface GatewayStdioOptions {
  stdin?: NodeJS.ReadableStream | undefined;
  stdout?: NodeJS.WritableStream | undefined;
  /** Signals that end the session. Default SIGTERM, SIGINT. */
  signals?: NodeJS.Signals[] | undefined;
}

/** Serves one session over stdio; resolves when stdin ends (after the running calls finish) or on a signal. */
export async function runGatewayStdio(gateway: Gateway, options: GatewayStdioOptions = {}): Promise<void> {
  const stdin = (options.stdin ?? process.stdin) as NodeJS.ReadStream;
  const stdout = (options.stdout ?? process.stdout) as NodeJS.WriteStream;
  const session = gateway.createSession();
  const transport = new StdioServerTransport(stdin, stdout);
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  let inFlight: InFlight | undefined;
  await new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      for (const s of signals) process.off(s, finish);
      stdin.off("end", finish);
      stdin.off("close", finish);
      // session.close() waits for the running calls; their answers still go out on stdout.
      (inFlight?.drain() ?? Promise.resolve())
        .then(() => session.close())
        .then(() => resolve(), reject);
    };
    session.server.onclose = finish;
    stdin.once("end", finish);
    stdin.once("close", finish);
    for (const s of signals) process.once(s, finish);
    session.server
      .connect(transport)
      .then(() => {
        inFlight = trackInFlight(transport);
      })
      .catch(reject);
  });
}

function jsonRpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

export interface GatewayHttpHandler {
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  /** Ends every HTTP session. */
  close(): Promise<void>;
}

/** The /mcp handler for `toolgraph gateway --http`: sessionful Streamable HTTP, one gateway session each. */
export function gatewayHttpHandler(gateway: Gateway): GatewayHttpHandler {
  const open = new Map<string, { transport: StreamableHTTPServerTransport; session: GatewaySession }>();
  return {
    async handle(req, res, body) {
      const sid = req.headers["mcp-session-id"];
      if (typeof sid === "string") {
        const s = open.get(sid);
        if (!s) return jsonRpcError(res, 404, `unknown or ended MCP session ${JSON.stringify(sid)}: initialize a new one`);
        return s.transport.handleRequest(req, res, body);
      }
      if (req.method !== "POST" || !isInitializeRequest(body)) return jsonRpcError(res, 400, "no mcp-session-id header: send an initialize request first");
      const session = gateway.createSession();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => session.id,
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          open.set(id, { transport, session });
        },
      });
      transport.onclose = () => {
        open.delete(session.id);
        void session.close();
      };
      await session.server.connect(transport);
      await transport.handleRequest(req, res, body);
    },
    async close() {
      for (const { transport, session } of [...open.values()]) {
        await session.close();
        await transport.close().catch(() => undefined);
      }
      open.clear();
    },
  };
}
