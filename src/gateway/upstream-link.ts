/**
 * The connection to one upstream server and its health: connects (upstream-client.ts), and when the server
 * fails to start, crashes or drops the connection, marks it down and reconnects with exponential backoff
 * (algorithms/timing/backoff.ts); each failed attempt counts once towards the backoff. A connection is
 * numbered, so that a stale connection's close is ignored. What a connection is for (its tools) is upstream.ts's.
 */
import type { Client, Transport } from "@modelcontextprotocol/client";
import { backoffDelay } from "../../algorithms/timing/backoff.ts";
import { GATEWAY_CONFIG_DEFAULTS, type UpstreamConfig } from "../contract/gateway-config.ts";
import { boundLine } from "./bounded-line.ts";
import { newConnection } from "./upstream-client.ts";
import { message, UPSTREAM_DEFAULTS, type UpstreamOptions, type UpstreamState } from "./upstream-options.ts";

export abstract class UpstreamLink {
  protected client: Client | undefined;
  protected transport: Transport | undefined;
  protected state: UpstreamState = "down";
  protected lastError: string | undefined;
  protected attempts = 0;
  protected retryAt: number | undefined;
  /** A 2026-07-28 connection's subscriptions/listen stream for tools/list_changed is acknowledged. */
  protected subscribed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private stderrTail: string[] = [];
  private connecting: Promise<void> | undefined;
  private generation = 0;

  constructor(
    readonly name: string,
    readonly config: UpstreamConfig,
    protected readonly options: UpstreamOptions = {},
  ) {}

  /** The connection is up: list its tools (a throw fails the attempt). */
  protected abstract connected(client: Client, timeout: number): Promise<void>;
  /** The current connection sent tools/list_changed. */
  protected abstract toolsChanged(): void;
  /** The connection went down. */
  protected abstract wentDown(): void;

  get isUp(): boolean {
    return this.state === "up";
  }

  /** Connects (and lists the tools); resolves either way — a failure leaves it down with a retry scheduled. */
  start(): Promise<void> {
    if (this.state === "closed") return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const gen = ++this.generation;
    this.subscribed = false;
    this.state = "connecting";
    const timeout = this.options.connectTimeoutMs ?? GATEWAY_CONFIG_DEFAULTS.connectTimeoutMs;
    const { client, transport, stderr } = newConnection(this.config, this.options, timeout);
    this.stderrTail = stderr;
    client.onclose = () => {
      // Only a connection that was up goes down here: a failed attempt is counted once, by connect().
      if (gen !== this.generation || this.state !== "up") return;
      const tail = this.stderrTail.at(-1);
      const exited = this.config.kind === "stdio" ? " (the server process exited)" : "";
      this.down(`connection closed${exited}${tail ? `; last stderr line: ${tail}` : ""}`);
    };
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      if (gen === this.generation) this.toolsChanged();
    });
    try {
      await client.connect(transport, { timeout });
      if (gen !== this.generation || (this.state as UpstreamState) === "closed") {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      this.transport = transport;
      await this.connected(client, timeout);
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

  /** Marks the server down after one failed attempt or one lost connection (counted once), and schedules a retry. */
  private down(error: string): void {
    if (this.state === "closed" || this.state === "down") return;
    this.state = "down";
    this.lastError = error;
    this.attempts++;
    this.wentDown();
    const old = this.client;
    this.client = undefined;
    this.transport = undefined;
    if (old) void old.close().catch(() => undefined);
    this.log(`toolgraph gateway: ${this.name} is down: ${error}`);
    this.options.onDown?.(this.name, error);
    const min = this.options.minBackoffMs ?? UPSTREAM_DEFAULTS.minBackoffMs;
    const max = this.options.maxBackoffMs ?? UPSTREAM_DEFAULTS.maxBackoffMs;
    const delay = backoffDelay(this.attempts, min, max);
    this.retryAt = Date.now() + delay;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.start();
    }, delay);
    this.retryTimer.unref();
  }

  async close(): Promise<void> {
    this.state = "closed";
    this.generation++;
    clearTimeout(this.retryTimer);
    const c = this.client;
    this.client = undefined;
    if (c) await c.close().catch(() => undefined);
  }

  protected log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(boundLine(line));
  }
}
