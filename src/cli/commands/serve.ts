/** serve (HTTP JSON API + OpenAPI + MCP endpoint) and mcp (MCP over stdio). */
// The servers are imported when the command runs, so `toolgraph --help` does not load them.
import { type Command, EXIT, UsageError } from "../command.ts";

export const serveCommand: Command = {
  name: "serve",
  summary: "HTTP JSON API for every job (OpenAPI at /openapi.json, health at /health, MCP at /mcp)",
  usage: "toolgraph serve [--port 8787] [--host 127.0.0.1]",
  examples: [
    "toolgraph serve",
    "TOOLGRAPH_TOKEN=s3cret toolgraph serve --port 9000",
    "toolgraph serve --database postgres://127.0.0.1/toolgraph --host 0.0.0.0   # several servers on one PostgreSQL",
  ],
  options: { port: { type: "string", default: "8787" }, host: { type: "string", default: "127.0.0.1" } },
  optionHelp: {
    "--port N": "TCP port (default 8787; 0 picks a free one)",
    "--host H": "interface to bind (default 127.0.0.1: loopback only)",
  },
  async run(ctx) {
    const port = Number(ctx.values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${ctx.values.port}`);
    const { runServer } = await import("../../server/http-server.ts");
    const { warmUp } = await import("../../mcp/warm.ts");
    const tg = await ctx.open();
    // Load the embedding model and the read model now, not on the first search; /health says when done.
    const warmth = warmUp(tg);
    void warmth.done.then(() => ctx.err(`toolgraph: warm in ${Math.round(warmth.ms ?? 0)} ms${warmth.note ? ` (${warmth.note})` : ""}`));
    await runServer({
      api: tg,
      port,
      host: ctx.values.host as string,
      defaultProject: tg.project,
      healthExtra: () => ({ warm: warmth.warm }),
      onListening: (a) => (ctx.json ? ctx.out(JSON.stringify({ listening: a.url, pid: process.pid })) : ctx.err(`toolgraph: listening on ${a.url} (project ${tg.project}, ${tg.engine.conn.backend})`)),
    });
    return EXIT.ok;
  },
};

export const mcpCommand: Command = {
  name: "mcp",
  summary: "MCP server over stdio (tools: search_tools, suggest_next_tool, search_capabilities, build_dag, plan_workflow, record_execution, …)",
  usage: "toolgraph mcp [--project NAME]",
  examples: ["toolgraph mcp --project demo", 'claude mcp add toolgraph -- npx toolgraph mcp --project demo'],
  async run(ctx) {
    const { runStdio } = await import("../../mcp/stdio.ts");
    const { warmUp } = await import("../../mcp/warm.ts");
    const tg = await ctx.open();
    // Warm in the background while the client connects; the first search waits for the same work.
    const warmth = warmUp(tg);
    void warmth.done.then(() => ctx.err(`toolgraph mcp: warm in ${Math.round(warmth.ms ?? 0)} ms${warmth.note ? ` (${warmth.note})` : ""}`));
    await runStdio(tg, { project: tg.project });
    await warmth.done;
    return EXIT.ok;
  },
};
