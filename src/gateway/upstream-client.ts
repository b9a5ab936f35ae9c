/**
 * One connection attempt to an upstream server: the SDK v2 `Client` and its transport (a spawned stdio process
 * or Streamable HTTP), and for stdio the tail of the server's stderr (bounded lines, to explain a failure).
 *
 * The client is by default in its `auto` negotiation: it probes with `server/discover` and speaks 2026-07-28 to a
 * server that answers it, else opens with the 2025 `initialize` (on stdio the probe runs on a short-lived
 * sibling process; a server that stays silent for `probeTimeoutMs` is taken for a 2025 one). A server's
 * `protocol` setting skips the probe ("2025") or requires the revision ("2026-07-28")
 * (docs/decisions/mcp-protocol-eras.md).
 */
import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { UpstreamConfig } from "../contract/gateway-config.ts";
import { UPSTREAM_DEFAULTS, type UpstreamOptions } from "./upstream-options.ts";

export const CLIENT_INFO = { name: "toolgraph-gateway", version: "0.1.0" } as const;

export interface Connection {
  client: Client;
  transport: Transport;
  /** The last lines of a stdio server's stderr (empty for a remote one). */
  stderr: string[];
}

/** The client's negotiation mode for a server's `protocol` setting. */
function negotiation(protocol: UpstreamConfig["protocol"]): "auto" | "legacy" | { pin: string } {
  if (protocol === "2025") return "legacy";
  if (protocol === "2026-07-28") return { pin: "2026-07-28" };
  return "auto";
}

function makeTransport(c: UpstreamConfig): Transport {
  if (c.kind === "remote")
    return new StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers: c.headers } });
  return new StdioClientTransport({
    command: c.command,
    args: c.args,
    env: { ...getDefaultEnvironment(), ...c.env },
    ...(c.cwd ? { cwd: c.cwd } : {}),
    stderr: "pipe",
  });
}

/** Keeps the last `stderrLines` non-blank lines of the server's stderr, each cut at `stderrLineChars`. */
function keepStderrTail(transport: StdioClientTransport, tail: string[]): void {
  const keep = UPSTREAM_DEFAULTS.stderrLineChars;
  // The line being read: its first `keep` characters and its full length (a line can be megabytes).
  let head = "";
  let length = 0;
  const push = () => {
    if (head.trim() !== "") {
      tail.push(length > keep ? `${head}… [${length - keep} more characters cut]` : head);
      if (tail.length > UPSTREAM_DEFAULTS.stderrLines) tail.shift();
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

/** A new client and transport for one attempt (not yet connected). */
export function newConnection(config: UpstreamConfig, options: UpstreamOptions, timeout: number): Connection {
  const client = new Client(CLIENT_INFO, {
    capabilities: {},
    versionNegotiation: {
      mode: negotiation(config.protocol),
      probe: { timeoutMs: Math.min(timeout, options.probeTimeoutMs ?? UPSTREAM_DEFAULTS.probeTimeoutMs) },
    },
  });
  const transport = makeTransport(config);
  const stderr: string[] = [];
  if (transport instanceof StdioClientTransport) keepStderrTail(transport, stderr);
  return { client, transport, stderr };
}

/** The stdio server's process id, if it has one. */
export function pidOf(transport: Transport | undefined): number | undefined {
  return transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
}
