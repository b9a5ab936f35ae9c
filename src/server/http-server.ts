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
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RecommenderApi } from "../contract/api.ts";
import { parseJsonText } from "../formats/json-text.ts";
import { summarizeAnswer } from "../jobs/recommendation-log.ts";
import { Toolgraph } from "../library/toolgraph.ts";
import { handleMcpHttp } from "../mcp/http.ts";
import { type OriginPolicy, originProblem } from "../mcp/origin.ts";
import { createReadiness, type Readiness } from "./health.ts";
import { createLogger, type Logger } from "../ops/logger.ts";
import { METRICS_CONTENT_TYPE, MetricsRegistry } from "../ops/metrics.ts";
import { BODY_DEFAULTS, readBody } from "./body.ts";
import { fieldOf, HttpError, invalidInput, toHttpError, zodProblems } from "./errors.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { JSON_TYPES, JSONL_TYPES, parseFlags, projectSchema, ROUTES, type Route, type RouteInput } from "./routes.ts";
import { cookieToken, createConsole, TOKEN_COOKIE } from "./ui/console.ts";

export const SERVER_DEFAULTS = {
  host: "127.0.0.1",
  port: 8787,
  bodyLimitBytes: BODY_DEFAULTS.limitBytes,
  shutdownTimeoutMs: 10_000,
} as const;

export const PROJECT_HEADER = "x-toolgraph-project";

export interface ServerOptions {
  /** Bearer token every request but /health must carry. Default TOOLGRAPH_TOKEN; unset or "" = no auth. */
  token?: string | undefined;
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
  /** Origins and Host names /mcp accepts besides the server's own (DNS-rebinding protection, src/mcp/origin.ts). */
  originPolicy?: OriginPolicy | undefined;
  /**
   * Serves /mcp instead of the stateless endpoint (the gateway's Streamable HTTP sessions): every method;
   * the body is parsed JSON for POST, undefined otherwise. Token and Origin rules apply before it.
   */
  mcpHandler?: ((req: IncomingMessage, res: ServerResponse, body: unknown, project: string | undefined) => Promise<void>) | undefined;
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

export interface ListeningAddress {
  port: number;
  host: string;
  url: string;
}

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

/** A caller's x-request-id is kept when it is short and printable; otherwise a UUID is made. */
function requestIdOf(req: IncomingMessage): string {
  const h = req.headers["x-request-id"];
  const v = Array.isArray(h) ? h[0] : h;
  return v !== undefined && /^[\x21-\x7e]{1,128}$/.test(v) ? v : randomUUID();
}

function stderrLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** Constant-time comparison of the presented bearer token with the expected one. */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  const given = m?.[1] ?? "";
  // Hashing first makes both buffers 32 bytes, so timingSafeEqual never leaks the length.
  return timingSafeEqual(sha256(given), sha256(expected)) && given.length > 0;
}

function mediaType(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

function isJsonType(t: string): boolean {
  return JSON_TYPES.includes(t) || t.endsWith("+json");
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body), "cache-control": "no-store", ...headers });
  res.end(body);
}

/**
 * A JSON body, read no deeper than LIMITS.documentDepth (parseJsonText): too deep or malformed is a 400 naming
 * the path; in an array of records (`records`, the import routes) the record is named as its line, as in JSONL.
 */
function parseJson(buf: Buffer, what: string, records: boolean): unknown {
  const text = buf.toString("utf8");
  if (text.trim() === "") throw new HttpError(400, "invalid-input", `empty body: expected ${what}`, { field: "" });
  const parsed = parseJsonText(text);
  if (parsed.ok) return parsed.value;
  const { path, message } = parsed.problem;
  if (records && typeof path[0] === "number") {
    const line = path[0] + 1;
    const field = fieldOf(path.slice(1));
    throw new HttpError(400, "invalid-input", `line ${line}: ${field ? `${field}: ` : ""}${message} (nothing was written)`, { field, details: [{ field, message, line }] });
  }
  const field = fieldOf(path);
  throw new HttpError(400, "invalid-input", `${field ? `${field}: ` : ""}${message}`, { field });
}

/** A JSON-RPC message for /mcp, read like any body (parseJsonText): the parse error's text, or the message. */
function parseMcpMessage(buf: Buffer): { ok: true; message: unknown } | { ok: false; error: string } {
  const parsed = parseJsonText(buf.toString("utf8"));
  if (parsed.ok) return { ok: true, message: parsed.value };
  const field = fieldOf(parsed.problem.path);
  return { ok: false, error: `Parse error: ${field ? `${field}: ` : ""}${parsed.problem.message}` };
}

function checkProject(value: unknown, field: string): string {
  const r = projectSchema.safeParse(value);
  if (!r.success) throw invalidInput(zodProblems(r.error.issues, field));
  return r.data;
}

/** The project named by the request: body field, header, query; header and body must agree. */
function requestProject(req: IncomingMessage, url: URL, bodyProject: unknown): string | undefined {
  const rawHeader = req.headers[PROJECT_HEADER];
  const header = rawHeader === undefined ? undefined : checkProject(Array.isArray(rawHeader) ? rawHeader[0] : rawHeader, PROJECT_HEADER);
  const body = bodyProject === undefined ? undefined : checkProject(bodyProject, "project");
  if (header !== undefined && body !== undefined && header !== body) {
    throw new HttpError(400, "invalid-input", `project: the body names ${JSON.stringify(body)} but the ${PROJECT_HEADER} header names ${JSON.stringify(header)}`, {
      field: "project",
    });
  }
  const query = url.searchParams.get("project");
  return body ?? header ?? (query === null ? undefined : checkProject(query, "project"));
}

export function createServer(api: RecommenderApi, options: ServerOptions = {}): ToolgraphServer {
  const token = options.token ?? process.env.TOOLGRAPH_TOKEN ?? "";
  const bodyLimit = options.bodyLimitBytes ?? SERVER_DEFAULTS.bodyLimitBytes;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? SERVER_DEFAULTS.shutdownTimeoutMs;
  const log = options.log ?? stderrLog;
  const mcpEnabled = options.mcp ?? true;
  const byPath = new Map<string, Route[]>();
  for (const r of ROUTES) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  let openapi: unknown;
  const logger = options.logger ?? createLogger({ write: log });
  const startedAt = Date.now();
  const readiness = createReadiness(api, { project: options.defaultProject });
  const metrics = new MetricsRegistry();
  const latency = metrics.histogram("toolgraph_http_request_duration_seconds", "HTTP request latency by job (operation), method and status code");
  const decisions = metrics.counter("toolgraph_gate_decisions_total", "Answers by job and the gate's overall decision");
  const jobOf = new WeakMap<ServerResponse, string>();
  options.registerMetrics?.(metrics);
  metrics.collect({ name: "toolgraph_http_requests_in_flight", help: "Requests being handled", type: "gauge", collect: () => [{ labels: {}, value: active }] });
  metrics.collect({
    name: "toolgraph_ready",
    help: "1 when /ready would answer 200",
    type: "gauge",
    collect: async () => [{ labels: {}, value: (await readiness.report()).ready ? 1 : 0 }],
  });
  if (api instanceof Toolgraph) {
    const tg = api;
    // Every refit of a project's weights is one log line: before → after, the evidence, the data (learning-log.ts).
    tg.engine.learningLog ??= (r) => logger.info("refit", { kind: r.kind, project: r.project, accepted: r.accepted, before: r.before, after: r.after, reason: r.reason, data: r.data });
    metrics.collect({
      name: "toolgraph_cache_hits_total",
      help: "Cache hits by cache (result cache of answers, query-embedding cache)",
      type: "counter",
      collect: () => [
        { labels: { cache: "results" }, value: tg.results.stats().hits },
        { labels: { cache: "query_embeddings" }, value: tg.engine.queryEmbedder.stats().hits },
      ],
    });
    metrics.collect({
      name: "toolgraph_cache_misses_total",
      help: "Cache misses by cache",
      type: "counter",
      collect: () => [
        { labels: { cache: "results" }, value: tg.results.stats().misses },
        { labels: { cache: "query_embeddings" }, value: tg.engine.queryEmbedder.stats().misses },
      ],
    });
    metrics.collect({
      name: "toolgraph_analytics_refresh_seconds",
      help: "Time of the last analytics refresh of the default project, by phase (after warm-up)",
      type: "gauge",
      collect: async () => {
        const r = await readiness.report();
        if (!r.checks.find((c) => c.name === "analytics")?.ok) return [];
        const t = (await tg.engine.analytics(options.defaultProject ?? tg.project)).analytics.timingsMs;
        return Object.entries(t).map(([phase, ms]) => ({ labels: { phase }, value: ms / 1000 }));
      },
    });
    metrics.collect({
      name: "toolgraph_recommendation_log_rows_total",
      help: "Recommendation-log rows written or dropped",
      type: "counter",
      collect: () => [
        { labels: { state: "written" }, value: tg.recommendations.written },
        { labels: { state: "dropped" }, value: tg.recommendations.dropped },
      ],
    });
  }
  const ui = (options.console ?? true) && api instanceof Toolgraph ? createConsole(api, { defaultProject: options.defaultProject ?? api.project }) : undefined;

  let active = 0;
  let closing = false;
  let closePromise: Promise<void> | undefined;
  const idleWaiters: (() => void)[] = [];

  const server = createHttpServer((req, res) => {
    active++;
    const t0 = performance.now();
    const requestId = requestIdOf(req);
    res.setHeader("x-request-id", requestId);
    res.once("close", () => {
      const seconds = (performance.now() - t0) / 1000;
      const job = jobOf.get(res) ?? "other";
      latency.observe({ job, method: req.method ?? "GET", status: String(res.statusCode) }, seconds);
      if (job !== "health" && job !== "ready") {
        logger.info("request", { requestId, method: req.method, path: (req.url ?? "/").split("?")[0], job, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 });
      }
      active--;
      if (active === 0) for (const w of idleWaiters.splice(0)) w();
    });
    handle(req, res).catch((err) => fail(res, err));
  });

  /** Every JSON answer; during shutdown it also asks the client to drop the connection. */
  function respond(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
    sendJson(res, status, value, closing ? { ...headers, connection: "close" } : headers);
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
    if (closing) throw new HttpError(503, "shutting-down", "the server is shutting down", { headers: { connection: "close" } });

    if (path === "/health") {
      jobOf.set(res, "health");
      if (method !== "GET" && method !== "HEAD") throw new HttpError(405, "method-not-allowed", `${method} ${path}: use GET`, { headers: { allow: "GET, HEAD" } });
      return health(req, res, url);
    }
    if (path === "/ready") {
      jobOf.set(res, "ready");
      if (method !== "GET" && method !== "HEAD") throw new HttpError(405, "method-not-allowed", `${method} ${path}: use GET`, { headers: { allow: "GET, HEAD" } });
      const r = await readiness.report();
      // Names and states only: error texts may name hosts; they go to the log.
      for (const c of r.checks) if (c.state === "failed") logger.warn("readiness check failed", { check: c.name, error: c.error });
      return respond(res, r.ready ? 200 : 503, { ready: r.ready, checks: r.checks.map(({ name, ok, state, ms }) => ({ name, ok, state, ms })) }, r.ready ? {} : { "retry-after": "1" });
    }
    if (ui && path === "/ui" && url.searchParams.has("token")) return consoleLogin(res, url);
    const mcpToken = path === "/mcp" && options.mcpTokens?.(req.headers.authorization) === true;
    if (token !== "" && !bearerMatches(req.headers.authorization, token) && !cookieMatches(req) && !mcpToken) {
      throw new HttpError(401, "unauthorized", "missing or wrong bearer token (send Authorization: Bearer <token>)", { headers: { "www-authenticate": 'Bearer realm="toolgraph"' } });
    }
    if (path === "/metrics") {
      jobOf.set(res, "metrics");
      if (method !== "GET") throw new HttpError(405, "method-not-allowed", `${method} ${path}: use GET`, { headers: { allow: "GET" } });
      const body = await metrics.render();
      res.writeHead(200, { "content-type": METRICS_CONTENT_TYPE, "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
      res.end(body);
      return;
    }
    if (path === "/openapi.json") {
      if (method !== "GET") throw new HttpError(405, "method-not-allowed", `${method} ${path}: use GET`, { headers: { allow: "GET" } });
      openapi ??= buildOpenApiDocument();
      return respond(res, 200, openapi);
    }
    if (path === "/mcp" && mcpEnabled) {
      jobOf.set(res, "mcp");
      const refused = originProblem(req, (server.address() as AddressInfo | null)?.address, options.originPolicy);
      if (refused) throw new HttpError(403, "forbidden", `/mcp: ${refused}`);
      if (options.mcpHandler) {
        const project = requestProject(req, url, undefined) ?? options.defaultProject;
        let message: unknown;
        if (method === "POST") {
          const parsed = parseMcpMessage(await readBody(req, bodyLimit));
          if (!parsed.ok) return respond(res, 400, { jsonrpc: "2.0", error: { code: -32700, message: parsed.error }, id: null });
          message = parsed.message;
        }
        return options.mcpHandler(req, res, message, project);
      }
      if (method !== "POST") throw new HttpError(405, "method-not-allowed", `${method} ${path}: the MCP endpoint is stateless, use POST`, { headers: { allow: "POST" } });
      const project = requestProject(req, url, undefined) ?? options.defaultProject;
      const parsed = parseMcpMessage(await readBody(req, bodyLimit));
      if (!parsed.ok) return respond(res, 400, { jsonrpc: "2.0", error: { code: -32700, message: parsed.error }, id: null });
      return handleMcpHttp(api, req, res, parsed.message, { project });
    }

    if (ui && (path === "/ui" || path.startsWith("/ui/") || path.startsWith("/v1/console/"))) jobOf.set(res, "console");
    if (ui && (await ui.handle(req, res, url, requestProject(req, url, undefined)))) return;
    const routes = byPath.get(path);
    if (!routes) throw new HttpError(404, "not-found", `no endpoint ${path} (see /openapi.json)`);
    const route = routes.find((r) => r.method === method);
    if (!route) {
      throw new HttpError(405, "method-not-allowed", `${method} ${path}: use ${routes.map((r) => r.method).join(" or ")}`, {
        headers: { allow: routes.map((r) => r.method).join(", ") },
      });
    }
    jobOf.set(res, route.operationId);
    const input = await routeInput(route, req, url);
    const result = await route.handle(api, input);
    if (route.tag === "recommend" && route.operationId !== "feedback") decisions.inc({ job: route.operationId, decision: summarizeAnswer(route.operationId, result).decision });
    respond(res, 200, result);
  }

  function cookieMatches(req: IncomingMessage): boolean {
    const given = cookieToken(req);
    return given !== undefined && bearerMatches(`Bearer ${given}`, token);
  }

  /** `/ui?token=…`: the right token becomes an HttpOnly SameSite=Strict cookie (a browser cannot send the header). */
  function consoleLogin(res: ServerResponse, url: URL): void {
    const given = url.searchParams.get("token") ?? "";
    if (token !== "" && !bearerMatches(`Bearer ${given}`, token)) {
      throw new HttpError(401, "unauthorized", "wrong token in /ui?token=…", { headers: { "www-authenticate": 'Bearer realm="toolgraph"' } });
    }
    url.searchParams.delete("token");
    const rest = url.searchParams.toString();
    res.writeHead(303, {
      location: `/ui${rest ? `?${rest}` : ""}`,
      "set-cookie": `${TOKEN_COOKIE}=${encodeURIComponent(given)}; Path=/; HttpOnly; SameSite=Strict`,
      "cache-control": "no-store",
      "content-length": 0,
    });
    res.end();
  }

  async function routeInput(route: Route, req: IncomingMessage, url: URL): Promise<RouteInput> {
    const flags = parseFlags(route, url.searchParams);
    if (route.body === "none") return { body: undefined, text: undefined, flags, project: requestProject(req, url, undefined) ?? options.defaultProject };
    const type = mediaType(req);
    const accepted = route.body === "json" ? ["application/json"] : [...JSONL_TYPES, "application/json"];
    const jsonl = route.body === "jsonl" && JSONL_TYPES.includes(type);
    if (!jsonl && !isJsonType(type)) {
      throw new HttpError(415, "unsupported-media-type", `content type ${JSON.stringify(type || "(none)")} is not accepted here; send ${accepted.join(" or ")}`, {
        headers: { "accept-post": accepted.join(", ") },
      });
    }
    const buf = await readBody(req, bodyLimit);
    if (jsonl) return { body: undefined, text: buf.toString("utf8"), flags, project: requestProject(req, url, undefined) ?? options.defaultProject };

    const value = parseJson(buf, route.body === "json" ? "a JSON object" : "a JSON array", route.body === "jsonl");
    if (route.body === "jsonl") {
      if (!Array.isArray(value)) throw new HttpError(400, "invalid-input", "expected a JSON array of records (or send application/x-ndjson)", { field: "" });
      return { body: value, text: undefined, flags, project: requestProject(req, url, undefined) ?? options.defaultProject };
    }
    let body = value;
    let bodyProject: unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value) && "project" in value) {
      const { project, ...rest } = value as Record<string, unknown>;
      bodyProject = project;
      body = rest;
    }
    const project = requestProject(req, url, bodyProject) ?? options.defaultProject;
    // Not validated here: the api validates each request once with the route's schema (the same one the
    // OpenAPI document shows), so a bad field reads the same on every door.
    return { body, text: undefined, flags, project };
  }

  /**
   * `GET /health`: liveness, open to everyone and cheap (one `SELECT 1`, no counts). `?details=1` adds the
   * project's counts (the stats) and needs the bearer token when one is set.
   */
  async function health(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const details = url.searchParams.get("details");
    const wantDetails = details !== null && details !== "0" && details !== "false";
    if (wantDetails && token !== "" && !bearerMatches(req.headers.authorization, token)) {
      throw new HttpError(401, "unauthorized", "/health?details needs the bearer token (plain /health does not)", { headers: { "www-authenticate": 'Bearer realm="toolgraph"' } });
    }
    let project: string | undefined;
    try {
      project = requestProject(req, url, undefined) ?? options.defaultProject;
    } catch {
      project = options.defaultProject;
    }
    try {
      const extra = options.healthExtra?.({ authorized: token === "" || bearerMatches(req.headers.authorization, token) }) ?? {};
      const status = extra.ok === false ? 503 : 200;
      if (wantDetails || !api.ping) {
        const s = (await api.stats(project === undefined ? {} : { project })) as Record<string, unknown>;
        respond(res, status, wantDetails ? { ok: true, ...s, ...extra } : { ok: true, backend: s.backend, project: s.project, ...extra });
      } else {
        const p = await api.ping();
        respond(res, status, { ok: true, backend: p.backend, ...extra });
      }
    } catch (err) {
      const m = toHttpError(err);
      if (m.internal) log(`toolgraph server: health check failed: ${(err as Error)?.stack ?? String(err)}`);
      respond(res, 503, { ok: false, error: m.internal ? { code: "unavailable", message: "the database did not answer" } : m.body.error }, { "retry-after": "1" });
    }
  }

  function waitIdle(ms: number): Promise<void> {
    if (active === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        log(`toolgraph server: ${active} request(s) still running after ${ms} ms; dropping their connections`);
        resolve();
      }, ms);
      timer.unref();
      idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  return {
    server,
    get inFlight() {
      return active;
    },
    readiness,
    metrics,
    listen(port = SERVER_DEFAULTS.port, host = SERVER_DEFAULTS.host) {
      return new Promise<ListeningAddress>((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        server.once("error", onError);
        server.listen(port, host, () => {
          server.off("error", onError);
          const a = server.address() as AddressInfo;
          const h = a.family === "IPv6" ? `[${a.address}]` : a.address;
          if (options.warmUp ?? true) void readiness.start();
          resolve({ port: a.port, host: a.address, url: `http://${h}:${a.port}` });
        });
      });
    },
    close() {
      closePromise ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => {
          if (!server.listening) return resolve();
          server.close(() => resolve());
        });
        server.closeIdleConnections();
        await waitIdle(shutdownTimeoutMs);
        server.closeAllConnections();
        await stopped;
      })();
      return closePromise;
    },
    forceClose() {
      closing = true;
      server.closeAllConnections();
    },
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
        .then(() => (options.closeApi ?? true ? options.api.close() : undefined))
        .then(() => {
          for (const s of signals) process.off(s, onSignal);
          resolve();
        }, reject);
    };
    for (const s of signals) process.on(s, onSignal);
  });
}
