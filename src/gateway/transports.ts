/**
 * The gateway's two doors: one session over stdio in either protocol era (closing stdin lets running calls
 * finish, then the session's open execution is recorded), and Streamable HTTP sessions on the existing HTTP
 * server (http-door.ts); and the gateway's part of /health.
 */
import type { Server as V2Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { trackInFlight } from "../mcp/in-flight.ts";
import { hangUp, StdioWire } from "../mcp/stdio-wire.ts";
import type { Gateway } from "./gateway.ts";
import { modernGatewayServer } from "./modern-door.ts";

export {
  GATEWAY_HTTP_DEFAULTS,
  type GatewayHttpHandler,
  type GatewayHttpOptions,
  gatewayHttpHandler,
  tokenIdentity,
} from "./http-door.ts";

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
