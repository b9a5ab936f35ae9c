/**
 * `toolgraph mcp`: the MCP server over stdio. stdout carries the protocol, so every log line goes to
 * stderr. Resolves when the client closes the connection (stdin ends) or on SIGTERM/SIGINT, after the
 * requests already received have been answered (a piped request followed by EOF gets its answer); the
 * api is closed afterwards unless `closeApi` is false.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { RecommenderApi } from "../contract/api.ts";
import { type InFlight, trackInFlight } from "./in-flight.ts";
import { createMcpServer, type McpServerOptions } from "./mcp-server.ts";

export interface RunStdioOptions extends McpServerOptions {
  /** Close the api (database) when the session ends. Default true. */
  closeApi?: boolean | undefined;
  /** Streams to speak on. Default process.stdin / process.stdout. */
  stdin?: NodeJS.ReadableStream | undefined;
  stdout?: NodeJS.WritableStream | undefined;
}

export async function runStdio(api: RecommenderApi, options: RunStdioOptions = {}): Promise<void> {
  const server = createMcpServer(api, options);
  const stdin = (options.stdin ?? process.stdin) as NodeJS.ReadStream;
  const transport = new StdioServerTransport(stdin, (options.stdout ?? process.stdout) as NodeJS.WriteStream);
  let inFlight: InFlight | undefined;
  await new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      for (const s of ["SIGTERM", "SIGINT"] as const) process.off(s, finish);
      stdin.off("end", finish);
      stdin.off("close", finish);
      (inFlight?.drain() ?? Promise.resolve())
        .then(() => server.close())
        .then(() => ((options.closeApi ?? true) ? api.close() : undefined))
        .then(() => resolve(), reject);
    };
    server.server.onclose = finish;
    stdin.once("end", finish);
    stdin.once("close", finish);
    for (const s of ["SIGTERM", "SIGINT"] as const) process.once(s, finish);
    server
      .connect(transport)
      .then(() => {
        inFlight = trackInFlight(transport);
      })
      .catch(reject);
  });
}
