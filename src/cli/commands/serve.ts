/** serve (HTTP JSON API + OpenAPI + MCP endpoint) and mcp (MCP over stdio). */
// The servers are imported when the command runs, so `toolgraph --help` does not load them.
import type { Toolgraph } from "../../library/toolgraph.ts";
import { type Command, type CommandContext, EXIT, UsageError } from "../command.ts";

/** One stderr line when the server started without its database (its requests get 503 until it answers). */
function reportUnreachableAtOpen(ctx: CommandContext, tg: Toolgraph, command: string): void {
  const e = tg.database().unreachableAtOpen;
  const meanwhile =
    command === "mcp"
      ? "tool calls get isError database-unreachable"
      : "requests get 503 database-unreachable with Retry-After";
  if (e) ctx.err(`toolgraph ${command}: ${e.message.split(";")[0]}; ${meanwhile} until it answers`);
}

export const serveCommand: Command = {
  name: "serve",
  summary: "HTTP JSON API for every job (OpenAPI at /openapi.json, health at /health, MCP at /mcp)",
  usage: "toolgraph serve [--port 8787] [--host 127.0.0.1]",
  examples: [
    "toolgraph serve",
    "TOOLGRAPH_TOKEN=s3cret toolgraph serve --port 9000",
    "toolgraph serve --database postgres://127.0.0.1/toolgraph --host 0.0.0.0   # several servers on one PostgreSQL",
  ],
  options: {
    port: { type: "string", default: "8787" },
    host: { type: "string", default: "127.0.0.1" },
    "log-format": { type: "string" },
    "log-level": { type: "string" },
  },
  optionHelp: {
    "--port N": "TCP port (default 8787; 0 picks a free one)",
    "--host H": "interface to bind (default 127.0.0.1: loopback only)",
    "--log-format F": "text or json request logs on stderr (default TOOLGRAPH_LOG_FORMAT or text)",
    "--log-level L": "debug, info, warn or error (default TOOLGRAPH_LOG_LEVEL or info)",
  },
  async run(ctx) {
    const port = Number(ctx.values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`--port must be an integer from 0 to 65535, got ${ctx.values.port}`);
    const { createLogger, parseLogFormat, parseLogLevel } = await import("../../ops/logger.ts");
    let format: ReturnType<typeof parseLogFormat> | undefined;
    let level: ReturnType<typeof parseLogLevel> | undefined;
    try {
      format =
        ctx.values["log-format"] === undefined
          ? undefined
          : parseLogFormat(String(ctx.values["log-format"]), "--log-format");
      level =
        ctx.values["log-level"] === undefined
          ? undefined
          : parseLogLevel(String(ctx.values["log-level"]), "--log-level");
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const { runServer } = await import("../../server/http-server.ts");
    // A database down at start does not stop the server: it answers 503 (not ready) until the database answers.
    const tg = await ctx.open({ openWhenUnreachable: true, longRunning: true });
    reportUnreachableAtOpen(ctx, tg, "serve");
    const host = ctx.values.host as string;
    // On an embedded data directory, the CLI's commands come here instead of failing on its lock: the server
    // says where it listens, with a local token, in the directory (src/cli/server-file.ts).
    const serverFile =
      tg.database().backend === "pglite" && tg.database().location !== "memory://"
        ? await import("../server-file.ts")
        : undefined;
    const localToken = serverFile?.newLocalToken();
    let removeServerFile: (() => void) | undefined;
    try {
      // Closes the database (and the data-directory lock) itself when it cannot listen.
      await runServer({
        api: tg,
        logger: createLogger({ format, level }),
        port,
        host,
        localToken,
        defaultProject: tg.project,
        onListening: (a) => {
          if (serverFile && localToken)
            removeServerFile = serverFile.writeServerFile(tg.database().location, a.url, localToken);
          if (ctx.json) ctx.out(JSON.stringify({ listening: a.url, pid: process.pid }));
          else ctx.err(`toolgraph: listening on ${a.url} (project ${tg.project}, ${tg.database().backend})`);
        },
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EADDRINUSE")
        throw new Error(
          `port ${port} on ${host} is in use (another toolgraph serve?): stop it, or choose another --port (0 picks a free one)`,
        );
      throw err;
    } finally {
      removeServerFile?.();
    }
    return EXIT.ok;
  },
};

export const mcpCommand: Command = {
  name: "mcp",
  summary:
    "MCP server over stdio (tools: search_tools, suggest_next_tool, search_capabilities, build_dag, plan_workflow, record_execution, …)",
  usage: "toolgraph mcp [--project NAME]",
  examples: ["toolgraph mcp --project demo", "claude mcp add toolgraph -- npx toolgraph mcp --project demo"],
  async run(ctx) {
    const { runStdio } = await import("../../mcp/stdio.ts");
    const { createReadiness } = await import("../../server/health.ts");
    const tg = await ctx.open({ openWhenUnreachable: true, longRunning: true });
    reportUnreachableAtOpen(ctx, tg, "mcp");
    // Warm the model, index and analytics in the background while the client connects (the first search
    // then waits for the same work instead of starting it); stderr says when it is warm.
    const t0 = performance.now();
    const warm = createReadiness(tg, { project: tg.project }).start();
    void warm.then(() => ctx.err(`toolgraph mcp: warm in ${Math.round(performance.now() - t0)} ms`));
    await runStdio(tg, { project: tg.project });
    await warm;
    return EXIT.ok;
  },
};
