/**
 * The HTTP server's options and handle (http-server.ts): what createServer takes, with every default, and
 * what it returns.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { OriginPolicy } from "../mcp/origin.ts";
import type { Logger } from "../ops/logger.ts";
import type { MetricsRegistry } from "../ops/metrics.ts";
import { BODY_DEFAULTS } from "./body.ts";
import { LISTEN_DEFAULTS, type ListeningAddress } from "./lifecycle.ts";
import type { Readiness } from "./readiness.ts";
import type { SessionOptions } from "./sessions.ts";

export const SERVER_DEFAULTS = {
  ...LISTEN_DEFAULTS,
  bodyLimitBytes: BODY_DEFAULTS.limitBytes,
  shutdownTimeoutMs: 10_000,
} as const;

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
