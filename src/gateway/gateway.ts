/**
 * The gateway: toolgraph in front of real MCP servers. It connects to every upstream server of the config
 * (upstream.ts), keeps their tools in the project's catalog (catalog-sync.ts), and serves MCP sessions (stdio or
 * Streamable HTTP: gateway-session.ts) that offer toolgraph's own tools plus `call_tool`, which forwards to the
 * upstream and returns its result unchanged. With `expose` the currently recommended upstream tools are listed
 * directly as well (tools/list_changed as they change).
 *
 * Learning: each session's forwarded calls become executions (recorder.ts), written through the library's
 * `recordExecution` after the call has been answered, behind the catalog syncs (so a step's tool is in the
 * catalog before its execution is written). Writes go through a DurableWriter (durable-writer.ts): an
 * execution that cannot be written (the database is down) is kept, spooled to `spoolDir` and retried until
 * stored. A step whose tool the catalog refused (a bad id, an oversized description) is left out of its
 * execution and counted, never voiding the rest. Nothing is recorded with `learn: false`.
 */
import { randomUUID } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolgraphError } from "../contract/errors.ts";
import type { Toolgraph } from "../library/toolgraph.ts";
import { MCP_TOOLS, type McpToolSpec } from "../mcp/mcp-server.ts";
import { boundLine } from "./bounded-line.ts";
import { CatalogSync } from "./catalog-sync.ts";
import { DurableWriter, type DurableWriterStatus } from "./durable-writer.ts";
import { gatewayApi } from "./gateway-api.ts";
import { GATEWAY_DEFAULTS, type GatewayOptions } from "./gateway-options.ts";
import { GatewaySession, type SessionHost } from "./gateway-session.ts";
import { ownTools } from "./own-tools.ts";
import type { RecordedExecution } from "./recorder.ts";
import { withoutRefusedSteps } from "./refused-steps.ts";
import { SessionPolicy } from "./session-policy.ts";
import type { GatewayStatus, RecordedCounts } from "./status-tool.ts";
import { catalogToolId, displayText, splitToolId } from "./tool-map.ts";
import { PinStore } from "./trust.ts";
import { Upstream } from "./upstream.ts";

export { gatewayApi } from "./gateway-api.ts";
export { GATEWAY_DEFAULTS, GATEWAY_INFO, type GatewayOptions } from "./gateway-options.ts";
export { GatewaySession } from "./gateway-session.ts";
export { callToolArgs } from "./own-tools.ts";
export type { GatewayStatus, RecordedCounts } from "./status-tool.ts";

export class Gateway implements SessionHost {
  readonly api: Toolgraph;
  readonly options: GatewayOptions;
  readonly upstreams = new Map<string, Upstream>();
  readonly sessions = new Set<GatewaySession>();
  private readonly writer: DurableWriter<RecordedExecution>;
  readonly pins: PinStore;
  private readonly catalog: CatalogSync;
  private readonly ownTools: Tool[];
  private readonly specs: Map<string, McpToolSpec>;
  private readonly stored = { executions: 0, steps: 0, skippedSteps: 0 };
  private closed = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Moves whenever an upstream lists its tools (the key of the sessions' policy caches). */
  private listings = 0;
  /** The api as the sessions call it (gatewayApi). */
  readonly served: Toolgraph;

  constructor(api: Toolgraph, options: GatewayOptions) {
    this.api = api;
    this.options = options;
    // Answer at once: searches rank lexically while a new catalog's embeddings are computed (catalog-sync.ts).
    api.answerWhileEmbedding("lexical");
    this.served = gatewayApi(api, this);
    this.specs = new Map(MCP_TOOLS.map((s) => [s.name, s]));
    this.ownTools = ownTools();
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
    this.catalog = new CatalogSync({
      api,
      project: this.project,
      config: options.config,
      upstreams: this.upstreams,
      pins: this.pins,
      retireAfterMs: this.retireAfterMs,
      log: (l) => this.log(l),
      onSynced: () => {
        for (const s of this.sessions) s.refreshExposed();
      },
    });
    for (const [name, config] of options.config.servers) {
      this.upstreams.set(
        name,
        new Upstream(name, config, {
          onTools: (server, tools) => {
            this.listings++;
            this.catalog.onTools(server, tools);
          },
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

  get retireAfterMs(): number {
    return this.options.retireAfterMs ?? GATEWAY_DEFAULTS.retireAfterMs;
  }

  /** Why a tool is refused (policy or quarantine), or undefined; re-reads the pin file if it was approved since. */
  refusal(id: string): string | undefined {
    return this.catalog.refusal(id);
  }

  /** Tools quarantined now (changed since first seen, waiting for approval). */
  quarantined(): { tool: string; since: string; firstSeen: string }[] {
    return this.catalog.quarantined();
  }

  /**
   * While the gateway starts (its upstreams' first listing) or a catalog sync is queued or running, a promise
   * of its end, else undefined: the served api's operations wait for it (gateway-api.ts). A session can be
   * served before `start()` resolves (initialize needs no catalog); its first search then waits for the
   * catalog, or, past `syncWaitMs`, says which servers are still pending.
   */
  settling(): Promise<void> | undefined {
    const starting = this.starting;
    const sync = this.catalog.settling();
    if (!starting) return sync;
    return sync ? Promise.all([starting, sync]).then(() => undefined) : starting;
  }

  /** The error a search gets on an empty catalog while upstreams are still being listed (catalog-sync.ts). */
  explainEmpty(err: unknown): unknown {
    return this.catalog.explainEmpty(err);
  }

  /**
   * Connects every upstream (in parallel) and waits for their first attempt and catalog sync; with
   * `waitForEmbeddings` (default true) also for the search index (the tools' embeddings). Without it, searches
   * answer lexically until the embeddings are in (`degraded: "embedding"`): the CLI serves at once.
   */
  async start(options: { waitForEmbeddings?: boolean } = {}): Promise<void> {
    const run = this.startNow(options);
    this.starting = run;
    try {
      await run;
    } finally {
      if (this.starting === run) this.starting = undefined;
    }
  }

  /** The start in progress (its upstreams' first attempt and catalog sync), if one is. */
  private starting: Promise<void> | undefined;

  /** While the gateway starts, a promise of its end (a call_tool served meanwhile waits for it). */
  inStart(): Promise<void> | undefined {
    return this.starting;
  }

  private async startNow(options: { waitForEmbeddings?: boolean }): Promise<void> {
    if (!this.sweepTimer && !this.closed) {
      this.sweepTimer = setInterval(
        () => this.catalog.sweepRetired(),
        Math.max(1, Math.min(this.retireAfterMs, GATEWAY_DEFAULTS.retireSweepMs)),
      );
      this.sweepTimer.unref();
    }
    // Readied while the upstreams connect: the analytics worker and, on a home that has a catalog, its search.
    void this.api.warmUp("search", { project: this.project }).catch(() => undefined);
    await Promise.all([...this.upstreams.values()].map((u) => u.start()));
    await this.catalog.done();
    if (options.waitForEmbeddings ?? true) await this.catalog.indexed();
    this.writer.resume(); // executions spooled by an earlier run, now that their tools are in the catalog
    const st = this.status();
    this.log(
      `toolgraph gateway: ${st.servers.length - st.down.length} of ${st.servers.length} servers up${st.down.length > 0 ? ` (down: ${st.down.join(", ")})` : ""}`,
    );
  }

  /** Waits until every queued catalog sync is done, its search index built, and every execution written
   *  (never, while the database is down: see `status().recorded.backlog`). */
  async flush(): Promise<void> {
    await this.catalog.indexed();
    await this.writer.drained();
  }

  /** Resolves once the catalog's search index is built (its embeddings computed): searches rank with every channel. */
  indexed(): Promise<void> {
    return this.catalog.indexed();
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
      denied: this.catalog.denied,
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
    const kept = withoutRefusedSteps(execution, (tool) => this.catalog.usableTool(tool));
    this.stored.skippedSteps += execution.steps.length - (kept?.steps.length ?? 0);
    if (kept) this.writer.submit(kept);
  }

  private async writeNow(execution: RecordedExecution): Promise<void> {
    await this.catalog.done();
    await this.api.recordExecution(execution, { project: this.project, autoRegister: true });
    this.stored.executions++;
    this.stored.steps += execution.steps.length;
  }

  /**
   * A new MCP session (one per stdio connection or Streamable HTTP session). Connect its `server`. `policy`
   * names one of the config's `policies`, applied to this session on top of the gateway's (session-policy.ts).
   */
  createSession(
    init: { id?: string | undefined; user?: string | undefined; policy?: string | undefined } = {},
  ): GatewaySession {
    if (this.closed) throw new ToolgraphError("shutting-down", "the gateway is shutting down");
    const s = new GatewaySession(
      this,
      init.id ?? randomUUID(),
      init.user ?? this.options.user,
      init.policy === undefined ? undefined : this.sessionPolicy(init.policy),
    );
    this.sessions.add(s);
    return s;
  }

  private sessionPolicy(name: string): SessionPolicy {
    const policy = this.options.config.policies?.get(name);
    if (!policy)
      throw new ToolgraphError(
        "invalid-input",
        `policy: no policy ${JSON.stringify(name)} in the gateway config (policies: ${[...(this.options.config.policies?.keys() ?? [])].join(", ") || "none"})`,
        { field: "policy" },
      );
    return new SessionPolicy(name, policy, {
      toolOf: (id) => this.upstreamTool(id)?.tool,
      allTools: () =>
        [...this.upstreams].flatMap(([server, u]) =>
          u.tools.map((tool) => ({ id: catalogToolId(server, tool.name), tool })),
        ),
      generation: () => this.listings,
    });
  }

  /** @internal */
  sessionEnded(s: GatewaySession): void {
    this.sessions.delete(s);
  }

  toolList(exposed: readonly string[]): Tool[] {
    const out = [...this.ownTools];
    for (const id of exposed) {
      const t = this.upstreamTool(id);
      if (!t || this.catalog.isBlocked(id)) continue;
      const title = typeof t.tool.title === "string" ? { title: displayText(t.tool.title) } : {};
      out.push({
        ...t.tool,
        ...title,
        name: id,
        description: displayText(`[${t.server}] ${t.tool.description ?? ""}`.trim()),
      });
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
    this.catalog.close();
    clearInterval(this.sweepTimer);
    for (const s of [...this.sessions]) await s.close();
    await this.catalog.done();
    await this.writer.close(writeGraceMs);
    await Promise.all([...this.upstreams.values()].map((u) => u.close()));
  }
}
