/**
 * `toolgraph mcp`: the MCP server over stdio, in either protocol era (the SDK's serveStdio entry pins the
 * connection's era from its opening message: `initialize` for 2025-06-18 / 2025-11-25, a request carrying
 * the 2026-07-28 `_meta` envelope otherwise). stdout carries the protocol, so every log line goes to
 * stderr. Resolves when the client closes the connection (stdin ends) or on SIGTERM/SIGINT, after the
 * requests already received have been answered (a piped request followed by EOF gets its answer); the
 * api is closed afterwards unless `closeApi` is false.
 */
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { RecommenderApi } from "../contract/api.ts";
import { trackInFlight } from "./in-flight.ts";
import { createMcpServer, type McpServerOptions } from "./mcp-server.ts";
import { hangUp, StdioWire } from "./stdio-wire.ts";

export interface RunStdioOptions extends McpServerOptions {
  /** Close the api (database) when the session ends. Default true. */
  closeApi?: boolean | undefined;
  /** Streams to speak on. Default process.stdin / process.stdout. */
  stdin?: NodeJS.ReadableStream | undefined;
  stdout?: NodeJS.WritableStream | undefined;
}

export async function runStdio(api: RecommenderApi, options: RunStdioOptions = {}): Promise<void> {
  const wire = new StdioWire(options.stdin ?? process.stdin, options.stdout ?? process.stdout);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const handle = serveStdio(() => createMcpServer(api, options), {
    transport: wire,
    onerror: (err) => log(`toolgraph mcp: ${err.message}`),
  });
  // serveStdio installs its handlers synchronously; count the requests it receives from here on.
  const inFlight = trackInFlight(wire);
  await hangUp(wire);
  await inFlight.drain();
  await handle.close();
  if (options.closeApi ?? true) await api.close();
}
