/** `toolgraph gateway --config FILE`: toolgraph in front of real MCP servers, learning from every call. */

// The gateway, the servers and the library are imported when the command runs: `toolgraph --help` and
// `--version` load none of them (docs/decisions/fresh-machine.md).
import { type Command, EXIT, UsageError } from "../command.ts";

function intOption(v: unknown, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${String(v)}`);
  return n;
}

export const gatewayCommand: Command = {
  name: "gateway",
  summary: "MCP gateway: proxies the MCP servers of a config (mcpServers), recommends their tools and learns from every call",
  usage: "toolgraph gateway --config FILE [--http [--port 8787] [--host 127.0.0.1]] [--expose K] [--no-learn] [--user NAME]",
  examples: [
    "toolgraph gateway --config mcp.json --project agents",
    "toolgraph gateway --config mcp.json --http --port 8787   # Streamable HTTP at /mcp (TOOLGRAPH_TOKEN applies)",
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
  },
  async run(ctx) {
    const file = ctx.values.config;
    if (typeof file !== "string" || file === "") throw new UsageError("--config FILE is required (a JSON file with an mcpServers object)");
    const [{ loadGatewayConfig }, { Gateway, gatewayApi }, { gatewayHttpHandler, runGatewayStdio }, { createReadiness }, { runServer }] = await Promise.all([
      import("../../gateway/config.ts"),
      import("../../gateway/gateway.ts"),
      import("../../gateway/transports.ts"),
      import("../../ops/health.ts"),
      import("../../server/http-server.ts"),
    ]);
    const config = await loadGatewayConfig(file);
    const expose = intOption(ctx.values.expose, "expose", 0, 100);
    const idleMs = intOption(ctx.values["idle-ms"], "idle-ms", 1, 86_400_000);
    const port = intOption(ctx.values.port, "port", 0, 65535) ?? 8787;
    const tg = await ctx.open();
    const gateway = new Gateway(tg, {
      config,
      project: tg.project,
      learn: ctx.values["no-learn"] !== true,
      expose,
      idleMs,
      user: ctx.values.user as string | undefined,
      log: ctx.err,
    });
    // Signals end the session (stdio) or the server (--http) through their own handlers; this one keeps a
    // signal that arrives while the gateway writes its last executions from killing the process.
    let stopping = false;
    const hold = (sig: NodeJS.Signals) => {
      if (stopping) ctx.err(`toolgraph gateway: ${sig}: finishing the last writes`);
    };
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, hold);
    try {
      await gateway.start();
      if (ctx.values.http === true) {
        const mcp = gatewayHttpHandler(gateway);
        await runServer({
          api: gatewayApi(tg, gateway),
          port,
          host: ctx.values.host as string,
          defaultProject: tg.project,
          closeApi: false,
          mcpHandler: (req, res, body) => mcp.handle(req, res, body),
          healthExtra: () => {
            const st = gateway.status();
            return { gateway: { servers: st.servers, down: st.down } };
          },
          onListening: (a) =>
            ctx.json ? ctx.out(JSON.stringify({ listening: a.url, pid: process.pid })) : ctx.err(`toolgraph gateway: MCP at ${a.url}/mcp (project ${tg.project})`),
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
