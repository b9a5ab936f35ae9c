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
import type { RecommenderApi } from "../contract/api.ts";
import { createServer } from "./create-server.ts";
import type { ListeningAddress } from "./lifecycle.ts";
import { stderrLog } from "./request.ts";
import { SERVER_DEFAULTS, type ServerOptions, type ToolgraphServer } from "./server-options.ts";

export { createServer } from "./create-server.ts";
export { bearerMatches, PROJECT_HEADER } from "./request.ts";
export {
  type ListeningAddress,
  SERVER_DEFAULTS,
  type ServerOptions,
  type ToolgraphServer,
} from "./server-options.ts";

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
