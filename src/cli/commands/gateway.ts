/** `toolgraph gateway --config FILE`: toolgraph in front of real MCP servers, learning from every call. */

// The gateway, the servers and the library are imported when the command runs: `toolgraph --help` and
// `--version` load none of them (docs/decisions/fresh-machine.md).
import { join } from "node:path";
import { type Command, EXIT, UsageError } from "../command.ts";
import { approve, homeDir } from "./gateway-approve.ts";
import { gatewayNumbers } from "./gateway-flags.ts";

export const gatewayCommand: Command = {
  name: "gateway",
  summary:
    "MCP gateway: proxies the MCP servers of a config (mcpServers), recommends their tools and learns from every call",
  usage:
    "toolgraph gateway --config FILE [--http [--port 8787] [--host 127.0.0.1]] [--expose K] [--no-learn] [--user NAME] | toolgraph gateway approve TOOL…",
  examples: [
    "toolgraph gateway --config mcp.json --project agents",
    "toolgraph gateway --config mcp.json --http --port 8787   # Streamable HTTP at /mcp (TOOLGRAPH_TOKEN applies)",
    "toolgraph gateway approve github.create_issue   # accept the changed version of a quarantined tool",
    "toolgraph gateway --config mcp.json --expose 5          # also list the 5 recommended upstream tools directly",
  ],
  options: {
    config: { type: "string" },
    http: { type: "boolean", default: false },
    port: { type: "string", default: "8787" },
    host: { type: "string", default: "127.0.0.1" },
    expose: { type: "string" },
    "no-learn": { type: "boolean", default: false },
    user: { type: "string" },
    "idle-ms": { type: "string" },
    "session-idle-ms": { type: "string" },
    "max-sessions": { type: "string" },
    "retire-after-ms": { type: "string" },
  },
  optionHelp: {
    "--config FILE": 'JSON with {"mcpServers": {name: {command, args, env} | {url, headers}}} (required)',
    "--http": "serve MCP over Streamable HTTP at /mcp on the HTTP server (default: stdio)",
    "--port N": "TCP port with --http (default 8787)",
    "--host H": "interface to bind with --http (default 127.0.0.1)",
    "--expose K": "also list the K currently recommended upstream tools directly (default 0: call_tool only)",
    "--no-learn": "record nothing (default: each session's calls are recorded as executions)",
    "--user NAME": "user the executions are recorded for when a session declares none (default: the MCP client's name)",
    "--idle-ms N": "close an execution after N ms without a call (default 300000)",
    "--session-idle-ms N": "with --http: end a session after N ms without a request (default 1800000)",
    "--max-sessions N": "with --http: open sessions at most; a new one ends the least recently used (default 500)",
    "--retire-after-ms N":
      "a tool its server stopped listing leaves search and the console after N ms (default 600000)",
  },
  async run(ctx) {
    if (ctx.positionals[0] === "approve") return approve(ctx);
    const file = ctx.values.config;
    if (typeof file !== "string" || file === "")
      throw new UsageError("--config FILE is required (a JSON file with an mcpServers object)");
    const [
      { loadGatewayConfig },
      { Gateway, gatewayApi },
      { registerGatewayMetrics },
      { gatewayHealth, gatewayHttpHandler, runGatewayStdio, tokenIdentity },
      { createReadiness },
      { runServer },
    ] = await Promise.all([
      import("../../gateway/config.ts"),
      import("../../gateway/gateway.ts"),
      import("../../gateway/gateway-metrics.ts"),
      import("../../gateway/transports.ts"),
      import("../../server/health.ts"),
      import("../../server/http-server.ts"),
    ]);
    const config = await loadGatewayConfig(file);
    const { expose, idleMs, port, sessionIdleMs, maxSessions, retireAfterMs } = gatewayNumbers(ctx.values);
    // A database down at start does not stop the gateway: calls are relayed, executions spooled, syncs retried.
    const tg = await ctx.open({ openWhenUnreachable: true, longRunning: true });
    const home = homeDir(ctx.values.home as string | undefined);
    const gateway = new Gateway(tg, {
      config,
      project: tg.project,
      learn: ctx.values["no-learn"] !== true,
      expose,
      idleMs,
      retireAfterMs,
      user: ctx.values.user as string | undefined,
      log: ctx.err,
      // Executions the database cannot take yet wait here (with --database too: the data directory is local).
      spoolDir: home === undefined ? undefined : join(home, "gateway-spool"),
      pinFile: home === undefined ? undefined : join(home, "gateway-pins.json"),
    });
    // Signals end the session (stdio) or the server (--http) through their own handlers; this one keeps a
    // signal that arrives while the gateway writes its last executions from killing the process.
    let stopping = false;
    const hold = (sig: NodeJS.Signals) => {
      if (stopping) ctx.err(`toolgraph gateway: ${sig}: finishing the last writes`);
    };
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, hold);
    try {
      // Serve at once: initialize and tools/list need no catalog. The served api's operations wait for the
      // upstreams' first listing (or say which servers are pending), then rank lexically until the embeddings
      // are in (docs/decisions/gateway-first-answer.md).
      const started = gateway.start({ waitForEmbeddings: false });
      started.catch((err: unknown) => ctx.err(`toolgraph gateway: start failed: ${(err as Error)?.message ?? err}`));
      if (ctx.values.http === true) {
        const mcp = gatewayHttpHandler(gateway, {
          sessionIdleMs,
          maxSessions,
          serverToken: process.env.TOOLGRAPH_TOKEN,
          log: ctx.err,
        });
        await runServer({
          api: gatewayApi(tg, gateway),
          port,
          host: ctx.values.host as string,
          defaultProject: tg.project,
          closeApi: false,
          mcpHandler: (req, res, body, project) => mcp.handle(req, res, body, project),
          mcpTokens: (authorization) => tokenIdentity(config.tokens, authorization) !== undefined,
          healthExtra: gatewayHealth(gateway),
          registerMetrics: (m) => registerGatewayMetrics(m, gateway),
          onListening: (a) =>
            ctx.json
              ? ctx.out(JSON.stringify({ listening: a.url, pid: process.pid }))
              : ctx.err(`toolgraph gateway: MCP at ${a.url}/mcp (project ${tg.project})`),
        });
        await mcp.close();
      } else {
        // (--http warms through the HTTP server's readiness; /ready says when.)
        const t0 = performance.now();
        const warm = createReadiness(tg, { project: tg.project }).start();
        void warm.then(() => ctx.err(`toolgraph gateway: warm in ${Math.round(performance.now() - t0)} ms`));
        await runGatewayStdio(gateway);
        await warm;
      }
      stopping = true;
    } finally {
      stopping = true;
      await gateway.close();
      await tg.close();
      for (const sig of ["SIGTERM", "SIGINT"] as const) process.off(sig, hold);
    }
    return EXIT.ok;
  },
};
