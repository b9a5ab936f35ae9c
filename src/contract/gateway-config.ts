/**
 * The gateway's configuration: the `mcpServers` shape MCP clients already use.
 *
 *   { "mcpServers": {
 *       "fs":     { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/data"], "env": { "K": "v" } },
 *       "remote": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer …" } } } }
 *
 * An entry with `command` is a stdio server (spawned by the gateway), one with `url` a Streamable HTTP
 * server. Server names become the prefix of their tools' ids (`fs.read_file`), so they may not contain a
 * dot. Errors name the file and the field (`mcpServers.fs.args[1]: expected string`). A top-level `policy`,
 * named `policies` and `tokens` are gateway-policy.ts's; a server's `autoApprove` accepts changed tools
 * (algorithms/safety/tool-pin.ts). Stdio sessions get `policy` alone; a token's session gets its policy on top.
 */
import { z } from "zod";
import { describeIssue } from "../formats/schemas.ts";
import {
  type GatewayPolicy,
  parsePolicy,
  parseTokens,
  policyName,
  configProblem as problem,
  type TokenIdentity,
} from "./gateway-policy.ts";

export const GATEWAY_CONFIG_DEFAULTS = {
  /** How long one upstream tools/call may take before it fails as a timeout (ms). */
  callTimeoutMs: 60_000,
  /** How long connecting and listing tools may take (ms). */
  connectTimeoutMs: 30_000,
} as const;

const serverName = z
  .string()
  .regex(
    /^[A-Za-z0-9_-]{1,64}$/,
    "must be 1-64 letters, digits, '_' or '-' (no dots: the name prefixes tool ids as <server>.<tool>)",
  );

const common = {
  /** Set true to leave the server out without deleting its entry. Default false. */
  disabled: z.boolean().optional(),
  /** Accept a changed tool (description, schema, annotations) without quarantine. Default false. */
  autoApprove: z.boolean().optional(),
  /** Per-call timeout (ms). Default GATEWAY_CONFIG_DEFAULTS.callTimeoutMs. */
  timeoutMs: z.number().int().positive().max(3_600_000).optional(),
  /**
   * The MCP era to speak to it: "auto" (default) probes with server/discover and falls back to initialize;
   * "2025" opens with initialize at once (no probe: no sibling spawn on stdio); "2026-07-28" requires that
   * revision (docs/decisions/mcp-protocol-eras.md).
   */
  protocol: z.enum(["auto", "2025", "2026-07-28"]).optional(),
};

export const stdioServerSchema = z
  .object({
    type: z.literal("stdio").optional(),
    command: z.string().min(1, "must not be empty"),
    args: z.array(z.string()).max(1000).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    ...common,
  })
  .strict();

export const remoteServerSchema = z
  .object({
    type: z.enum(["http", "streamable-http", "streamableHttp"]).optional(),
    url: z
      .string()
      .url("must be an absolute URL")
      .refine((u) => !URL.canParse(u) || /^https?:$/.test(new URL(u).protocol), "must be an http or https URL"),
    headers: z.record(z.string(), z.string()).default({}),
    ...common,
  })
  .strict();

export type StdioServerConfig = z.output<typeof stdioServerSchema>;
export type RemoteServerConfig = z.output<typeof remoteServerSchema>;
export type UpstreamConfig = ({ kind: "stdio" } & StdioServerConfig) | ({ kind: "remote" } & RemoteServerConfig);

export interface GatewayConfig {
  servers: Map<string, UpstreamConfig>;
  /** Allow / deny rules by server, tool glob and safety tag. Default: everything allowed. */
  policy?: GatewayPolicy | undefined;
  /** Named policies a token can select (applied on top of `policy`). Default: none. */
  policies?: Map<string, GatewayPolicy> | undefined;
  /** HTTP bearer tokens → named policy (and user). Default: none (every session gets `policy`). */
  tokens?: TokenIdentity[] | undefined;
}

/** One `mcpServers` entry, or undefined for a disabled one. */
function parseServer(name: string, entry: unknown, file: string): UpstreamConfig | undefined {
  const n = serverName.safeParse(name);
  if (!n.success) throw problem(`mcpServers.${name}`, `server name ${n.error.issues[0]!.message}`, file);
  if (entry === null || typeof entry !== "object" || Array.isArray(entry))
    throw problem(`mcpServers.${name}`, "must be an object with command (stdio) or url (remote)", file);
  const e = entry as Record<string, unknown>;
  if ("command" in e && "url" in e)
    throw problem(`mcpServers.${name}`, "has both command and url: give command (stdio) or url (remote)", file);
  const isRemote = "url" in e;
  if (!isRemote && !("command" in e))
    throw problem(
      `mcpServers.${name}`,
      "needs command (a stdio server) or url (a remote Streamable HTTP server)",
      file,
    );
  const r = (isRemote ? remoteServerSchema : stdioServerSchema).safeParse(e);
  if (!r.success) {
    const [field, ...rest] = describeIssue(r.error.issues[0]!).split(": ");
    throw problem(
      `mcpServers.${name}${field === "(record)" ? "" : field!.startsWith("[") ? field : `.${field}`}`,
      rest.join(": "),
      file,
    );
  }
  if (r.data.disabled) return undefined;
  return isRemote
    ? { kind: "remote", ...(r.data as RemoteServerConfig) }
    : { kind: "stdio", ...(r.data as StdioServerConfig) };
}

/** Validates a parsed configuration object; `file` only names the source in errors. */
export function parseGatewayConfig(value: unknown, file = "gateway config"): GatewayConfig {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw problem("(file)", "must be a JSON object with an mcpServers object", file);
  const servers = (value as { mcpServers?: unknown }).mcpServers;
  if (servers === undefined)
    throw problem(
      "mcpServers",
      "is required (an object of server name → { command, args, env } or { url, headers })",
      file,
    );
  if (servers === null || typeof servers !== "object" || Array.isArray(servers))
    throw problem("mcpServers", "must be an object of server name → server", file);
  const out = new Map<string, UpstreamConfig>();
  for (const [name, entry] of Object.entries(servers)) {
    const server = parseServer(name, entry, file);
    if (server) out.set(name, server);
  }
  if (out.size === 0) throw problem("mcpServers", "names no (enabled) server", file);
  const known = (s: string) => out.has(s) || Object.hasOwn(servers, s);
  const v = value as { policy?: unknown; policies?: unknown; tokens?: unknown };
  const config: GatewayConfig = { servers: out };
  if (v.policy !== undefined) config.policy = parsePolicy(v.policy, "policy", known, file);
  if (v.policies !== undefined) {
    if (v.policies === null || typeof v.policies !== "object" || Array.isArray(v.policies))
      throw problem("policies", "must be an object of policy name → { allow?, deny? }", file);
    config.policies = new Map();
    for (const [name, raw] of Object.entries(v.policies)) {
      const n = policyName.safeParse(name);
      if (!n.success) throw problem(`policies.${name}`, `policy name ${n.error.issues[0]!.message}`, file);
      config.policies.set(name, parsePolicy(raw, `policies.${name}`, known, file));
    }
  }
  if (v.tokens !== undefined) config.tokens = parseTokens(v.tokens, config.policies, file);
  return config;
}
