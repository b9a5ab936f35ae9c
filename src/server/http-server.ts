/**
 * The HTTP front door: plain node:http over a RecommenderApi. JSON endpoints for every operation (the
 * route table in routes.ts), `GET /health` (no auth), `GET /openapi.json`, and the MCP Streamable HTTP
 * endpoint at `/mcp`, all behind one optional bearer token (compared in constant time).
 *
 * Every body is validated once, by the api (src/library/toolgraph.ts) with the route's schema; bad input is a
 * 400 naming the field (`steps[0].tool`, as on every door), never a 500. The project
 * comes from the body field `project`, the header `x-toolgraph-project` or the query `?project=` (in that
 * order; header and body must agree), else the server's default project.
 *
 * Shutdown: `close()` stops accepting, answers requests arriving on kept-alive connections with 503, lets
 * in-flight requests finish (bounded by `shutdownTimeoutMs`), then drops the remaining connections. The
 * caller closes the api (database) afterwards; `runServer` does both on SIGTERM/SIGINT.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RecommenderApi } from "../contract/api.ts";
import { summarizeAnswer } from "../jobs/recommendation-log.ts";
import { Toolgraph } from "../library/toolgraph.ts";
import type { OriginPolicy } from "../mcp/origin.ts";
import { createLogger, type Logger } from "../ops/logger.ts";
import { MetricsRegistry } from "../ops/metrics.ts";
import { BODY_DEFAULTS } from "./body.ts";
import {
  mcpEndpoint,
  methodNotAllowed,
  metricsEndpoint,
  observeRequest,
  openApiEndpoint,
  readyEndpoint,
} from "./endpoints.ts";
import { HttpError, toHttpError } from "./errors.ts";
import { createReadiness, healthRoute, type Readiness } from "./health.ts";
import { createLifecycle, LISTEN_DEFAULTS, type ListeningAddress } from "./lifecycle.ts";
import { bearerMatches, requestIdOf, requestProject, sendJson, stderrLog } from "./request.ts";
import { routeInput } from "./route-input.ts";
import { ROUTES, type Route } from "./routes.ts";
import { registerServerMetrics } from "./server-metrics.ts";
import { checkCredentials, checkOrigin, consoleLogin, createSessions, type SessionOptions } from "./sessions.ts";
import { createConsole } from "./ui/console.ts";

export const SERVER_DEFAULTS = {
  ...LISTEN_DEFAULTS,
  bodyLimitBytes: BODY_DEFAULTS.limitBytes,
  shutdownTimeoutMs: 10_000,
} as const;

export { bearerMatches, PROJECT_HEADER } from "./request.ts";

export interface ServerOptions {
  /** Bearer token every request but /health must carry. Default TOOLGRAPH_TOKEN; unset or "" = no auth. */
  token?: string | undefined;
  /** A second bearer token accepted like `token`: the local credential `serve` gives the CLI (src/cli/server-file.ts). */
  localToken?: string | undefined;
  /** Largest request body in bytes; larger gets 413. Default 10 MiB. */
  bodyLimitBytes?: number | undefined;
  /** Project of requests that name none. Default: the api's own project. */
  defaultProject?: string | undefined;
  /** How long close() waits for in-flight requests before dropping connections (ms). Default 10 000. */
  shutdownTimeoutMs?: number | undefined;
  /** Serve the MCP Streamable HTTP endpoint at /mcp. Default true. */
  mcp?: boolean | undefined;
  /** Serve the web console at /ui (and its JSON under /v1/console/*) when the api is a Toolgraph. Default true. */
  console?: boolean | undefined;
  /** Where internal errors and lifecycle lines go. Default: stderr. */
  log?: ((line: string) => void) | undefined;
  /** Structured logger for request lines (request id, job, status, ms). Default: createLogger writing to `log`. */
  logger?: Logger | undefined;
  /** Start the warm-up (model, search index, analytics) that /ready waits for when listening. Default true. */
  warmUp?: boolean | undefined;
  /**
   * Origins and Host names every route but /health and /ready accepts besides the server's own
   * (DNS-rebinding protection, src/mcp/origin.ts).
   */
  originPolicy?: OriginPolicy | undefined;
  /** The console's sessions (lifetime, clock): src/server/sessions.ts. */
  sessions?: SessionOptions | undefined;
  /**
   * Serves /mcp instead of the stateless endpoint (the gateway's Streamable HTTP sessions): every method;
   * the body is parsed JSON for POST, undefined otherwise. Token and Origin rules apply before it.
   */
  mcpHandler?:
    | ((req: IncomingMessage, res: ServerResponse, body: unknown, project: string | undefined) => Promise<void>)
    | undefined;
  /** Bearer tokens /mcp accepts besides `token` (the gateway's per-identity tokens); true when the header carries one. Default: none. */
  mcpTokens?: ((authorization: string | undefined) => boolean) | undefined;
  /**
   * Extra fields of the /health answer (the gateway's servers); `ok: false` among them answers 503.
   * `authorized`: the request carries the bearer token (or none is set); without it, say no more than ok.
   */
  healthExtra?: ((ctx: { authorized: boolean }) => Record<string, unknown>) | undefined;
  /** Registers more metrics on the server's registry (the gateway's write backlog). */
  registerMetrics?: ((metrics: MetricsRegistry) => void) | undefined;
}

export type { ListeningAddress };

export interface ToolgraphServer {
  /** The underlying node:http server. */
  readonly server: Server;
  /** Starts listening (port 0 = ephemeral). Default host 127.0.0.1. */
  listen(port?: number, host?: string): Promise<ListeningAddress>;
  /** Graceful close: stop accepting, finish in-flight requests (bounded wait), drop the rest. Idempotent. */
  close(): Promise<void>;
  /** Drops every connection now (a second signal during a graceful close). */
  forceClose(): void;
  /** Requests being handled right now. */
  readonly inFlight: number;
  /** The readiness checks behind /ready (add checks with `addCheck`). */
  readonly readiness: Readiness;
  /** The Prometheus registry behind /metrics. */
  readonly metrics: MetricsRegistry;
}

export function createServer(api: RecommenderApi, options: ServerOptions = {}): ToolgraphServer {
  const token = options.token ?? process.env.TOOLGRAPH_TOKEN ?? "";
  const localToken = options.localToken ?? "";
  /** The request carries a token the server accepts (or the server has none). */
  const bearerOk = (req: IncomingMessage): boolean =>
    token === "" ||
    bearerMatches(req.headers.authorization, token) ||
    (localToken !== "" && bearerMatches(req.headers.authorization, localToken));
  const bodyLimit = options.bodyLimitBytes ?? SERVER_DEFAULTS.bodyLimitBytes;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? SERVER_DEFAULTS.shutdownTimeoutMs;
  const log = options.log ?? stderrLog;
  const mcpEnabled = options.mcp ?? true;
  const byPath = new Map<string, Route[]>();
  for (const r of ROUTES) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  const logger = options.logger ?? createLogger({ write: log });
  const readiness = createReadiness(api, { project: options.defaultProject });
  const metrics = new MetricsRegistry();
  const latency = metrics.histogram(
    "toolgraph_http_request_duration_seconds",
    "HTTP request latency by job (operation), method and status code",
  );
  const decisions = metrics.counter("toolgraph_gate_decisions_total", "Answers by job and the gate's overall decision");
  const jobOf = new WeakMap<ServerResponse, string>();
  options.registerMetrics?.(metrics);
  registerServerMetrics(metrics, api, {
    readiness,
    logger,
    defaultProject: options.defaultProject,
    inFlight: () => life.active,
  });
  const ui =
    (options.console ?? true) && api instanceof Toolgraph
      ? createConsole(api, { defaultProject: options.defaultProject ?? api.project })
      : undefined;
  const sessions = createSessions(options.sessions);

  const server: Server = createHttpServer((req, res) => {
    life.enter();
    const requestId = requestIdOf(req);
    res.setHeader("x-request-id", requestId);
    observeRequest(req, res, { jobOf, latency, logger, requestId, onClose: () => life.leave() });
    handle(req, res).catch((err) => fail(res, err));
  });

  const life = createLifecycle(server, { shutdownTimeoutMs, log, readiness, warmUp: options.warmUp ?? true });

  /** Every JSON answer; during shutdown it also asks the client to drop the connection. */
  function respond(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
    sendJson(res, status, value, life.closing ? { ...headers, connection: "close" } : headers);
  }

  function fail(res: ServerResponse, err: unknown): void {
    const m = toHttpError(err);
    if (m.internal) log(`toolgraph server: internal error: ${(err as Error)?.stack ?? String(err)}`);
    respond(res, m.status, m.body, m.headers);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    if (life.closing)
      throw new HttpError(503, "shutting-down", "the server is shutting down", { headers: { connection: "close" } });

    if (path === "/health") {
      jobOf.set(res, "health");
      if (method !== "GET" && method !== "HEAD") throw methodNotAllowed(method, path, ["GET", "HEAD"]);
      return healthRoute(req, res, url, { api, bearerOk, options, respond, log });
    }
    if (path === "/ready") {
      jobOf.set(res, "ready");
      return readyEndpoint(res, method, { readiness, logger, respond });
    }
    checkOrigin(req, path, (server.address() as AddressInfo | null)?.address, options.originPolicy);
    if (ui && path === "/ui" && url.searchParams.has("token")) return consoleLogin(req, res, url, { token, sessions });
    // The gateway's per-identity tokens open /mcp only (mcpTokens).
    const mcpToken = path === "/mcp" && options.mcpTokens?.(req.headers.authorization) === true;
    checkCredentials(req, method, path, (r) => mcpToken || bearerOk(r), sessions);
    if (path === "/metrics") {
      jobOf.set(res, "metrics");
      return metricsEndpoint(res, method, metrics);
    }
    if (path === "/openapi.json") return openApiEndpoint(res, method, respond);
    if (path === "/mcp" && mcpEnabled) {
      jobOf.set(res, "mcp");
      const { defaultProject, mcpHandler: handler } = options;
      return mcpEndpoint(req, res, url, method, { api, respond, bodyLimit, defaultProject, handler });
    }

    if (ui && (path === "/ui" || path.startsWith("/ui/") || path.startsWith("/v1/console/"))) jobOf.set(res, "console");
    if (ui && (await ui.handle(req, res, url, requestProject(req, url, undefined)))) return;
    const routes = byPath.get(path);
    if (!routes) throw new HttpError(404, "not-found", `no endpoint ${path} (see /openapi.json)`);
    const route = routes.find((r) => r.method === method);
    if (!route) {
      const allowed = routes.map((r) => r.method);
      throw methodNotAllowed(method, path, allowed, `use ${allowed.join(" or ")}`);
    }
    jobOf.set(res, route.operationId);
    const input = await routeInput(route, req, url, { bodyLimit, defaultProject: options.defaultProject });
    const result = await route.handle(api, input);
    if (route.tag === "recommend" && route.operationId !== "feedback")
      decisions.inc({ job: route.operationId, decision: summarizeAnswer(route.operationId, result).decision });
    respond(res, 200, result);
  }

  return {
    server,
    get inFlight() {
      return life.active;
    },
    readiness,
    metrics,
    listen: (port, host) => life.listen(port, host),
    close: () => life.close(),
    forceClose: () => life.forceClose(),
  };
}

export interface StartServerOptions extends ServerOptions {
  api: RecommenderApi;
  /** TCP port; 0 = ephemeral. Default 8787. */
  port?: number | undefined;
  /** Interface to bind. Default 127.0.0.1 (loopback only). */
  host?: string | undefined;
  /** Called once listening, with the address. */
  onListening?: ((address: ListeningAddress) => void) | undefined;
}

export interface ServerHandle extends ListeningAddress {
  server: ToolgraphServer;
  /** Graceful close of the HTTP server (not of the api). */
  close(): Promise<void>;
}

/** Creates the server and listens; resolves once it accepts connections. */
export async function startServer(options: StartServerOptions): Promise<ServerHandle> {
  const { api, port, host, onListening, ...rest } = options;
  const s = createServer(api, rest);
  const address = await s.listen(port ?? SERVER_DEFAULTS.port, host ?? SERVER_DEFAULTS.host);
  onListening?.(address);
  return { ...address, server: s, close: () => s.close() };
}

export interface RunServerOptions extends StartServerOptions {
  /** Signals that start the graceful shutdown; a second one drops connections at once. Default SIGTERM, SIGINT. */
  signals?: NodeJS.Signals[] | undefined;
  /** Close the api (database) after the server. Default true. */
  closeApi?: boolean | undefined;
}

/**
 * For `toolgraph serve`: starts the server and resolves when a signal has shut it down gracefully (server
 * closed, in-flight requests done, then the api closed). Rejects only if it cannot listen, after closing the
 * api (unless `closeApi: false`).
 */
export async function runServer(options: RunServerOptions): Promise<void> {
  const log = options.log ?? stderrLog;
  let handle: ServerHandle;
  try {
    handle = await startServer(options);
  } catch (err) {
    // Cannot listen (port busy, no permission): close the api it owns too, so its database, its workers and
    // the data-directory lock do not keep the process alive after the error.
    if (options.closeApi ?? true) await options.api.close();
    throw err;
  }
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  await new Promise<void>((resolve, reject) => {
    let stopping = false;
    const onSignal = (sig: NodeJS.Signals) => {
      if (stopping) {
        log(`toolgraph server: ${sig} again, dropping connections`);
        handle.server.forceClose();
        return;
      }
      stopping = true;
      log(`toolgraph server: ${sig}, finishing in-flight requests`);
      handle
        .close()
        .then(() => ((options.closeApi ?? true) ? options.api.close() : undefined))
        .then(() => {
          for (const s of signals) process.off(s, onSignal);
          resolve();
        }, reject);
    };
    for (const s of signals) process.on(s, onSignal);
  });
}
