/**
 * The gateway's two doors: one session over stdio in either protocol era (closing stdin lets running calls
 * finish, then the session's open execution is recorded), and Streamable HTTP sessions on the existing HTTP server (one
 * gateway session per MCP session id; DELETE, a closed transport, `sessionIdleMs` without a request, or
 * eviction at `maxSessions` ends it: docs/decisions/gateway-churn.md). The HTTP door serves the gateway's one
 * project: an `x-toolgraph-project` (or `?project=`) naming another is refused with 400. A session opened with a
 * bearer token of the config's `tokens` gets that token's policy and user (session-policy.ts); with `tokens`
 * set, a session needs one of them or the server's own token (the gateway's policy alone), and every later
 * request of a session must present a token of the same policy (403 otherwise).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import {
  type CallToolResult as V2CallToolResult,
  Server as V2Server,
  type Tool as V2Tool,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { trackInFlight } from "../mcp/in-flight.ts";
import { hangUp, StdioWire } from "../mcp/stdio-wire.ts";
import { bearerMatches } from "../server/http-server.ts";
import type { TokenIdentity } from "./config.ts";
import { GATEWAY_INFO, type Gateway, type GatewaySession } from "./gateway.ts";

export interface GatewayStdioOptions {
  stdin?: NodeJS.ReadableStream | undefined;
  stdout?: NodeJS.WritableStream | undefined;
  /** Signals that end the session. Default SIGTERM, SIGINT. */
  signals?: NodeJS.Signals[] | undefined;
}

/**
 * The 2026-07-28 face of one stdio gateway session: a v2 server whose `tools/list` is the gateway's fixed
 * tools (the same for every connection; upstream tools are reached through call_tool) and whose calls go to
 * the session over an in-memory 2025 link, so recording and trust work as on the 2025 face.
 */
async function modernGatewayServer(gateway: Gateway, session: GatewaySession): Promise<V2Server> {
  const [inner, outer] = InMemoryTransport.createLinkedPair();
  await session.server.connect(inner);
  const link = new Client({ name: "toolgraph-gateway-2026", version: GATEWAY_INFO.version });
  await link.connect(outer);
  const server = new V2Server(GATEWAY_INFO, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler("tools/list", async () => ({ tools: gateway.toolList([]) as V2Tool[] }));
  server.setRequestHandler("tools/call", async (request) => (await link.callTool(request.params)) as V2CallToolResult);
  server.onclose = () => void link.close();
  return server;
}

/**
 * Serves one session over stdio in either protocol era (the SDK's serveStdio pins it from the opening
 * message); resolves when stdin ends (after the running calls finish) or on a signal.
 */
export async function runGatewayStdio(gateway: Gateway, options: GatewayStdioOptions = {}): Promise<void> {
  const wire = new StdioWire(options.stdin ?? process.stdin, options.stdout ?? process.stdout);
  const session = gateway.createSession();
  const handle = serveStdio(
    ({ era }) => (era === "modern" ? modernGatewayServer(gateway, session) : (session.server as unknown as V2Server)),
    { transport: wire },
  );
  // serveStdio installs its handlers synchronously; count the requests it receives from here on.
  const inFlight = trackInFlight(wire);
  await hangUp(wire, options.signals);
  // session.close() waits for the running calls; their answers still go out on stdout.
  await inFlight.drain();
  await session.close();
  await handle.close();
}

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

function jsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
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

/** The revision a 2026-07-28-style request claims in its `_meta` envelope, if it carries one. */
function envelopeVersion(body: unknown): string | undefined {
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params?._meta;
  const v = meta?.["io.modelcontextprotocol/protocolVersion"];
  return typeof v === "string" ? v : undefined;
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

interface OpenSession {
  transport: StreamableHTTPServerTransport;
  session: GatewaySession;
  lastSeen: number;
  /** Requests of this session being answered now (never idle, never evicted). */
  active: number;
  /** Open GET event streams (a connected client: never idle, but evictable at the cap). */
  streams: number;
}

/** The /mcp handler for `toolgraph gateway --http`: sessionful Streamable HTTP, one gateway session each. */
export function gatewayHttpHandler(gateway: Gateway, options: GatewayHttpOptions = {}): GatewayHttpHandler {
  const idleMs = options.sessionIdleMs ?? GATEWAY_HTTP_DEFAULTS.sessionIdleMs;
  const maxSessions = options.maxSessions ?? GATEWAY_HTTP_DEFAULTS.maxSessions;
  const log = options.log ?? (() => {});
  // Map order is least recently used first: a session is re-inserted on each request.
  const open = new Map<string, OpenSession>();

  const end = async (s: OpenSession): Promise<void> => {
    open.delete(s.session.id);
    await s.session.close();
    await s.transport.close().catch(() => undefined);
  };

  const sweep = async (): Promise<number> => {
    const now = Date.now();
    const idle = [...open.values()].filter((s) => s.active === 0 && s.streams === 0 && now - s.lastSeen > idleMs);
    for (const s of idle) await end(s);
    if (idle.length > 0) log(`toolgraph gateway: ended ${idle.length} HTTP session(s) idle for over ${idleMs} ms`);
    return idle.length;
  };

  const timer = setInterval(() => void sweep(), Math.max(10, Math.min(idleMs / 2, 60_000)));
  timer.unref();

  const serve = async (s: OpenSession, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const stream = req.method === "GET";
    if (stream) s.streams++;
    else s.active++;
    s.lastSeen = Date.now();
    open.delete(s.session.id);
    open.set(s.session.id, s);
    try {
      await s.transport.handleRequest(req, res, body);
    } finally {
      // The node transport resolves a GET when its stream closes; one that returns earlier is counted until then.
      const done = () => {
        if (stream) s.streams--;
        else s.active--;
        s.lastSeen = Date.now();
      };
      if (stream && !res.writableEnded && !res.destroyed) res.once("close", done);
      else done();
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
        if (!s)
          return jsonRpcError(res, 404, `unknown or ended MCP session ${JSON.stringify(sid)}: initialize a new one`);
        if (identity?.policy !== s.session.policy?.name)
          return jsonRpcError(
            res,
            403,
            "this MCP session was opened with another bearer token: send the token it was opened with",
          );
        return serve(s, req, res, body);
      }
      // The gateway's sessions speak the 2025 era (docs/decisions/mcp-protocol-eras.md): a 2026-07-28 request is
      // told so with the spec's unsupported-version error, which lets a client that negotiates fall back to initialize.
      const requested = req.method === "POST" ? envelopeVersion(body) : undefined;
      if (requested !== undefined) {
        const id = (body as { id?: unknown }).id ?? null;
        const supported = [...SUPPORTED_PROTOCOL_VERSIONS];
        res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            error: {
              code: -32022,
              message: `Unsupported protocol version: ${requested} (this gateway speaks ${supported.join(", ")}: send initialize)`,
              data: { supported, requested },
            },
          }),
        );
        return;
      }
      if (req.method !== "POST" || !isInitializeRequest(body))
        return jsonRpcError(res, 400, "no mcp-session-id header: send an initialize request first");
      if (
        tokens &&
        tokens.length > 0 &&
        !identity &&
        !(options.serverToken && bearerMatches(req.headers.authorization, options.serverToken))
      ) {
        return jsonRpcError(
          res,
          401,
          "missing or unknown bearer token: this gateway gives each token its policy (config tokens); send Authorization: Bearer <token>",
          {
            "www-authenticate": 'Bearer realm="toolgraph"',
          },
        );
      }
      if (open.size >= maxSessions) await sweep();
      if (open.size >= maxSessions) {
        const lru = [...open.values()].find((s) => s.active === 0);
        if (!lru)
          return jsonRpcError(
            res,
            503,
            `the gateway has ${open.size} HTTP sessions, all answering a request: try again shortly`,
            { "retry-after": "1" },
          );
        log(`toolgraph gateway: ${open.size} HTTP sessions open (the cap): ended the least recently used one`);
        await end(lru);
      }
      const session = gateway.createSession({ policy: identity?.policy, user: identity?.user });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => session.id,
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          open.set(id, { transport, session, lastSeen: Date.now(), active: 0, streams: 0 });
        },
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
    },
    sweep,
    async close() {
      clearInterval(timer);
      for (const s of [...open.values()]) await end(s);
      open.clear();
    },
  };
}

/**
 * The gateway's part of /health: with the token, each server's state (pid and last error included); without
 * it only whether every server is up — an upstream's stderr line can carry a secret.
 */
export function gatewayHealth(gateway: Gateway): (ctx: { authorized: boolean }) => Record<string, unknown> {
  return ({ authorized }) => {
    const st = gateway.status();
    return authorized
      ? { gateway: { ok: st.down.length === 0, servers: st.servers, down: st.down } }
      : { gateway: { ok: st.down.length === 0 } };
  };
}
