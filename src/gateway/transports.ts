/**
 * The gateway's two doors: one session over stdio in either protocol era (closing stdin lets running calls
 * finish, then the session's open execution is recorded), and Streamable HTTP sessions on the existing HTTP server (one
 * gateway session per MCP session id; DELETE, a closed transport, `sessionIdleMs` without a request, or
 * eviction at `maxSessions` ends it: docs/decisions/gateway-churn.md). The HTTP door serves the gateway's one
 * project: an `x-toolgraph-project` (or `?project=`) naming another is refused with 400. A session opened with a
 * bearer token of the config's `tokens` gets that token's policy and user (session-policy.ts); with `tokens`
 * set, a session needs one of them or the server's own token (the gateway's policy alone), and every later
 * request of a session must present a token of the same policy (403 otherwise). Over HTTP a 2026-07-28
 * request (no session) is checked the same way on every request, and its calls join the gateway session of
 * their execution group (modern-door.ts, docs/decisions/gateway-stateless-executions.md).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHandler, isLegacyRequest, type Server as V2Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { ToolgraphError } from "../contract/errors.ts";
import { webRequest, writeResponse } from "../mcp/http.ts";
import { trackInFlight } from "../mcp/in-flight.ts";
import { hangUp, StdioWire } from "../mcp/stdio-wire.ts";
import { bearerMatches } from "../server/http-server.ts";
import type { TokenIdentity } from "./config.ts";
import type { Gateway, GatewaySession } from "./gateway.ts";
import { executionGroup, modernGatewayServer } from "./modern-door.ts";

export interface GatewayStdioOptions {
  stdin?: NodeJS.ReadableStream | undefined;
  stdout?: NodeJS.WritableStream | undefined;
  /** Signals that end the session. Default SIGTERM, SIGINT. */
  signals?: NodeJS.Signals[] | undefined;
}

/**
 * Serves one session over stdio in either protocol era (the SDK's serveStdio pins it from the opening
 * message); resolves when stdin ends (after the running calls finish) or on a signal.
 */
export async function runGatewayStdio(gateway: Gateway, options: GatewayStdioOptions = {}): Promise<void> {
  const wire = new StdioWire(options.stdin ?? process.stdin, options.stdout ?? process.stdout);
  const session = gateway.createSession();
  const handle = serveStdio(
    ({ era }) =>
      era === "modern" ? modernGatewayServer(gateway, async () => session) : (session.server as unknown as V2Server),
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
  /** The map key: the MCP session id (2025), or the execution group's key (2026-07-28: modern-door.ts). */
  key: string;
  /** The 2025 session's transport; none for a 2026-07-28 group, which has no connection of its own. */
  transport: StreamableHTTPServerTransport | undefined;
  session: GatewaySession;
  lastSeen: number;
  /** Requests of this session being answered now (never idle, never evicted). */
  active: number;
  /** Open GET event streams (a connected client: never idle, but evictable at the cap). */
  streams: number;
}

/**
 * The /mcp handler for `toolgraph gateway --http`: sessionful Streamable HTTP for 2025 clients, one gateway
 * session each; stateless 2026-07-28 requests, whose calls are grouped into gateway sessions by
 * modern-door.ts. Both kinds share the idle sweep and the `maxSessions` cap.
 */
export function gatewayHttpHandler(gateway: Gateway, options: GatewayHttpOptions = {}): GatewayHttpHandler {
  const idleMs = options.sessionIdleMs ?? GATEWAY_HTTP_DEFAULTS.sessionIdleMs;
  const maxSessions = options.maxSessions ?? GATEWAY_HTTP_DEFAULTS.maxSessions;
  const log = options.log ?? (() => {});
  // Map order is least recently used first: a session is re-inserted on each request.
  const open = new Map<string, OpenSession>();

  const end = async (s: OpenSession): Promise<void> => {
    open.delete(s.key);
    await s.session.close();
    await s.transport?.close().catch(() => undefined);
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

  /** Makes room for one more session at the cap (ends the least recently used idle one); false when none can go. */
  const makeRoom = async (): Promise<boolean> => {
    if (open.size >= maxSessions) await sweep();
    if (open.size < maxSessions) return true;
    const lru = [...open.values()].find((s) => s.active === 0);
    if (!lru) return false;
    log(`toolgraph gateway: ${open.size} HTTP sessions open (the cap): ended the least recently used one`);
    await end(lru);
    return true;
  };
  const full = () => `the gateway has ${open.size} HTTP sessions, all answering a request: try again shortly`;

  const touch = (s: OpenSession): void => {
    s.lastSeen = Date.now();
    open.delete(s.key);
    open.set(s.key, s);
  };

  const serve = async (s: OpenSession, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const stream = req.method === "GET";
    if (stream) s.streams++;
    else s.active++;
    touch(s);
    try {
      await s.transport!.handleRequest(req, res, body);
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

  /** What the 2026-07-28 server of one request needs to know of it: the caller, and the sessions it holds. */
  interface Exchange {
    identity: TokenIdentity | undefined;
    caller: { identity: string; peer: string };
    held: OpenSession[];
  }
  const exchanges = new WeakMap<Request, Exchange>();

  /** The session of a 2026-07-28 call's group (created at need), held until its request is answered. */
  const groupSession = async (
    x: Exchange,
    meta: Record<string, unknown> | undefined,
    clientName: string | undefined,
  ): Promise<GatewaySession> => {
    const key = `2026:${executionGroup(meta, clientName, x.caller).key}`;
    let s = open.get(key);
    if (!s) {
      if (!(await makeRoom())) throw new ToolgraphError("gateway-busy", full());
      const session = gateway.createSession({
        policy: x.identity?.policy,
        user: x.identity?.user ?? gateway.options.user ?? clientName,
      });
      s = { key, transport: undefined, session, lastSeen: Date.now(), active: 0, streams: 0 };
      open.set(key, s);
    }
    s.active++;
    x.held.push(s);
    touch(s);
    return s.session;
  };

  // One handler for every 2026-07-28 request; it builds a server per request, which finds its exchange by the
  // web Request it serves. A refused request (header mismatch, unsupported version) is answered in-band.
  const modernHandler = createMcpHandler(
    ({ requestInfo }) => {
      const x = requestInfo && exchanges.get(requestInfo);
      return modernGatewayServer(gateway, async ({ meta, clientName }) => {
        if (!x) throw new Error("no exchange for this request");
        return groupSession(x, meta, clientName);
      });
    },
    { legacy: "reject", onerror: () => {} },
  );

  const serveModern = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    request: Request,
    identity: TokenIdentity | undefined,
  ): Promise<void> => {
    const x: Exchange = {
      identity,
      caller: { identity: identity?.policy ?? "", peer: req.socket.remoteAddress ?? "" },
      held: [],
    };
    exchanges.set(request, x);
    try {
      await writeResponse(await modernHandler.fetch(request, { parsedBody: body }), res);
    } finally {
      for (const s of x.held) {
        s.active--;
        s.lastSeen = Date.now();
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
        return serve(s, req, res, body);
      }
      const opening = req.method === "POST" && isInitializeRequest(body);
      const request = req.method === "POST" && !opening ? webRequest(req) : undefined;
      const modern = request !== undefined && !(await isLegacyRequest(request, body));
      if (!opening && !modern)
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
      if (modern) return serveModern(req, res, body, request, identity);
      if (!(await makeRoom())) return jsonRpcError(res, 503, full(), { "retry-after": "1" });
      const session = gateway.createSession({ policy: identity?.policy, user: identity?.user });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => session.id,
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          open.set(id, { key: id, transport, session, lastSeen: Date.now(), active: 0, streams: 0 });
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
      await modernHandler.close();
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
