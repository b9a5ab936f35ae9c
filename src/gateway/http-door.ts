/**
 * The gateway's Streamable HTTP door (`toolgraph gateway --http`, on /mcp of the existing HTTP server):
 * sessionful Streamable HTTP for 2025 clients, one gateway session each (http-sessions.ts), and stateless
 * 2026-07-28 requests, whose calls are grouped into gateway sessions (http-modern.ts); both kinds share the idle
 * sweep and the `maxSessions` cap. The door serves the gateway's one project: an `x-toolgraph-project` (or
 * `?project=`) naming another is refused with 400. A session opened with a bearer token of the config's `tokens`
 * gets that token's policy and user (session-policy.ts); with `tokens` set, a session needs one of them or the
 * server's own token (the gateway's policy alone), and every later request of a session must present a token of
 * the same policy (403 otherwise). A 2026-07-28 request is checked the same way on every request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { isLegacyRequest } from "@modelcontextprotocol/server";
import type { TokenIdentity } from "../contract/gateway-policy.ts";
import { webRequest } from "../mcp/http.ts";
import { bearerMatches } from "../server/http-server.ts";
import type { Gateway } from "./gateway.ts";
import { modernHttp } from "./http-modern.ts";
import { HttpSessions } from "./http-sessions.ts";

export const GATEWAY_HTTP_DEFAULTS = {
  /** An HTTP session without a request for this long (ms) is ended (its open execution recorded). */
  sessionIdleMs: 1_800_000,
  /** Open HTTP sessions at most; a new one evicts the least recently used session that runs no request. */
  maxSessions: 500,
} as const;

export interface GatewayHttpOptions {
  /** Default GATEWAY_HTTP_DEFAULTS.sessionIdleMs. */
  sessionIdleMs?: number | undefined;
  /** Default GATEWAY_HTTP_DEFAULTS.maxSessions. */
  maxSessions?: number | undefined;
  /** The HTTP server's own bearer token (TOOLGRAPH_TOKEN), if set: with config `tokens`, it opens sessions under the gateway's policy alone. */
  serverToken?: string | undefined;
  log?: ((line: string) => void) | undefined;
}

export interface GatewayHttpHandler {
  /** `project`: the project the request names (header or query), if any. */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, project?: string | undefined): Promise<void>;
  /** Open HTTP sessions. */
  readonly size: number;
  /** Ends the sessions idle for longer than `sessionIdleMs` (also run by a timer); returns how many. */
  sweep(): Promise<number>;
  /** Ends every HTTP session. */
  close(): Promise<void>;
}

function jsonRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** The identity (named policy, user) of the config token an Authorization header presents, compared in constant time. */
export function tokenIdentity(
  tokens: readonly TokenIdentity[] | undefined,
  authorization: string | undefined,
): TokenIdentity | undefined {
  return tokens?.find((t) => bearerMatches(authorization, t.token));
}

export function gatewayHttpHandler(gateway: Gateway, options: GatewayHttpOptions = {}): GatewayHttpHandler {
  const idleMs = options.sessionIdleMs ?? GATEWAY_HTTP_DEFAULTS.sessionIdleMs;
  const maxSessions = options.maxSessions ?? GATEWAY_HTTP_DEFAULTS.maxSessions;
  const open = new HttpSessions(idleMs, maxSessions, options.log ?? (() => {}));
  const modern = modernHttp(gateway, open);

  /** A 2025 initialize: a new gateway session on a new transport, kept once the SDK has opened it. */
  const initialize = async (req: IncomingMessage, res: ServerResponse, body: unknown, id?: TokenIdentity) => {
    if (!(await open.makeRoom())) return jsonRpcError(res, 503, open.full(), { "retry-after": "1" });
    const session = gateway.createSession({ policy: id?.policy, user: id?.user });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => session.id,
      enableJsonResponse: true,
      onsessioninitialized: (sid) => void open.add(sid, transport, session),
    });
    transport.onclose = () => {
      open.delete(session.id);
      void session.close();
    };
    await session.server.connect(transport);
    try {
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize that did not open a session (refused, failed) leaves nothing behind.
      if (!open.has(session.id)) {
        await session.close();
        await transport.close().catch(() => undefined);
      }
    }
  };

  return {
    get size() {
      return open.size;
    },
    async handle(req, res, body, project) {
      if (project !== undefined && project !== gateway.project) {
        return jsonRpcError(
          res,
          400,
          `x-toolgraph-project: this gateway serves project ${JSON.stringify(gateway.project)} only (its upstream tools and executions live there), got ${JSON.stringify(project)}: drop the header, or run a gateway with --project ${project}`,
        );
      }
      const tokens = gateway.options.config.tokens;
      const identity = tokenIdentity(tokens, req.headers.authorization);
      const sid = req.headers["mcp-session-id"];
      if (typeof sid === "string") {
        const s = open.get(sid);
        if (!s?.transport)
          return jsonRpcError(res, 404, `unknown or ended MCP session ${JSON.stringify(sid)}: initialize a new one`);
        if (identity?.policy !== s.session.policy?.name)
          return jsonRpcError(
            res,
            403,
            "this MCP session was opened with another bearer token: send the token it was opened with",
          );
        return open.serve(s, req, res, body);
      }
      const opening = req.method === "POST" && isInitializeRequest(body);
      const request = req.method === "POST" && !opening ? webRequest(req) : undefined;
      const isModern = request !== undefined && !(await isLegacyRequest(request, body));
      if (!opening && !isModern)
        return jsonRpcError(res, 400, "no mcp-session-id header: send an initialize request first");
      const serverToken = options.serverToken && bearerMatches(req.headers.authorization, options.serverToken);
      if (tokens && tokens.length > 0 && !identity && !serverToken) {
        return jsonRpcError(
          res,
          401,
          "missing or unknown bearer token: this gateway gives each token its policy (config tokens); send Authorization: Bearer <token>",
          { "www-authenticate": 'Bearer realm="toolgraph"' },
        );
      }
      if (isModern) return modern.serve(req, res, body, request, identity);
      return initialize(req, res, body, identity);
    },
    sweep: () => open.sweep(),
    async close() {
      open.stopSweeping();
      await modern.close();
      await open.close();
    },
  };
}
