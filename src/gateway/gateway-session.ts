/**
 * One MCP session of the gateway (a stdio connection or a Streamable HTTP session): it serves the gateway's own
 * tools (own-tools.ts), relays `call_tool` to the upstream server (its result unchanged, an error naming the
 * server when it is down or times out), records the session's forwarded calls as executions (recorder.ts,
 * after each answer), and with `expose` lists the currently recommended upstream tools directly
 * (tools/list_changed as they change).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { problemsMessage, zodProblems } from "../contract/error-mapping.ts";
import { ToolgraphError } from "../contract/errors.ts";
import type { Toolgraph } from "../library/toolgraph.ts";
import { callTool, ERROR_META_KEY, type McpToolSpec } from "../mcp/mcp-server.ts";
import { GATEWAY_API_DEFAULTS, untilOr } from "./gateway-api.ts";
import { GATEWAY_DEFAULTS, GATEWAY_INFO, GATEWAY_INSTRUCTIONS, type GatewayOptions } from "./gateway-options.ts";
import { callToolArgs, errorResult } from "./own-tools.ts";
import { type RecordedExecution, SessionRecorder } from "./recorder.ts";
import { policyApi, type SessionPolicy } from "./session-policy.ts";
import { type GatewayStatus, statusResult } from "./status-tool.ts";
import { splitToolId } from "./tool-map.ts";
import type { Upstream } from "./upstream.ts";

/** What a session needs of its gateway (gateway.ts implements it). */
export interface SessionHost {
  readonly options: Pick<GatewayOptions, "idleMs" | "expose">;
  /** The library (for the exposed tools' recommendations) and the api as the sessions call it (gatewayApi). */
  readonly api: Toolgraph;
  readonly served: Toolgraph;
  readonly project: string;
  readonly learning: boolean;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  write(execution: RecordedExecution): void;
  toolList(exposed: readonly string[]): Tool[];
  status(): GatewayStatus;
  spec(name: string): McpToolSpec | undefined;
  refusal(id: string): string | undefined;
  /** While the gateway starts (its upstreams' first attempt), a promise of its end (gateway.ts). */
  inStart?(): Promise<void> | undefined;
  upstreamTool(id: string): { server: string; upstream: Upstream; tool: Tool } | undefined;
  sessionEnded(session: GatewaySession): void;
}

type Args = Record<string, unknown>;

export class GatewaySession {
  readonly id: string;
  readonly server: Server;
  private readonly gateway: SessionHost;
  private readonly recorder: SessionRecorder;
  /** The identity's policy on top of the gateway's (session-policy.ts), if its token named one. */
  readonly policy: SessionPolicy | undefined;
  /** The api as this session calls it: the gateway's served api, through the session's policy. */
  private readonly api: Toolgraph;
  private exposed: string[] = [];
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private ended = false;
  /** A user was given at creation (a token's user, `--user`): the client's name does not replace it. */
  private readonly userGiven: boolean;

  constructor(gateway: SessionHost, id: string, user: string | undefined, policy?: SessionPolicy | undefined) {
    this.gateway = gateway;
    this.id = id;
    this.policy = policy;
    this.api = policy ? policyApi(gateway.served, policy) : gateway.served;
    this.recorder = new SessionRecorder({
      sessionId: `gw-${id}`,
      write: (e) => gateway.write(e),
      idleMs: gateway.options.idleMs,
    });
    if (user) this.recorder.setUser(user);
    this.server = new Server(GATEWAY_INFO, {
      capabilities: { tools: { listChanged: true } },
      instructions: GATEWAY_INSTRUCTIONS,
    });
    this.userGiven = user !== undefined && user !== "";
    this.server.oninitialized = () => {
      this.clientIdentified(this.server.getClientVersion()?.name);
      this.refreshExposed();
    };
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: gateway.toolList(this.exposed.filter((id) => this.policy?.denies(id) === undefined)),
    }));
    this.server.setRequestHandler(CallToolRequestSchema, (req) =>
      this.callTool(req.params.name, (req.params.arguments ?? {}) as Args),
    );
  }

  /** The client's own name (2025: initialize's clientInfo; 2026-07-28: each request's envelope) is the
   *  session's user unless one was given (a token's user, `--user`). */
  clientIdentified(name: string | undefined): void {
    if (!this.userGiven && name) this.recorder.setUser(name);
  }

  /** Answers one tools/call of this session (either era's server calls it); counted until answered. */
  async callTool(name: string, args: Args): Promise<CallToolResult> {
    this.inFlight++;
    try {
      return await this.call(name, args);
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private async call(name: string, args: Args): Promise<CallToolResult> {
    if (name === "call_tool") {
      const r = callToolArgs.safeParse(args);
      if (!r.success) {
        const problems = zodProblems(r.error.issues);
        return errorResult(
          new ToolgraphError("invalid-input", `call_tool: ${problemsMessage(problems)}`, {
            field: problems[0]?.field ?? "",
            issues: problems,
          }),
        );
      }
      return this.forward(r.data.name, r.data.arguments);
    }
    if (name === "gateway_status") return statusResult(this.gateway.status());
    const spec = this.gateway.spec(name);
    if (spec) {
      // The api validates the arguments once and names the field as every door does.
      const result = await callTool(this.api, spec, args, { project: this.gateway.project });
      const invalid = (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code === "invalid-input";
      if (!invalid) setImmediate(() => this.observe(name, args));
      return result;
    }
    if (this.exposed.includes(name)) return this.forward(name, args);
    return errorResult(
      new ToolgraphError(
        "unknown-tool",
        `no tool ${JSON.stringify(name)}: call upstream tools through call_tool with their <server>.<tool> id`,
      ),
    );
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
    if (!parts)
      return errorResult(
        new ToolgraphError("invalid-input", `call_tool: name: must be <server>.<tool>, got ${JSON.stringify(id)}`),
      );
    const upstream = this.gateway.upstreams.get(parts.server);
    if (!upstream) {
      return errorResult(
        new ToolgraphError(
          "unknown-tool",
          `call_tool: no server ${JSON.stringify(parts.server)} (servers: ${[...this.gateway.upstreams.keys()].join(", ")})`,
        ),
      );
    }
    // Served before the gateway's start is done: a call waits for the server's first attempt (bounded).
    const starting = upstream.isUp ? undefined : this.gateway.inStart?.();
    if (starting) await untilOr(starting, GATEWAY_API_DEFAULTS.syncWaitMs);
    const refused = this.gateway.refusal(id) ?? this.policy?.denies(id);
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
    // The served api: it waits for a catalog sync in progress rather than ready its analytics on the loop.
    const api = this.gateway.served;
    const project = this.gateway.project;
    const context = this.recorder.successfulTools().slice(-100);
    const intent = this.recorder.currentIntent;
    let ids: string[];
    if (intent) {
      const r = (await api.search({ intent, limit: Math.min(100, k * 3), project })) as { results: { tool: string }[] };
      ids = r.results.map((x) => x.tool);
    } else {
      const r = (await api.suggestNext({
        context: [...new Set(context)].filter((t) => this.gateway.upstreamTool(t)),
        limit: Math.min(100, k * 3),
        project,
      })) as { suggestions: { tool: string }[] };
      ids = r.suggestions.map((x) => x.tool);
    }
    return ids
      .filter((id) => this.gateway.upstreamTool(id) !== undefined && this.policy?.denies(id) === undefined)
      .slice(0, k);
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
