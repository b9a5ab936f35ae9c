/**
 * The HTTP server's own endpoints beside the operation routes: `/ready`, `/metrics`, `/openapi.json` and the MCP
 * endpoint `/mcp` (one parse of its body, then the gateway's handler or the stateless MCP server), plus the
 * request observation every answer goes through (latency histogram by job, one `request` log line). The server
 * (http-server.ts) routes to them; the behaviour is documented there.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RecommenderApi } from "../contract/api.ts";
import { handleMcpHttp } from "../mcp/http.ts";
import type { Logger } from "../ops/logger.ts";
import { METRICS_CONTENT_TYPE, type MetricsRegistry } from "../ops/metrics.ts";
import { readBody } from "./body.ts";
import { HttpError } from "./errors.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import type { Readiness } from "./readiness.ts";
import { parseMcpMessage, requestProject } from "./request.ts";

/** Answers a JSON value with a status and headers (the server's `respond`). */
export type Respond = (res: ServerResponse, status: number, value: unknown, headers?: Record<string, string>) => void;

/** The 405 of an endpoint that takes only `allowed` methods. */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[], why = ""): HttpError {
  return new HttpError(405, "method-not-allowed", `${method} ${path}: ${why || `use ${allowed[0]}`}`, {
    headers: { allow: allowed.join(", ") },
  });
}

/** `/ready`: 200 when every warm-up check passed, else 503 with `retry-after`; names and states only. */
export async function readyEndpoint(
  res: ServerResponse,
  method: string,
  deps: { readiness: Readiness; logger: Logger; respond: Respond },
): Promise<void> {
  if (method !== "GET" && method !== "HEAD") throw methodNotAllowed(method, "/ready", ["GET", "HEAD"]);
  const r = await deps.readiness.report();
  // Names and states only: error texts may name hosts; they go to the log.
  for (const c of r.checks)
    if (c.state === "failed") deps.logger.warn("readiness check failed", { check: c.name, error: c.error });
  deps.respond(
    res,
    r.ready ? 200 : 503,
    { ready: r.ready, checks: r.checks.map(({ name, ok, state, ms }) => ({ name, ok, state, ms })) },
    r.ready ? {} : { "retry-after": "1" },
  );
}

/** `/metrics`: the Prometheus text of the registry. */
export async function metricsEndpoint(res: ServerResponse, method: string, metrics: MetricsRegistry): Promise<void> {
  if (method !== "GET") throw methodNotAllowed(method, "/metrics", ["GET"]);
  const body = await metrics.render();
  res.writeHead(200, {
    "content-type": METRICS_CONTENT_TYPE,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(body);
}

let openapi: unknown;

/** `/openapi.json`: the document of the operation table, built once per process. */
export function openApiEndpoint(res: ServerResponse, method: string, respond: Respond): void {
  if (method !== "GET") throw methodNotAllowed(method, "/openapi.json", ["GET"]);
  openapi ??= buildOpenApiDocument();
  respond(res, 200, openapi);
}

export interface McpEndpointOptions {
  api: RecommenderApi;
  respond: Respond;
  bodyLimit: number;
  defaultProject: string | undefined;
  /** The gateway's handler (its sessions); absent: the stateless MCP server over `api`, POST only. */
  handler?:
    | ((req: IncomingMessage, res: ServerResponse, message: unknown, project: string | undefined) => Promise<void>)
    | undefined;
}

/** `/mcp`: a POST body is read and parsed once (a JSON-RPC parse error otherwise), then handed on. */
export async function mcpEndpoint(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  method: string,
  o: McpEndpointOptions,
): Promise<void> {
  if (method !== "POST" && !o.handler)
    throw methodNotAllowed(method, "/mcp", ["POST"], "the MCP endpoint is stateless, use POST");
  const project = requestProject(req, url, undefined) ?? o.defaultProject;
  let message: unknown;
  if (method === "POST") {
    const parsed = parseMcpMessage(await readBody(req, o.bodyLimit));
    if (!parsed.ok)
      return o.respond(res, 400, { jsonrpc: "2.0", error: { code: -32700, message: parsed.error }, id: null });
    message = parsed.message;
  }
  if (o.handler) return o.handler(req, res, message, project);
  return handleMcpHttp(o.api, req, res, message, { project });
}

/**
 * Observes each request when its response closes: the latency histogram by job, method and status, and one
 * `request` log line (not for /health and /ready). `jobOf` names the job of a response once routed.
 */
export function observeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  o: {
    jobOf: WeakMap<ServerResponse, string>;
    latency: ReturnType<MetricsRegistry["histogram"]>;
    logger: Logger;
    requestId: string;
    onClose: () => void;
  },
): void {
  const t0 = performance.now();
  res.once("close", () => {
    const seconds = (performance.now() - t0) / 1000;
    const job = o.jobOf.get(res) ?? "other";
    o.latency.observe({ job, method: req.method ?? "GET", status: String(res.statusCode) }, seconds);
    if (job !== "health" && job !== "ready") {
      o.logger.info("request", {
        requestId: o.requestId,
        method: req.method,
        path: (req.url ?? "/").split("?")[0],
        job,
        status: res.statusCode,
        ms: Math.round(seconds * 1e4) / 10,
      });
    }
    o.onClose();
  });
}
