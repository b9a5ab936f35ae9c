/**
 * One upstream MCP server as the gateway sees it: an SDK `Client` over stdio (a spawned process) or
 * Streamable HTTP, its current tool list (every page), and its health. A server that fails to start,
 * crashes or drops the connection is marked down and reconnected with exponential backoff; calls to it
 * meanwhile fail at once with an error naming the server; each failed attempt counts once towards the
 * backoff. `notifications/tools/list_changed` (on a 2026-07-28 connection, from a `subscriptions/listen`
 * stream) re-lists the tools and reports them through `onTools`, coalesced:
 * a burst of notifications waits `relistDebounceMs` and becomes one re-list, at most one re-list runs at a
 * time per server, and re-lists start at most once per `relistMinIntervalMs` (defaults and why:
 * docs/decisions/gateway-churn.md). Stderr lines and log lines are bounded (bounded-line.ts).
 *
 * The client is the SDK v2 one, by default in its `auto` negotiation: it probes with `server/discover` and
 * speaks 2026-07-28 to a server that answers it, else opens with the 2025 `initialize` (on stdio the probe runs
 * on a short-lived sibling process; a server that stays silent for `probeTimeoutMs` is taken for a 2025 one).
 * A server's `protocol` setting skips the probe ("2025") or requires the revision ("2026-07-28").
 * Results and tool lists are handed on as the server sent them (docs/decisions/mcp-protocol-eras.md).
 */
import {
  Client,
  SdkError,
  SdkErrorCode,
  type StandardSchemaV1,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolgraphError } from "../contract/errors.ts";
import { slicer } from "../view/background.ts";
import { boundLine } from "./bounded-line.ts";
import { GATEWAY_CONFIG_DEFAULTS, type UpstreamConfig } from "./config.ts";

export const UPSTREAM_DEFAULTS = {
  /** First reconnect delay (ms); doubles per failed attempt up to `maxBackoffMs`. */
  minBackoffMs: 500,
  maxBackoffMs: 30_000,
  /** Pages of tools/list read at most (a server that pages forever is cut off). */
  maxPages: 100,
  /** Lines of a stdio server's stderr kept to explain why it failed. */
  stderrLines: 20,
  /** Characters kept of one stderr line (the rest is cut with a marker). */
  stderrLineChars: 500,
  /** Wait after a tools/list_changed before re-listing (ms): the notifications of a burst become one re-list. */
  relistDebounceMs: 250,
  /** Two re-lists of one server start at least this far apart (ms), however fast the notifications come. */
  relistMinIntervalMs: 2_000,
  /** How long the 2026-07-28 probe (server/discover) waits on a stdio server before taking it for a 2025 one (ms). */
  probeTimeoutMs: 10_000,
} as const;

export type UpstreamState = "connecting" | "up" | "down" | "closed";

export interface UpstreamStatus {
  server: string;
  state: UpstreamState;
  transport: "stdio" | "remote";
  tools: number;
  /** Why it is down (the last error), if it is. */
  error?: string | undefined;
  /** Failed connection attempts since it was last up. */
  attempts: number;
  /** When the next reconnect attempt is due (ISO), while down. */
  retryAt?: string | undefined;
  /** The stdio server's process id while it runs. */
  pid?: number | undefined;
  /** True once the server has listed its tools (at least once since the gateway started). */
  listed: boolean;
  /** Re-lists run after tools/list_changed notifications (coalesced), and the notifications received. */
  relists: number;
  listChanged: number;
  /** True while a re-list is pending or running. */
  relisting: boolean;
  /** The protocol revision negotiated with the server (2026-07-28, or a 2025 one), while it is up. */
  protocolVersion?: string | undefined;
  /** 2026-07-28: true once a subscription delivers the server's tools/list_changed (a 2025 server sends them unasked). */
  subscribed?: boolean | undefined;
}

export interface UpstreamOptions {
  /** Called with the full tool list after each (re)connection and each list_changed. */
  onTools?: ((server: string, tools: Tool[]) => void) | undefined;
  /** Called when the server goes down (crash, failed start, closed connection). */
  onDown?: ((server: string, error: string) => void) | undefined;
  log?: ((line: string) => void) | undefined;
  minBackoffMs?: number | undefined;
  maxBackoffMs?: number | undefined;
  connectTimeoutMs?: number | undefined;
  /** See UPSTREAM_DEFAULTS.relistDebounceMs / relistMinIntervalMs. */
  relistDebounceMs?: number | undefined;
  relistMinIntervalMs?: number | undefined;
  /** See UPSTREAM_DEFAULTS.probeTimeoutMs. */
  probeTimeoutMs?: number | undefined;
}

export const CLIENT_INFO = { name: "toolgraph-gateway", version: "0.1.0" } as const;

/** A tools/list page as the gateway reads it: an object with a `tools` array; each tool is checked afterwards. */
const TOOLS_PAGE: StandardSchemaV1<unknown, { tools: unknown[]; nextCursor?: unknown }> = {
  "~standard": {
    version: 1,
    vendor: "toolgraph-gateway",
    validate: (value: unknown) =>
      typeof value === "object" && value !== null && Array.isArray((value as { tools?: unknown }).tools)
        ? { value: value as { tools: unknown[]; nextCursor?: unknown } }
        : { issues: [{ message: "tools/list: the result has no tools array" }] },
  },
};

/**
 * The tools of one tools/list page that have what the gateway needs (a string name, an object input schema),
 * checked in slices between event-loop turns; the others are counted and left out, never the whole page.
 */
export async function listedTools(page: readonly unknown[]): Promise<{ tools: Tool[]; dropped: number }> {
  const slice = slicer();
  const tools: Tool[] = [];
  let dropped = 0;
  for (const t of page) {
    const o = t as { name?: unknown; inputSchema?: unknown } | null;
    if (
      typeof o === "object" &&
      o !== null &&
      typeof o.name === "string" &&
      o.name !== "" &&
      typeof o.inputSchema === "object" &&
      o.inputSchema !== null &&
      !Array.isArray(o.inputSchema)
    )
      tools.push(o as Tool);
    else dropped++;
    await slice();
  }
  return { tools, dropped };
}

/** The client's negotiation mode for a server's `protocol` setting (config.ts). */
function negotiation(protocol: UpstreamConfig["protocol"]): "auto" | "legacy" | { pin: string } {
  if (protocol === "2025") return "legacy";
  if (protocol === "2026-07-28") return { pin: "2026-07-28" };
  return "auto";
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class Upstream {
  readonly name: string;
  readonly config: UpstreamConfig;
  private readonly options: UpstreamOptions;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private state: UpstreamState = "down";
  private lastError: string | undefined;
  private attempts = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryAt: number | undefined;
  private toolList: Tool[] = [];
  private stderrTail: string[] = [];
  private connecting: Promise<void> | undefined;
  /** Bumped on each connection so that a stale connection's close is ignored. */
  private generation = 0;
  private everListed = false;
  /** Coalescing of tools/list_changed: a notification is pending, a timer is set, a re-list runs. */
  private relistPending = false;
  private relistTimer: NodeJS.Timeout | undefined;
  private relisting = false;
  private lastRelistAt = Number.NEGATIVE_INFINITY;
  private relists = 0;
  private listChanged = 0;
  /** A 2026-07-28 connection's subscriptions/listen stream for tools/list_changed is acknowledged. */
  private subscribed = false;

  constructor(name: string, config: UpstreamConfig, options: UpstreamOptions = {}) {
    this.name = name;
    this.config = config;
    this.options = options;
  }

  get tools(): readonly Tool[] {
    return this.toolList;
  }

  get isUp(): boolean {
    return this.state === "up";
  }

  /** True once the server has listed its tools (since the gateway started). */
  get listed(): boolean {
    return this.everListed;
  }

  status(): UpstreamStatus {
    const pid = this.transport instanceof StdioClientTransport ? (this.transport.pid ?? undefined) : undefined;
    return {
      server: this.name,
      state: this.state,
      transport: this.config.kind,
      tools: this.toolList.length,
      ...(this.state !== "up" && this.lastError ? { error: this.lastError } : {}),
      attempts: this.attempts,
      ...(this.retryAt !== undefined && this.state === "down" ? { retryAt: new Date(this.retryAt).toISOString() } : {}),
      ...(pid !== undefined && this.state === "up" ? { pid } : {}),
      listed: this.everListed,
      relists: this.relists,
      listChanged: this.listChanged,
      relisting: this.relistPending || this.relisting,
      ...(this.state === "up" && this.client
        ? {
            protocolVersion: this.client.getNegotiatedProtocolVersion(),
            ...(this.client.getProtocolEra() === "modern" ? { subscribed: this.subscribed } : {}),
          }
        : {}),
    };
  }

  /** Connects (and lists the tools); resolves either way — a failure leaves it down with a retry scheduled. */
  start(): Promise<void> {
    if (this.state === "closed") return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private makeTransport(): Transport {
    const c = this.config;
    if (c.kind === "remote")
      return new StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers: c.headers } });
    const t = new StdioClientTransport({
      command: c.command,
      args: c.args,
      env: { ...getDefaultEnvironment(), ...c.env },
      ...(c.cwd ? { cwd: c.cwd } : {}),
      stderr: "pipe",
    });
    return t;
  }

  private async connect(): Promise<void> {
    const gen = ++this.generation;
    this.subscribed = false;
    this.state = "connecting";
    this.stderrTail = [];
    const timeout = this.options.connectTimeoutMs ?? GATEWAY_CONFIG_DEFAULTS.connectTimeoutMs;
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      versionNegotiation: {
        mode: negotiation(this.config.protocol),
        probe: { timeoutMs: Math.min(timeout, this.options.probeTimeoutMs ?? UPSTREAM_DEFAULTS.probeTimeoutMs) },
      },
    });
    const transport = this.makeTransport();
    if (transport instanceof StdioClientTransport) {
      const keep = UPSTREAM_DEFAULTS.stderrLineChars;
      // The line being read: its first `keep` characters and its full length (a line can be megabytes).
      let head = "";
      let length = 0;
      const push = () => {
        if (head.trim() !== "") {
          this.stderrTail.push(length > keep ? `${head}… [${length - keep} more characters cut]` : head);
          if (this.stderrTail.length > UPSTREAM_DEFAULTS.stderrLines) this.stderrTail.shift();
        }
        head = "";
        length = 0;
      };
      transport.stderr?.on("data", (chunk: Buffer) => {
        const parts = chunk.toString("utf8").split(/\r?\n/);
        parts.forEach((part, i) => {
          if (head.length < keep) head += part.slice(0, keep - head.length);
          length += part.length;
          if (i < parts.length - 1) push();
        });
      });
    }
    client.onclose = () => {
      // Only a connection that was up goes down here: a failed attempt is counted once, by connect().
      if (gen !== this.generation || this.state !== "up") return;
      const tail = this.stderrTail.at(-1);
      this.down(
        `connection closed${this.config.kind === "stdio" ? " (the server process exited)" : ""}${tail ? `; last stderr line: ${tail}` : ""}`,
      );
    };
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      if (gen !== this.generation) return;
      this.listChanged++;
      this.relistPending = true;
      this.scheduleRelist();
    });
    try {
      await client.connect(transport, { timeout });
      if (gen !== this.generation || (this.state as UpstreamState) === "closed") {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      this.transport = transport;
      await this.refreshTools(client, timeout);
      // Not awaited: the server is up once listed; a change before the subscription is acknowledged is missed.
      void this.listenForChanges(client, timeout);
      this.state = "up";
      this.attempts = 0;
      this.lastError = undefined;
      this.retryAt = undefined;
    } catch (err) {
      await client.close().catch(() => undefined);
      if (gen !== this.generation || (this.state as UpstreamState) === "closed") return;
      const tail = this.stderrTail.slice(-3).join(" | ");
      this.down(`failed to start: ${message(err)}${tail ? ` (stderr: ${tail})` : ""}`);
    }
  }

  /**
   * A 2026-07-28 server sends tools/list_changed only on a `subscriptions/listen` stream: open one when it
   * advertises the notification (the handler above receives them as on a 2025 connection). Best effort: a
   * refused or failed listen is logged, and the tools are re-listed on the next connection.
   */
  private async listenForChanges(client: Client, timeout: number): Promise<void> {
    if (client.getProtocolEra() !== "modern" || client.getServerCapabilities()?.tools?.listChanged !== true) return;
    try {
      await client.listen({ toolsListChanged: true }, { timeout });
      if (client === this.client) this.subscribed = true;
    } catch (err) {
      if (client === this.client)
        this.log(`toolgraph gateway: ${this.name}: cannot follow tool list changes: ${message(err)}`);
    }
  }

  /**
   * Schedules the re-list of a pending tools/list_changed: `relistDebounceMs` after the first notification of
   * a burst, and no sooner than `relistMinIntervalMs` after the previous re-list started. While one runs,
   * nothing more is scheduled: its end schedules the next if notifications came meanwhile.
   */
  private scheduleRelist(): void {
    if (!this.relistPending || this.relistTimer !== undefined || this.relisting || this.state === "closed") return;
    const debounce = this.options.relistDebounceMs ?? UPSTREAM_DEFAULTS.relistDebounceMs;
    const interval = this.options.relistMinIntervalMs ?? UPSTREAM_DEFAULTS.relistMinIntervalMs;
    const delay = Math.max(debounce, this.lastRelistAt + interval - Date.now());
    this.relistTimer = setTimeout(() => {
      this.relistTimer = undefined;
      void this.relist();
    }, delay);
    this.relistTimer.unref();
  }

  private async relist(): Promise<void> {
    const client = this.client;
    if (!this.relistPending || !client || this.state !== "up") return;
    this.relistPending = false;
    this.relisting = true;
    this.lastRelistAt = Date.now();
    this.relists++;
    try {
      await this.refreshTools(client, this.options.connectTimeoutMs ?? GATEWAY_CONFIG_DEFAULTS.connectTimeoutMs);
    } catch (err) {
      this.log(`toolgraph gateway: ${this.name}: re-listing tools failed: ${message(err)}`);
    } finally {
      this.relisting = false;
      this.scheduleRelist();
    }
  }

  /**
   * Lists every page of tools and reports the list. Each page is checked here, a tool at a time in slices
   * between event-loop turns (listedTools), not by the SDK's schema, which parses a whole page in one
   * synchronous pass (100–300 ms for 3,000 tools) and refuses the page for one bad tool.
   */
  private async refreshTools(client: Client, timeout?: number): Promise<void> {
    const tools: Tool[] = [];
    let dropped = 0;
    let cursor: string | undefined;
    for (let page = 0; page < UPSTREAM_DEFAULTS.maxPages; page++) {
      // One page at a time, past the client's response cache: the list as the server sends it now.
      const r = await client.request(
        { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
        TOOLS_PAGE,
        timeout === undefined ? undefined : { timeout },
      );
      const listed = await listedTools(r.tools);
      tools.push(...listed.tools);
      dropped += listed.dropped;
      cursor = typeof r.nextCursor === "string" && r.nextCursor !== "" ? r.nextCursor : undefined;
      if (!cursor) break;
    }
    if (dropped > 0)
      this.log(
        `toolgraph gateway: ${this.name}: ${dropped} listed tools left out (no name, or an input schema that is not an object)`,
      );
    if (client !== this.client) return; // a re-list of a connection that has since closed
    this.toolList = tools;
    this.everListed = true;
    this.options.onTools?.(this.name, tools);
  }

  /** Marks the server down after one failed attempt or one lost connection (counted once), and schedules a retry. */
  private down(error: string): void {
    if (this.state === "closed" || this.state === "down") return;
    this.state = "down";
    this.lastError = error;
    this.attempts++;
    // The next connection lists the tools anyway.
    this.relistPending = false;
    clearTimeout(this.relistTimer);
    this.relistTimer = undefined;
    const old = this.client;
    this.client = undefined;
    this.transport = undefined;
    if (old) void old.close().catch(() => undefined);
    this.log(`toolgraph gateway: ${this.name} is down: ${error}`);
    this.options.onDown?.(this.name, error);
    const min = this.options.minBackoffMs ?? UPSTREAM_DEFAULTS.minBackoffMs;
    const max = this.options.maxBackoffMs ?? UPSTREAM_DEFAULTS.maxBackoffMs;
    const delay = Math.min(max, min * 2 ** Math.min(20, this.attempts - 1));
    this.retryAt = Date.now() + delay;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.start();
    }, delay);
    this.retryTimer.unref();
  }

  /**
   * Forwards one tools/call and returns the server's result unchanged. Throws a ToolgraphError naming the
   * server when it is down (`upstream-unavailable`), the call times out (`upstream-timeout`) or the
   * connection fails during the call (`upstream-error`).
   */
  async call(tool: string, args: Record<string, unknown> | undefined, timeoutMs?: number): Promise<CallToolResult> {
    const client = this.client;
    if (!client || this.state !== "up") {
      const why = this.lastError ? `: ${this.lastError}` : "";
      const retry =
        this.retryAt !== undefined
          ? `; retrying in ${Math.max(0, Math.round((this.retryAt - Date.now()) / 1000))} s`
          : "";
      throw new ToolgraphError("upstream-unavailable", `server ${this.name} is ${this.state}${why}${retry}`, {
        server: this.name,
      });
    }
    const timeout = timeoutMs ?? this.config.timeoutMs ?? GATEWAY_CONFIG_DEFAULTS.callTimeoutMs;
    try {
      return (await client.request(
        { method: "tools/call", params: { name: tool, ...(args === undefined ? {} : { arguments: args }) } },
        { timeout },
      )) as CallToolResult;
    } catch (err) {
      if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
        throw new ToolgraphError("upstream-timeout", `server ${this.name}: ${tool} timed out after ${timeout} ms`, {
          server: this.name,
          tool,
        });
      }
      if (err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed) {
        throw new ToolgraphError(
          "upstream-error",
          `server ${this.name}: the connection closed during ${tool} (${err.message})`,
          { server: this.name, tool },
        );
      }
      // A JSON-RPC error from the server (unknown tool, invalid params): the server's own words.
      throw new ToolgraphError("upstream-error", `server ${this.name}: ${tool}: ${message(err)}`, {
        server: this.name,
        tool,
      });
    }
  }

  async close(): Promise<void> {
    this.state = "closed";
    this.generation++;
    clearTimeout(this.retryTimer);
    clearTimeout(this.relistTimer);
    this.relistTimer = undefined;
    const c = this.client;
    this.client = undefined;
    if (c) await c.close().catch(() => undefined);
  }

  private log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(boundLine(line));
  }
}
