/**
 * One upstream MCP server as the gateway sees it: its connection and health (upstream-link.ts: stdio or
 * Streamable HTTP, in either protocol era, reconnected with backoff while down), its current tool list
 * (upstream-tools.ts: every page) and the calls forwarded to it (upstream-call.ts: while it is down they fail at
 * once with an error naming the server). `notifications/tools/list_changed` (on a 2026-07-28 connection, from a
 * `subscriptions/listen` stream) re-lists the tools and reports them through `onTools`, coalesced
 * (upstream-relist.ts). Results and tool lists are handed on as the server sent them
 * (docs/decisions/mcp-protocol-eras.md).
 */
import type { Client } from "@modelcontextprotocol/client";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { GATEWAY_CONFIG_DEFAULTS, type UpstreamConfig } from "../contract/gateway-config.ts";
import { forwardCall, unavailable } from "./upstream-call.ts";
import { pidOf } from "./upstream-client.ts";
import { UpstreamLink } from "./upstream-link.ts";
import { message, UPSTREAM_DEFAULTS, type UpstreamOptions, type UpstreamStatus } from "./upstream-options.ts";
import { Relister } from "./upstream-relist.ts";
import { listAllTools, listenForToolChanges } from "./upstream-tools.ts";

export class Upstream extends UpstreamLink {
  private toolList: Tool[] = [];
  private everListed = false;
  private readonly relister: Relister;

  constructor(name: string, config: UpstreamConfig, options: UpstreamOptions = {}) {
    super(name, config, options);
    this.relister = new Relister({
      debounceMs: options.relistDebounceMs ?? UPSTREAM_DEFAULTS.relistDebounceMs,
      minIntervalMs: options.relistMinIntervalMs ?? UPSTREAM_DEFAULTS.relistMinIntervalMs,
      open: () => this.state !== "closed",
      ready: () => this.client !== undefined && this.state === "up",
      run: async () => {
        const timeout = this.options.connectTimeoutMs ?? GATEWAY_CONFIG_DEFAULTS.connectTimeoutMs;
        try {
          await this.refreshTools(this.client!, timeout);
        } catch (err) {
          this.log(`toolgraph gateway: ${this.name}: re-listing tools failed: ${message(err)}`);
        }
      },
    });
  }

  get tools(): readonly Tool[] {
    return this.toolList;
  }

  /** True once the server has listed its tools (since the gateway started). */
  get listed(): boolean {
    return this.everListed;
  }

  status(): UpstreamStatus {
    const pid = pidOf(this.transport);
    const up = this.state === "up";
    return {
      server: this.name,
      state: this.state,
      transport: this.config.kind,
      tools: this.toolList.length,
      ...(!up && this.lastError ? { error: this.lastError } : {}),
      attempts: this.attempts,
      ...(this.retryAt !== undefined && this.state === "down" ? { retryAt: new Date(this.retryAt).toISOString() } : {}),
      ...(pid !== undefined && up ? { pid } : {}),
      listed: this.everListed,
      relists: this.relister.relists,
      listChanged: this.relister.listChanged,
      relisting: this.relister.active,
      ...(up && this.client
        ? {
            protocolVersion: this.client.getNegotiatedProtocolVersion(),
            ...(this.client.getProtocolEra() === "modern" ? { subscribed: this.subscribed } : {}),
          }
        : {}),
    };
  }

  protected async connected(client: Client, timeout: number): Promise<void> {
    await this.refreshTools(client, timeout);
    // Not awaited: the server is up once listed; a change before the subscription is acknowledged is missed.
    void listenForToolChanges(client, timeout).then(
      (listening) => {
        if (listening && client === this.client) this.subscribed = true;
      },
      (err) => {
        if (client === this.client)
          this.log(`toolgraph gateway: ${this.name}: cannot follow tool list changes: ${message(err)}`);
      },
    );
  }

  protected toolsChanged(): void {
    this.relister.notified();
  }

  protected wentDown(): void {
    this.relister.cancel(); // the next connection lists the tools anyway
  }

  /** Lists every page of tools and reports the list (unless the connection has since closed). */
  private async refreshTools(client: Client, timeout?: number): Promise<void> {
    const { tools, dropped } = await listAllTools(client, timeout);
    if (dropped > 0)
      this.log(
        `toolgraph gateway: ${this.name}: ${dropped} listed tools left out (no name, or an input schema that is not an object)`,
      );
    if (client !== this.client) return; // a re-list of a connection that has since closed
    this.toolList = tools;
    this.everListed = true;
    this.options.onTools?.(this.name, tools);
  }

  /** Forwards one tools/call and returns the server's result unchanged (upstream-call.ts for the failures). */
  async call(tool: string, args: Record<string, unknown> | undefined, timeoutMs?: number): Promise<CallToolResult> {
    const client = this.client;
    if (!client || this.state !== "up") throw unavailable(this.name, this.state, this.lastError, this.retryAt);
    const timeout = timeoutMs ?? this.config.timeoutMs ?? GATEWAY_CONFIG_DEFAULTS.callTimeoutMs;
    return forwardCall(client, this.name, tool, args, timeout);
  }

  override async close(): Promise<void> {
    this.relister.stop();
    await super.close();
  }
}
