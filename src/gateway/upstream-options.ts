/**
 * An upstream server's options, defaults and status as the gateway reports them (upstream.ts). Why each
 * default: docs/decisions/gateway-churn.md.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

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

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
