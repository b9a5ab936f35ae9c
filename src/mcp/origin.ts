/**
 * DNS-rebinding protection for the MCP endpoint over HTTP (the MCP Streamable HTTP transport requires
 * servers to validate Origin). A request passes when:
 * - it has no Origin header (not from a browser page), or its Origin is the server's own origin (the
 *   Origin's host:port equals the Host header), or is listed in `allowedOrigins`; and
 * - the server listens on a loopback address only, and the Host header names a loopback host (localhost,
 *   127.0.0.1, [::1]) or one in `allowedHosts` — a rebinding page reaches 127.0.0.1 under its own name, so
 *   its Host header gives it away. A server bound to a public interface accepts any Host.
 * Otherwise the request is refused with 403, and the reason names the header.
 */
import type { IncomingMessage } from "node:http";

export interface OriginPolicy {
  /** Origins (scheme://host[:port]) accepted besides the server's own. Default none. */
  allowedOrigins?: readonly string[] | undefined;
  /** Host header values (host[:port]) accepted on a loopback-bound server besides loopback names. Default none. */
  allowedHosts?: readonly string[] | undefined;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLoopbackAddress(address: string | undefined): boolean {
  return (
    address === "127.0.0.1" ||
    address === "::1" ||
    address === "::ffff:127.0.0.1" ||
    (address?.startsWith("127.") ?? false)
  );
}

function hostname(hostHeader: string): string {
  // "[::1]:8787" → "[::1]"; "localhost:8787" → "localhost"
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1).toLowerCase();
  const colon = hostHeader.lastIndexOf(":");
  return (colon >= 0 ? hostHeader.slice(0, colon) : hostHeader).toLowerCase();
}

/** Why the request must be refused, or undefined when it may proceed. */
export function originProblem(
  req: IncomingMessage,
  boundAddress: string | undefined,
  policy: OriginPolicy = {},
): string | undefined {
  const host = req.headers.host;
  if (isLoopbackAddress(boundAddress)) {
    if (!host) return "missing Host header";
    const ok =
      LOOPBACK_HOSTS.has(hostname(host)) ||
      (policy.allowedHosts ?? []).some((h) => h.toLowerCase() === host.toLowerCase());
    if (!ok)
      return `Host ${JSON.stringify(host)} is not a loopback name (DNS-rebinding protection; allow it with allowedHosts)`;
  }
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  if ((policy.allowedOrigins ?? []).includes(origin)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return `Origin ${JSON.stringify(origin)} is not a valid origin`;
  }
  if (host && parsed.host.toLowerCase() === host.toLowerCase()) return undefined;
  return `Origin ${JSON.stringify(origin)} is not allowed (DNS-rebinding protection; allow it with allowedOrigins)`;
}
