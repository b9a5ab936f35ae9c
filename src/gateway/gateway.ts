/**
 * The gateway: toolgraph in front of real MCP servers. It connects to every upstream server of the config
 * (upstream.ts), keeps their tools in the project's catalog (`syncServerTools`: `<server>.<tool>`, unlisted
 * tools marked unavailable), and serves MCP sessions (stdio or Streamable HTTP) that offer toolgraph's own
 * tools plus `call_tool`, which forwards to the upstream and returns its result unchanged. With `expose`
 * the currently recommended upstream tools are listed directly as well (tools/list_changed as they change).
 *
 * Learning: each session's forwarded calls become executions (recorder.ts), written through the library's
 * `recordExecution` after the call has been answered, in one queue behind the catalog syncs (so a step's
 * tool is in the catalog before its execution is written). Nothing is recorded with `learn: false`.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { errorOutcome, problemsMessage, zodProblems } from "../api/error-mapping.ts";
import type { Toolgraph } from "../api/toolgraph.ts";
import { callTool, ERROR_META_KEY, MCP_TOOLS, type McpToolSpec } from "../mcp/mcp-server.ts";
import { ToolgraphError } from "../store/errors.ts";
import type { GatewayConfig } from "./config.ts";
import { type RecordedExecution, SessionRecorder } from "./recorder.ts";
import { splitToolId, toCatalogTool } from "./tool-map.ts";
import { Upstream, type UpstreamStatus } from "./upstream.ts";

export const GATEWAY_INFO = { name: "toolgraph-gateway", version: "0.1.0" } as const;

export const GATEWAY_DEFAULTS = {
  /** Upstream tools listed directly besides call_tool (0: none). */
  expose: 0,
  learn: true,
} as const;

export interface GatewayOptions {
  config: GatewayConfig;
  /** Project the catalog and the executions go to. Default: the Toolgraph's project. */
  project?: string | undefined;
  /** Record executions from the sessions' calls. Default true. */
  learn?: boolean | undefined;
  /** List this many recommended upstream tools directly (tools/list_changed as they change). Default 0. */
  expose?: number | undefined;
  /** The user executions are recorded for when a session declares none. Default: the MCP client's name. */
  user?: string | undefined;
  /** Close an execution after this long without a call (ms). Default RECORDER_DEFAULTS.idleMs. */
  idleMs?: number | undefined;
  /** Reconnect backoff bounds and the connect timeout (ms), see UPSTREAM_DEFAULTS. */
  minBackoffMs?: number | undefined;
  maxBackoffMs?: number | undefined;
  connectTimeoutMs?: number | undefined;
  /** Where lifecycle lines and internal errors go (never stdout). Default stderr. */
  log?: ((line: string) => void) | undefined;
}

export interface GatewayStatus {
  servers: UpstreamStatus[];
  /** Names of the servers that are not up. */
  down: string[];
  sessions: number;
  learning: boolean;
  recorded: { executions: number; steps: number; failedWrites: number };
}

export const callToolArgs = z
  .object({
    name: z.string().min(1).max(512).describe("The tool to call, as `<server>.<tool>` (the id search_tools and plan_workflow return)"),
    arguments: z.record(z.string(), z.unknown()).optional().describe("The tool's arguments, matching its inputSchema (as returned by search_tools)"),
  })
  .strict();

const CALL_TOOL_DESCRIPTION =
  "Call an upstream tool through the gateway: `name` is its id `<server>.<tool>` as search_tools / plan_workflow return it, `arguments` its input. " +
  "Returns the upstream server's result unchanged (content, structuredContent, isError). If the server is down or times out, the result is an error naming the server.";

function jsonSchema(schema: z.ZodType): Tool["inputSchema"] {
  return z.toJSONSchema(schema, { io: "input", target: "draft-7" }) as Tool["inputSchema"];
}

function errorResult(err: unknown): CallToolResult {
  const m = errorOutcome(err, "mcp");
  const e = { code: m.code, message: m.message, ...(m.field !== undefined ? { field: m.field } : {}) };
  return { isError: true, content: [{ type: "text", text: `${e.code}: ${e.message}` }], _meta: { [ERROR_META_KEY]: e } };
}

export class Gateway {
  readonly api: Toolgraph;
  readonly options: GatewayOptions;
  readonly upstreams = new Map<string, Upstream>();
  readonly sessions = new Set<GatewaySession>();
  /** Catalog syncs and execution writes, in order. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly ownTools: Tool[];
  private readonly specs: Map<string, McpToolSpec>;
  readonly recorded = { executions: 0, steps: 0, failedWrites: 0 };
  private closed = false;

  constructor(api: Toolgraph, options: GatewayOptions) {
    this.api = api;
    this.options = options;
    this.specs = new Map(MCP_TOOLS.map((s) => [s.name, s]));
    this.ownTools = [
      ...MCP_TOOLS.map((s) => ({
        name: s.name,
        title: s.title,
        description: s.description,
        inputSchema: jsonSchema(s.inputSchema),
        outputSchema: z.toJSONSchema(s.outputSchema, { io: "output", target: "draft-7" }) as Tool["outputSchema"],
        annotations: { title: s.title, readOnlyHint: s.readOnly, destructiveHint: false, idempotentHint: s.idempotent ?? s.readOnly, openWorldHint: false },
      })),
      {
        name: "call_tool",
        title: "Call an upstream tool",
        description: CALL_TOOL_DESCRIPTION,
        inputSchema: jsonSchema(callToolArgs),
        annotations: { title: "Call an upstream tool", readOnlyHint: false, openWorldHint: true },
      },
      {
        name: "gateway_status",
        title: "Gateway status",
        description: "The upstream servers behind this gateway: which are up or down (and why, and when the next reconnect is due), their tool counts, and what was learned so far.",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
        annotations: { title: "Gateway status", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
    ];
    for (const [name, config] of options.config.servers) {
      this.upstreams.set(
        name,
        new Upstream(name, config, {
          onTools: (server, tools) => this.onTools(server, tools),
          log: (l) => this.log(l),
          minBackoffMs: options.minBackoffMs,
          maxBackoffMs: options.maxBackoffMs,
          connectTimeoutMs: options.connectTimeoutMs,
        }),
      );
    }
  }

  get project(): string {
    return this.options.project ?? this.api.project;
  }

  get learning(): boolean {
    return this.options.learn ?? GATEWAY_DEFAULTS.learn;
  }

  private log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
  }

  private enqueue(job: () => Promise<unknown>, what: string): Promise<void> {
    const next = this.queue.then(job).then(
      () => undefined,
      (err) => this.log(`toolgraph gateway: ${what} failed: ${(err as Error)?.stack ?? String(err)}`),
    );
    this.queue = next;
    return next;
  }

  private onTools(server: string, tools: Tool[]): void {
    void this.enqueue(async () => {
      const r = await this.api.syncServerTools(
        server,
        tools.map((t) => toCatalogTool(server, t)),
        { project: this.project },
      );
      for (const x of r.rejected) this.log(`toolgraph gateway: ${server}: tool ${x.tool} left out of the catalog: ${x.problem}`);
      if (r.unavailable.length > 0) this.log(`toolgraph gateway: ${server}: no longer listed, marked unavailable: ${r.unavailable.join(", ")}`);
      for (const s of this.sessions) s.refreshExposed();
    }, `syncing the tools of ${server}`);
  }

  /** Connects every upstream (in parallel) and waits for their first attempt and catalog sync. */
  async start(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((u) => u.start()));
    await this.flush();
    const st = this.status();
    this.log(`toolgraph gateway: ${st.servers.length - st.down.length} of ${st.servers.length} servers up${st.down.length > 0 ? ` (down: ${st.down.join(", ")})` : ""}`);
  }

  /** Waits until every queued catalog sync and execution write is done. */
  async flush(): Promise<void> {
    for (let q = this.queue; ; q = this.queue) {
      await q;
      if (q === this.queue) return;
    }
  }

  status(): GatewayStatus {
    const servers = [...this.upstreams.values()].map((u) => u.status());
    return {
      servers,
      down: servers.filter((s) => s.state !== "up").map((s) => s.server),
      sessions: this.sessions.size,
      learning: this.learning,
      recorded: { ...this.recorded },
    };
  }

  /** Writes one closed execution through the library's record path (queued, after the answers). */
  write(execution: RecordedExecution): void {
    if (!this.learning) return;
    void this.enqueue(async () => {
      try {
        await this.api.recordExecution(execution, { project: this.project, autoRegister: true });
        this.recorded.executions++;
        this.recorded.steps += execution.steps.length;
      } catch (err) {
        this.recorded.failedWrites++;
        throw err;
      }
    }, `recording execution ${execution.id}`);
  }

  /** A new MCP session (one per stdio connection or Streamable HTTP session). Connect its `server`. */
  createSession(init: { id?: string | undefined; user?: string | undefined } = {}): GatewaySession {
    if (this.closed) throw new ToolgraphError("shutting-down", "the gateway is shutting down");
    const s = new GatewaySession(this, init.id ?? randomUUID(), init.user ?? this.options.user);
    this.sessions.add(s);
    return s;
  }

  /** @internal */
  sessionEnded(s: GatewaySession): void {
    this.sessions.delete(s);
  }

  toolList(exposed: readonly string[]): Tool[] {
    const out = [...this.ownTools];
    for (const id of exposed) {
      const t = this.upstreamTool(id);
      if (!t) continue;
      out.push({ ...t.tool, name: id, description: `[${t.server}] ${t.tool.description ?? ""}`.trim() });
    }
    return out;
  }

  /** The upstream tool behind a catalog id, if its server currently lists it. */
  upstreamTool(id: string): { server: string; upstream: Upstream; tool: Tool } | undefined {
    const p = splitToolId(id);
    const u = p && this.upstreams.get(p.server);
    const tool = u?.tools.find((t) => t.name === p!.tool);
    return u && tool ? { server: p!.server, upstream: u, tool } : undefined;
  }

  spec(name: string): McpToolSpec | undefined {
    return this.specs.get(name);
  }

  /** Ends every session (their open executions are recorded), writes what is queued, closes the upstreams. */
  async close(): Promise<void> {
    this.closed = true;
    for (const s of [...this.sessions]) await s.close();
    await this.flush();
    await Promise.all([...this.upstreams.values()].map((u) => u.close()));
  }
}

/**
 * The api the gateway's HTTP server serves: the library's, with `stats` also naming the upstream servers
 * and which are down (GET /v1/stats), like `gateway_status` and /health.
 */
export function gatewayApi<T extends object & { stats(opts?: { project?: string | undefined }): Promise<object> }>(api: T, gateway: Gateway): T {
  return new Proxy(api, {
    get(target, prop, receiver) {
      if (prop === "stats") {
        return async (opts?: { project?: string | undefined }) => {
          const st = gateway.status();
          return { ...(await target.stats(opts)), gateway: { servers: st.servers, down: st.down, sessions: st.sessions, learning: st.learning, recorded: st.recorded } };
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

type Args = Record<string, unknown>;

export class GatewaySession {
  readonly id: string;
  readonly server: Server;
  private readonly gateway: Gateway;
  private readonly recorder: SessionRecorder;
  private exposed: string[] = [];
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private ended = false;

  constructor(gateway: Gateway, id: string, user: string | undefined) {
    this.gateway = gateway;
    this.id = id;
    this.recorder = new SessionRecorder({ sessionId: `gw-${id}`, write: (e) => gateway.write(e), idleMs: gateway.options.idleMs });
    if (user) this.recorder.setUser(user);
    this.server = new Server(GATEWAY_INFO, {
      capabilities: { tools: { listChanged: true } },
      instructions:
        "This gateway proxies MCP servers and learns from what you call. Use search_tools (or plan_workflow) with your intent to find a tool, " +
        "then call_tool with its id and arguments; suggest_next_tool between steps. Answers marked abstained are not confident: say so.",
    });
    this.server.oninitialized = () => {
      if (!user) this.recorder.setUser(this.server.getClientVersion()?.name);
      this.refreshExposed();
    };
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: gateway.toolList(this.exposed) }));
    this.server.setRequestHandler(CallToolRequestSchema, async (req) => {
      this.inFlight++;
      try {
        return await this.call(req.params.name, (req.params.arguments ?? {}) as Args);
      } finally {
        this.inFlight--;
        if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
      }
    });
  }

  private async call(name: string, args: Args): Promise<CallToolResult> {
    if (name === "call_tool") {
      const r = callToolArgs.safeParse(args);
      if (!r.success) {
        const problems = zodProblems(r.error.issues);
        return errorResult(new ToolgraphError("invalid-input", `call_tool: ${problemsMessage(problems)}`, { field: problems[0]?.field ?? "", issues: problems }));
      }
      return this.forward(r.data.name, r.data.arguments);
    }
    if (name === "gateway_status") {
      const st = this.gateway.status();
      const lines = st.servers.map((s) => `${s.server}: ${s.state}${s.error ? ` (${s.error})` : ""}, ${s.tools} tools`);
      return { content: [{ type: "text", text: `gateway: ${st.servers.length - st.down.length} of ${st.servers.length} servers up\n${lines.join("\n")}` }], structuredContent: st as unknown as Args };
    }
    const spec = this.gateway.spec(name);
    if (spec) {
      // The api validates the arguments once and names the field as every door does.
      const result = await callTool(this.gateway.api, spec, args, { project: this.gateway.project });
      const invalid = (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code === "invalid-input";
      if (!invalid) setImmediate(() => this.observe(name, args));
      return result;
    }
    if (this.exposed.includes(name)) return this.forward(name, args);
    return errorResult(new ToolgraphError("unknown-tool", `no tool ${JSON.stringify(name)}: call upstream tools through call_tool with their <server>.<tool> id`));
  }

  /** Takes the intent and the declared user from toolgraph's own tools (after answering). */
  private observe(name: string, args: Args): void {
    if (typeof args.user === "string") this.recorder.setUser(args.user);
    if ((name === "search_tools" || name === "plan_workflow") && typeof args.intent === "string") {
      this.recorder.setIntent(args.intent);
      this.refreshExposed();
    }
  }

  private async forward(id: string, args: Args | undefined): Promise<CallToolResult> {
    const parts = splitToolId(id);
    if (!parts) return errorResult(new ToolgraphError("invalid-input", `call_tool: name: must be <server>.<tool>, got ${JSON.stringify(id)}`));
    const upstream = this.gateway.upstreams.get(parts.server);
    if (!upstream) {
      return errorResult(new ToolgraphError("unknown-tool", `call_tool: no server ${JSON.stringify(parts.server)} (servers: ${[...this.gateway.upstreams.keys()].join(", ")})`));
    }
    const known = upstream.tools.some((t) => t.name === parts.tool);
    const at = new Date();
    const t0 = performance.now();
    let result: CallToolResult;
    let success: boolean;
    try {
      result = await upstream.call(parts.tool, args);
      success = result.isError !== true;
    } catch (err) {
      result = errorResult(err);
      success = false;
    }
    const durationMs = performance.now() - t0;
    // Bookkeeping after the answer has gone out: never on the call's latency path.
    if (known && this.gateway.learning && !this.ended) {
      setImmediate(() => {
        this.recorder.step({ tool: id, args, result, success, durationMs, at });
        this.refreshExposed();
      });
    }
    return result;
  }

  /** Recomputes the exposed tools (top-k for the session's intent, else after its tools) and notifies on change. */
  refreshExposed(): void {
    const k = this.gateway.options.expose ?? GATEWAY_DEFAULTS.expose;
    if (k <= 0 || this.ended) return;
    void this.recommend(k)
      .then((ids) => {
        if (this.ended || (ids.length === this.exposed.length && ids.every((x, i) => x === this.exposed[i]))) return;
        this.exposed = ids;
        return this.server.sendToolListChanged();
      })
      .catch(() => undefined);
  }

  private async recommend(k: number): Promise<string[]> {
    const api = this.gateway.api;
    const project = this.gateway.project;
    const context = this.recorder.successfulTools().slice(-100);
    const intent = this.recorder.currentIntent;
    let ids: string[];
    if (intent) {
      const r = (await api.search({ intent, limit: Math.min(100, k * 3), project })) as { results: { tool: string }[] };
      ids = r.results.map((x) => x.tool);
    } else {
      const r = (await api.suggestNext({ context: [...new Set(context)].filter((t) => this.gateway.upstreamTool(t)), limit: Math.min(100, k * 3), project })) as { suggestions: { tool: string }[] };
      ids = r.suggestions.map((x) => x.tool);
    }
    return ids.filter((id) => this.gateway.upstreamTool(id) !== undefined).slice(0, k);
  }

  /** Resolves once no call of this session is running. */
  drain(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Ends the session: waits for its running calls, records its open execution, closes the MCP server. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private closing: Promise<void> | undefined;

  private async shutdown(): Promise<void> {
    await this.drain();
    // Let the deferred bookkeeping of the last answers run before the execution closes.
    await new Promise((r) => setImmediate(r));
    this.ended = true;
    this.recorder.end();
    this.gateway.sessionEnded(this);
    await this.server.close().catch(() => undefined);
  }
}
