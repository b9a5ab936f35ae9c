/**
 * One MCP session of the gateway (a stdio connection or a Streamable HTTP session): it serves the gateway's own
 * tools (own-tools.ts), relays `call_tool` to the upstream server (session-forward.ts), records the forwarded
 * calls as executions after each answer (recorder.ts), and with `expose` lists the recommended upstream tools
 * directly (session-exposed.ts; tools/list_changed as they change).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Toolgraph } from "../library/toolgraph.ts";
import { callTool, ERROR_META_KEY } from "../mcp/mcp-server.ts";
import { GATEWAY_DEFAULTS, GATEWAY_INFO, GATEWAY_INSTRUCTIONS } from "./gateway-options.ts";
import { SessionRecorder } from "./recorder.ts";
import { recommendedTools } from "./session-exposed.ts";
import { CallsInFlight, callToolRequest, forwardToolCall, unknownTool } from "./session-forward.ts";
import type { SessionHost } from "./session-host.ts";
import { policyApi, type SessionPolicy } from "./session-policy.ts";
import { statusResult } from "./status-tool.ts";

type Args = Record<string, unknown>;

export class GatewaySession {
  readonly server: Server;
  private readonly recorder: SessionRecorder;
  /** The api as this session calls it: the gateway's served api, through the session's policy. */
  private readonly api: Toolgraph;
  private exposed: string[] = [];
  private readonly calls = new CallsInFlight();
  private ended = false;
  /** A user was given at creation (a token's user, `--user`): the client's name does not replace it. */
  private readonly userGiven: boolean;

  constructor(
    private readonly gateway: SessionHost,
    readonly id: string,
    user: string | undefined,
    /** The identity's policy on top of the gateway's (session-policy.ts), if its token named one. */
    readonly policy?: SessionPolicy | undefined,
  ) {
    this.api = policy ? policyApi(gateway.served, policy) : gateway.served;
    this.recorder = new SessionRecorder({
      sessionId: `gw-${id}`,
      write: (e) => gateway.write(e),
      idleMs: gateway.options.idleMs,
    });
    if (user) this.recorder.setUser(user);
    const capabilities = { tools: { listChanged: true } };
    this.server = new Server(GATEWAY_INFO, { capabilities, instructions: GATEWAY_INSTRUCTIONS });
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
  callTool(name: string, args: Args): Promise<CallToolResult> {
    return this.calls.run(() => this.call(name, args));
  }

  private async call(name: string, args: Args): Promise<CallToolResult> {
    if (name === "call_tool") {
      const r = callToolRequest(args);
      return "error" in r ? r.error : this.forward(r.name, r.arguments);
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
    return unknownTool(name);
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
    const { result, record } = await forwardToolCall(this.gateway, this.policy, id, args);
    // Bookkeeping after the answer has gone out: never on the call's latency path.
    if (record && this.gateway.learning && !this.ended) {
      setImmediate(() => {
        this.recorder.step(record);
        this.refreshExposed();
      });
    }
    return result;
  }

  /** Recomputes the exposed tools (top-k for the session's intent, else after its tools) and notifies on change. */
  refreshExposed(): void {
    const k = this.gateway.options.expose ?? GATEWAY_DEFAULTS.expose;
    if (k <= 0 || this.ended) return;
    void recommendedTools(this.gateway, this.policy, k, this.recorder.currentIntent, this.recorder.successfulTools())
      .then((ids) => {
        if (this.ended || (ids.length === this.exposed.length && ids.every((x, i) => x === this.exposed[i]))) return;
        this.exposed = ids;
        return this.server.sendToolListChanged();
      })
      .catch(() => undefined);
  }

  /** Resolves once no call of this session is running. */
  drain(): Promise<void> {
    return this.calls.drain();
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
