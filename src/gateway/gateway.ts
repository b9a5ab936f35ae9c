/**
 * The gateway: toolgraph in front of real MCP servers. It connects to every upstream server of the config and
 * keeps their tools in the project's catalog (gateway-catalog.ts), and serves MCP sessions (stdio or Streamable
 * HTTP: gateway-session.ts) that offer toolgraph's own tools plus `call_tool`, which forwards to the upstream and
 * returns its result unchanged. With `expose` the currently recommended upstream tools are listed directly as
 * well (tools/list_changed as they change). Each session's forwarded calls become executions (recorder.ts),
 * written durably after the call has been answered (gateway-recording.ts); nothing is recorded with `learn: false`.
 */
import { randomUUID } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolgraphError } from "../contract/errors.ts";
import type { Toolgraph } from "../library/toolgraph.ts";
import { MCP_TOOLS, type McpToolSpec } from "../mcp/mcp-server.ts";
import { gatewayApi } from "./gateway-api.ts";
import { GatewayCatalog } from "./gateway-catalog.ts";
import { GATEWAY_DEFAULTS, type GatewayOptions } from "./gateway-options.ts";
import { ExecutionRecording } from "./gateway-recording.ts";
import { GatewaySession } from "./gateway-session.ts";
import { namedPolicy, servedToolList } from "./gateway-upstreams.ts";
import { ownTools } from "./own-tools.ts";
import type { RecordedExecution } from "./recorded-execution.ts";
import type { SessionHost } from "./session-host.ts";
import type { GatewayStatus, RecordedCounts } from "./status-tool.ts";

export { gatewayApi } from "./gateway-api.ts";
export { GATEWAY_DEFAULTS, GATEWAY_INFO, type GatewayOptions } from "./gateway-options.ts";
export { GatewaySession } from "./gateway-session.ts";
export { callToolArgs } from "./own-tools.ts";
export type { GatewayStatus, RecordedCounts } from "./status-tool.ts";

export class Gateway extends GatewayCatalog implements SessionHost {
  readonly sessions = new Set<GatewaySession>();
  private readonly recording: ExecutionRecording;
  private readonly ownTools: Tool[];
  private readonly specs: Map<string, McpToolSpec>;
  /** The api as the sessions call it (gatewayApi). */
  readonly served: Toolgraph;

  constructor(api: Toolgraph, options: GatewayOptions) {
    super(api, options);
    // Answer at once: searches rank lexically while a new catalog's embeddings are computed (catalog-sync.ts).
    api.answerWhileEmbedding("lexical");
    this.served = gatewayApi(api, this);
    this.specs = new Map(MCP_TOOLS.map((s) => [s.name, s]));
    this.ownTools = ownTools();
    this.recording = new ExecutionRecording(
      api,
      () => this.project,
      this.catalog,
      options,
      (l) => this.log(l),
    );
  }

  get learning(): boolean {
    return this.options.learn ?? GATEWAY_DEFAULTS.learn;
  }

  protected synced(): void {
    for (const s of this.sessions) s.refreshExposed();
  }

  protected started(): void {
    this.recording.resume(); // executions spooled by an earlier run, now that their tools are in the catalog
    const st = this.status();
    const down = st.down.length > 0 ? ` (down: ${st.down.join(", ")})` : "";
    this.log(`toolgraph gateway: ${st.servers.length - st.down.length} of ${st.servers.length} servers up${down}`);
  }

  /** Waits until every queued catalog sync is done, its search index built, and every execution written
   *  (never, while the database is down: see `status().recorded.backlog`). */
  async flush(): Promise<void> {
    await this.catalog.indexed();
    await this.recording.drained();
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
    return this.recording.counts;
  }

  /** Hands one closed execution to the recording (after the answers; written behind the catalog syncs). */
  write(execution: RecordedExecution): void {
    if (this.learning) this.recording.submit(execution);
  }

  /**
   * A new MCP session (one per stdio connection or Streamable HTTP session). Connect its `server`. `policy`
   * names one of the config's `policies`, applied to this session on top of the gateway's (session-policy.ts).
   */
  createSession(
    init: { id?: string | undefined; user?: string | undefined; policy?: string | undefined } = {},
  ): GatewaySession {
    if (this.closed) throw new ToolgraphError("shutting-down", "the gateway is shutting down");
    const policy =
      init.policy === undefined
        ? undefined
        : namedPolicy(init.policy, this.options.config, this.upstreams, () => this.listings);
    const s = new GatewaySession(this, init.id ?? randomUUID(), init.user ?? this.options.user, policy);
    this.sessions.add(s);
    return s;
  }

  /** @internal */
  sessionEnded(s: GatewaySession): void {
    this.sessions.delete(s);
  }

  toolList(exposed: readonly string[]): Tool[] {
    return servedToolList(this.ownTools, this.upstreams, exposed, (id) => this.catalog.isBlocked(id));
  }

  spec(name: string): McpToolSpec | undefined {
    return this.specs.get(name);
  }

  /**
   * Ends every session (their open executions are recorded), writes what is queued (waiting up to
   * `writeGraceMs`; what is left goes to the spool), closes the upstreams.
   */
  async close(writeGraceMs = 5_000): Promise<void> {
    this.stopSyncing();
    for (const s of [...this.sessions]) await s.close();
    await this.catalog.done();
    await this.recording.close(writeGraceMs);
    await Promise.all([...this.upstreams.values()].map((u) => u.close()));
  }
}
