/**
 * createServer: the HTTP front door's request routing (http-server.ts describes the door). The server's own
 * endpoints live in endpoints.ts and health.ts, the operations' routes in routes.ts, the console in ui/.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RecommenderApi } from "../contract/api.ts";
import { summarizeAnswer } from "../jobs/recommendation-log.ts";
import { Toolgraph } from "../library/toolgraph.ts";
import { createLogger } from "../ops/logger.ts";
import { MetricsRegistry } from "../ops/metrics.ts";
import {
  mcpEndpoint,
  methodNotAllowed,
  metricsEndpoint,
  observeRequest,
  openApiEndpoint,
  readyEndpoint,
} from "./endpoints.ts";
import { HttpError, toHttpError } from "./errors.ts";
import { healthRoute } from "./health.ts";
import { createLifecycle } from "./lifecycle.ts";
import { createReadiness } from "./readiness.ts";
import { bearerMatches, requestIdOf, requestProject, sendJson, stderrLog } from "./request.ts";
import { routeInput } from "./route-input.ts";
import { ROUTES, type Route } from "./routes.ts";
import { registerServerMetrics } from "./server-metrics.ts";
import { SERVER_DEFAULTS, type ServerOptions, type ToolgraphServer } from "./server-options.ts";
import { checkCredentials, checkOrigin, consoleLogin, createSessions } from "./sessions.ts";
import { createConsole } from "./ui/console.ts";

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
