/**
 * The gateway: toolgraph in front of real MCP servers. It connects to every upstream server of the config
 * (upstream.ts), keeps their tools in the project's catalog (`syncServerTools`: `<server>.<tool>`, unlisted
 * tools marked unavailable), and serves MCP sessions (stdio or Streamable HTTP) that offer toolgraph's own
 * tools plus `call_tool`, which forwards to the upstream and returns its result unchanged. With `expose`
 * the currently recommended upstream tools are listed directly as well (tools/list_changed as they change).
 * Under churn (docs/decisions/gateway-churn.md): the syncs of one server coalesce (a sync queued and not yet
 * started takes the newest list), tools unavailable past `retireAfterMs` are retired (out of search and the
 * console, history kept), and a search while no upstream has listed its tools says which are pending.
 *
 * Learning: each session's forwarded calls become executions (recorder.ts), written through the library's
 * `recordExecution` after the call has been answered, behind the catalog syncs (so a step's tool is in the
 * catalog before its execution is written). Writes go through a DurableWriter (durable-writer.ts): an
 * execution that cannot be written (the database is down) is kept, spooled to `spoolDir` and retried until
 * stored. A step whose tool the catalog refused (a bad id, an oversized description) is left out of its
 * execution and counted, never voiding the rest. Nothing is recorded with `learn: false`.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { errorOutcome, problemsMessage, zodProblems } from "../contract/error-mapping.ts";
import { ToolgraphError } from "../contract/errors.ts";
import type { Toolgraph } from "../library/toolgraph.ts";
import { callTool, ERROR_META_KEY, MCP_TOOLS, type McpToolSpec } from "../mcp/mcp-server.ts";
import { boundLine, boundList } from "./bounded-line.ts";
import type { GatewayConfig } from "./config.ts";
import { DurableWriter, type DurableWriterStatus } from "./durable-writer.ts";
import { type RecordedExecution, SessionRecorder } from "./recorder.ts";
import { catalogCanHold, withoutRefusedSteps } from "./refused-steps.ts";
import { displayText, splitToolId, toCatalogTool } from "./tool-map.ts";
import { compilePolicy, PinStore } from "./trust.ts";
import { Upstream, type UpstreamStatus } from "./upstream.ts";

export const GATEWAY_INFO = { name: "toolgraph-gateway", version: "0.1.0" } as const;

export const GATEWAY_DEFAULTS = {
  /** Upstream tools listed directly besides call_tool (0: none). */
  expose: 0,
  learn: true,
  /** A tool unlisted for this long (ms) is retired: out of search and the console, its history kept. */
  retireAfterMs: 600_000,
  /** How often (ms, at most) the gateway looks for tools past the grace period that no sync touched. */
  retireSweepMs: 60_000,
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
  /** Coalescing of tools/list_changed (ms), see UPSTREAM_DEFAULTS. */
  relistDebounceMs?: number | undefined;
  relistMinIntervalMs?: number | undefined;
  /** Retire tools unlisted for longer than this (ms). Default GATEWAY_DEFAULTS.retireAfterMs. */
  retireAfterMs?: number | undefined;
  /** Where lifecycle lines and internal errors go (never stdout). Default stderr. */
  log?: ((line: string) => void) | undefined;
  /** The pin file (trust.ts): first-seen hashes of upstream tools. Default: none, pins kept in memory only.
   *  The CLI uses `<home>/gateway-pins.json`. */
  pinFile?: string | undefined;
  /** Directory for executions that could not be written yet (replayed at the next start). Default: none,
   *  the backlog is kept in memory only. The CLI uses `<home>/gateway-spool`. */
  spoolDir?: string | undefined;
  /** Retry backoff bounds for execution writes (ms), see DURABLE_WRITER_DEFAULTS. */
  writeMinBackoffMs?: number | undefined;
  writeMaxBackoffMs?: number | undefined;
}

/** What the gateway has learned so far and what it still has to write. */
export interface RecordedCounts {
  /** Executions and steps stored. */
  executions: number;
  steps: number;
  /** Failed write attempts (each is retried; see backlog). */
  failedWrites: number;
  /** Executions waiting to be written (in memory and spooled) and whether a retry is scheduled. */
  backlog: number;
  spooled: number;
  retrying: boolean;
  /** Executions the store refused, or dropped because the spool was full. */
  rejected: number;
  dropped: number;
  /** Steps left out because the catalog refused their tool (executions with no step left are not written). */
  skippedSteps: number;
}

export interface GatewayStatus {
  servers: UpstreamStatus[];
  /** Names of the servers that are not up. */
  down: string[];
  sessions: number;
  learning: boolean;
  recorded: RecordedCounts;
  /** Upstream tools quarantined because they changed since first seen (trust.ts), and how many the policy denies. */
  quarantined: { tool: string; since: string; firstSeen: string }[];
  denied: number;
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
  /** Catalog syncs, in order (execution writes wait for them: durable-writer.ts). */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly writer: DurableWriter<RecordedExecution>;
  /** Tools left out of the catalog by the policy or quarantined by their pins: id → the reason (trust.ts). */
  private readonly blocked = new Map<string, string>();
  private readonly policy: ReturnType<typeof compilePolicy>;
  readonly pins: PinStore;
  /** Per server, the delay before retrying a sync the database could not take. */
  private readonly syncBackoffMs = new Map<string, number>();
  /** Per server, the catalog ids its last sync refused. */
  private readonly refused = new Map<string, Set<string>>();
  private readonly ownTools: Tool[];
  private readonly specs: Map<string, McpToolSpec>;
  private readonly stored = { executions: 0, steps: 0, skippedSteps: 0 };
  private closed = false;
  /** The newest tool list of each server whose sync is queued and not yet started (later lists replace it). */
  private readonly pendingSyncs = new Map<string, Tool[]>();
  /** Servers whose tools have been synced into the catalog at least once. */
  private readonly synced = new Set<string>();
  private sweepTimer: NodeJS.Timeout | undefined;
  /** The api as the sessions call it (gatewayApi). */
  readonly served: Toolgraph;

  constructor(api: Toolgraph, options: GatewayOptions) {
    this.api = api;
    this.options = options;
    this.served = gatewayApi(api, this);
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
    this.policy = compilePolicy(options.config.policy);
    this.pins = new PinStore(options.pinFile);
    this.writer = new DurableWriter<RecordedExecution>({
      write: (e) => this.writeNow(e),
      classify: (err) => {
        const code = err instanceof ToolgraphError ? err.code : undefined;
        if (code === "database-unreachable" || code === "database-locked" || code === "shutting-down") return "retry";
        if (code === "invalid-input") return "reject";
        return "unknown";
      },
      spoolDir: options.spoolDir,
      minBackoffMs: options.writeMinBackoffMs,
      maxBackoffMs: options.writeMaxBackoffMs,
      log: (l) => this.log(`toolgraph gateway: ${l}`),
    });
    for (const [name, config] of options.config.servers) {
      this.upstreams.set(
        name,
        new Upstream(name, config, {
          onTools: (server, tools) => this.onTools(server, tools),
          log: (l) => this.log(l),
          minBackoffMs: options.minBackoffMs,
          maxBackoffMs: options.maxBackoffMs,
          connectTimeoutMs: options.connectTimeoutMs,
          relistDebounceMs: options.relistDebounceMs,
          relistMinIntervalMs: options.relistMinIntervalMs,
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
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(boundLine(line));
  }

  private enqueue(job: () => Promise<unknown>, what: string): Promise<void> {
    const next = this.queue.then(job).then(
      () => undefined,
      (err) => this.log(`toolgraph gateway: ${what} failed: ${(err as Error)?.stack ?? String(err)}`),
    );
    this.queue = next;
    return next;
  }

  get retireAfterMs(): number {
    return this.options.retireAfterMs ?? GATEWAY_DEFAULTS.retireAfterMs;
  }

  private onTools(server: string, tools: Tool[]): void {
    // A sync of this server already waits in the queue: it will take this newer list instead.
    const queued = this.pendingSyncs.has(server);
    this.pendingSyncs.set(server, tools);
    if (queued) return;
    void this.enqueue(async () => {
      const latest = this.pendingSyncs.get(server) ?? tools;
      this.pendingSyncs.delete(server);
      let r: Awaited<ReturnType<Toolgraph["syncServerTools"]>>;
      const admitted = this.admit(server, latest);
      try {
        r = await this.api.syncServerTools(
          server,
          admitted,
          { project: this.project, retireAfterMs: this.retireAfterMs, embed: false },
        );
      } catch (err) {
        this.retrySyncLater(server, latest, err);
        throw err;
      }
      this.syncBackoffMs.delete(server);
      // The rows are in: a search from now on finds the tools (waiting for the index build below if it must).
      this.synced.add(server);
      this.refused.set(server, new Set(r.rejected.map((x) => x.tool)));
      await this.api.engine.searchIndex(this.project);
      for (const x of r.rejected.slice(0, 10)) this.log(`toolgraph gateway: ${server}: tool ${x.tool} left out of the catalog: ${x.problem}`);
      if (r.rejected.length > 10) this.log(`toolgraph gateway: ${server}: … ${r.rejected.length - 10} more tools left out of the catalog`);
      if (r.unavailable.length > 0) this.log(`toolgraph gateway: ${server}: no longer listed, marked unavailable: ${boundList(r.unavailable)}`);
      if (r.retired.length > 0) this.log(`toolgraph gateway: ${server}: unlisted for over ${this.retireAfterMs} ms, retired: ${boundList(r.retired)}`);
      for (const s of this.sessions) s.refreshExposed();
    }, `syncing the tools of ${server}`);
  }

  /**
   * The catalog tools of a server's list that the policy allows and the pins do not quarantine; the others are
   * remembered in `blocked` with their reason (call_tool refuses them) and logged (bounded).
   */
  private admit(server: string, tools: Tool[]): Record<string, unknown>[] {
    for (const id of [...this.blocked.keys()]) if (id.startsWith(`${server}.`)) this.blocked.delete(id);
    const candidates = tools.map((t) => ({ tool: t, catalog: toCatalogTool(server, t) }));
    const allowed = candidates.filter(({ catalog }) => {
      const why = this.policy.denies({ id: catalog.id as string, server, safetyTags: catalog.safetyTags as string[] });
      if (why) this.blocked.set(catalog.id as string, why);
      return why === undefined;
    });
    const autoApprove = this.options.config.servers.get(server)?.autoApprove === true;
    const verdicts = this.pins.check(
      allowed.map(({ tool, catalog }) => ({ id: catalog.id as string, tool })),
      { autoApprove, now: new Date().toISOString() },
    );
    const out: Record<string, unknown>[] = [];
    const changed: string[] = [];
    for (const { catalog } of allowed) {
      const v = verdicts.get(catalog.id as string)!;
      if (v.state === "quarantined") this.blocked.set(catalog.id as string, v.reason);
      else out.push(catalog);
      if (v.state === "approved-change") changed.push(catalog.id as string);
    }
    const blocked = [...this.blocked.keys()].filter((id) => id.startsWith(`${server}.`));
    if (blocked.length > 0) this.log(`toolgraph gateway: ${server}: left out by the policy or quarantined: ${boundList(blocked)}`);
    if (changed.length > 0) this.log(`toolgraph gateway: ${server}: changed tools approved automatically (autoApprove): ${boundList(changed)}`);
    return out;
  }

  /** Why a tool is refused (policy or quarantine), or undefined; re-reads the pin file if it was approved since. */
  refusal(id: string): string | undefined {
    if (this.blocked.has(id) && this.pins.reload()) {
      // Approved from another process (`toolgraph gateway approve`): sync its server again.
      const server = splitToolId(id)?.server;
      const u = server ? this.upstreams.get(server) : undefined;
      if (u && server) this.onTools(server, [...u.tools]);
    }
    const why = this.blocked.get(id);
    // Quarantined, and approved since: the call may go (its catalog entry follows with the sync above).
    if (why?.startsWith("quarantined") && this.pins.get(id)?.pending === undefined) return undefined;
    return why;
  }

  /** Tools quarantined now (changed since first seen, waiting for approval). */
  quarantined(): { tool: string; since: string; firstSeen: string }[] {
    return this.pins.quarantined().filter((q) => this.blocked.has(q.tool));
  }

  /**
   * A sync the database could not take (down at start, or a blip) is tried again with backoff (0.5 s doubling
   * to 10 s) unless a newer list of the server is already queued: tools listed during an outage still reach
   * the catalog when the database returns.
   */
  private retrySyncLater(server: string, tools: Tool[], err: unknown): void {
    const code = err instanceof ToolgraphError ? err.code : undefined;
    if (this.closed || (code !== "database-unreachable" && code !== "database-locked")) return;
    const delay = this.syncBackoffMs.get(server) ?? 500;
    this.syncBackoffMs.set(server, Math.min(10_000, delay * 2));
    setTimeout(() => {
      if (!this.closed && !this.pendingSyncs.has(server)) this.onTools(server, tools);
    }, delay).unref();
  }

  /** Retires the tools unlisted past the grace period that no sync touched (a server that stopped changing). */
  private sweepRetired(): void {
    void this.enqueue(async () => {
      const retired = await this.api.retireUnavailableTools(this.retireAfterMs, { project: this.project });
      if (retired.length > 0) this.log(`toolgraph gateway: unlisted for over ${this.retireAfterMs} ms, retired: ${boundList(retired)}`);
    }, "retiring unlisted tools");
  }

  /**
   * The error a search gets on an empty catalog while upstreams are still being listed: which servers are
   * pending and why, instead of the CLI's "import a catalog" advice. Other errors pass unchanged.
   */
  explainEmpty(err: unknown): unknown {
    if (!(err instanceof ToolgraphError) || err.code !== "empty-project") return err;
    const all = [...this.upstreams.values()];
    const pending = all.filter((u) => !this.synced.has(u.name));
    const describe = (u: Upstream) => {
      const st = u.status();
      if (u.listed) return `${u.name} (listed ${st.tools} tools, being added to the catalog)`;
      const retry = st.retryAt ? `, retrying at ${st.retryAt}` : "";
      return `${u.name} (${st.state}${st.state === "down" && st.error ? `: ${boundLine(st.error, 300)}` : ""}${retry})`;
    };
    if (pending.length > 0) {
      return new ToolgraphError(
        "catalog-loading",
        `the gateway's catalog is still loading: no upstream tool is listed yet; pending: ${pending.map(describe).join("; ")}. Try again shortly (gateway_status shows progress)`,
        { project: this.project, pending: pending.map((u) => u.name) },
      );
    }
    return new ToolgraphError("empty-project", `the gateway's upstream servers list no tools (${all.map((u) => u.name).join(", ")}): nothing to search`, {
      project: this.project,
      pending: [],
    });
  }

  /** Connects every upstream (in parallel) and waits for their first attempt and catalog sync. */
  async start(): Promise<void> {
    if (!this.sweepTimer && !this.closed) {
      this.sweepTimer = setInterval(() => this.sweepRetired(), Math.max(1, Math.min(this.retireAfterMs, GATEWAY_DEFAULTS.retireSweepMs)));
      this.sweepTimer.unref();
    }
    await Promise.all([...this.upstreams.values()].map((u) => u.start()));
    await this.syncsDone();
    this.writer.resume(); // executions spooled by an earlier run, now that their tools are in the catalog
    const st = this.status();
    this.log(`toolgraph gateway: ${st.servers.length - st.down.length} of ${st.servers.length} servers up${st.down.length > 0 ? ` (down: ${st.down.join(", ")})` : ""}`);
  }

  /** Waits until every queued catalog sync is done and every execution is written (never, while the database
   *  is down: see `status().recorded.backlog`). */
  async flush(): Promise<void> {
    await this.syncsDone();
    await this.writer.drained();
  }

  private async syncsDone(): Promise<void> {
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
      recorded: this.recorded,
      quarantined: this.quarantined(),
      denied: [...this.blocked.values()].filter((why) => why.startsWith("denied")).length,
    };
  }

  get recorded(): RecordedCounts {
    const w: DurableWriterStatus = this.writer.status();
    return {
      executions: this.stored.executions,
      steps: this.stored.steps,
      failedWrites: w.failedAttempts,
      backlog: w.backlog,
      spooled: w.spooled,
      retrying: w.retrying,
      rejected: w.rejected,
      dropped: w.dropped,
      skippedSteps: this.stored.skippedSteps,
    };
  }

  /** Hands one closed execution to the durable writer (after the answers; written behind the catalog syncs). */
  write(execution: RecordedExecution): void {
    if (!this.learning) return;
    const kept = withoutRefusedSteps(execution, (tool) => this.usableTool(tool));
    this.stored.skippedSteps += execution.steps.length - (kept?.steps.length ?? 0);
    if (kept) this.writer.submit(kept);
  }

  /** False for a tool the catalog refused at its server's last sync, or whose id the catalog cannot hold. */
  private usableTool(tool: string): boolean {
    const p = splitToolId(tool);
    return !(p && this.refused.get(p.server)?.has(tool)) && catalogCanHold(tool);
  }

  private async writeNow(execution: RecordedExecution): Promise<void> {
    await this.syncsDone();
    await this.api.recordExecution(execution, { project: this.project, autoRegister: true });
    this.stored.executions++;
    this.stored.steps += execution.steps.length;
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
      if (!t || this.blocked.has(id)) continue;
      const title = typeof t.tool.title === "string" ? { title: displayText(t.tool.title) } : {};
      out.push({ ...t.tool, ...title, name: id, description: displayText(`[${t.server}] ${t.tool.description ?? ""}`.trim()) });
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

  /**
   * Ends every session (their open executions are recorded), writes what is queued (waiting up to
   * `writeGraceMs`; what is left goes to the spool), closes the upstreams.
   */
  async close(writeGraceMs = 5_000): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    for (const s of [...this.sessions]) await s.close();
    await this.syncsDone();
    await this.writer.close(writeGraceMs);
    await Promise.all([...this.upstreams.values()].map((u) => u.close()));
  }
}

/**
 * The api the gateway serves (its MCP sessions and its HTTP server): the library's, with `stats` also naming
 * the upstream servers and which are down (GET /v1/stats), like `gateway_status` and /health, and an empty
 * catalog explained by the upstreams still being listed (Gateway.explainEmpty) rather than by CLI advice.
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
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        const r = v.apply(target, args);
        return r instanceof Promise
          ? r.catch((err: unknown) => {
              throw gateway.explainEmpty(err);
            })
          : r;
      };
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
      const r = st.recorded;
      const learned = `learned: ${r.executions} executions stored; ${r.backlog} waiting to be written (${r.spooled} spooled)${r.retrying ? ", retrying" : ""}`;
      const q = st.quarantined.map((x) => x.tool);
      const quarantine = q.length > 0 ? `\nquarantined: ${q.slice(0, 20).join(", ")}${q.length > 20 ? `, … ${q.length - 20} more` : ""} (approve with toolgraph gateway approve TOOL)` : "";
      return {
        content: [{ type: "text", text: `gateway: ${st.servers.length - st.down.length} of ${st.servers.length} servers up\n${lines.join("\n")}\n${learned}${quarantine}` }],
        structuredContent: st as unknown as Args,
      };
    }
    const spec = this.gateway.spec(name);
    if (spec) {
      // The api validates the arguments once and names the field as every door does.
      const result = await callTool(this.gateway.served, spec, args, { project: this.gateway.project });
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
    const refused = this.gateway.refusal(id);
    if (refused) return errorResult(new ToolgraphError("tool-refused", `call_tool: ${id} is ${refused}`, { tool: id }));
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
