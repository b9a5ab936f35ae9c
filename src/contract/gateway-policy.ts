/**
 * The gateway config's trust and identity vocabulary: a `policy` ({ allow?, deny? }: rules of server, tool glob,
 * safety tag; semantics in algorithms/safety/tool-policy.ts), named `policies`, and `tokens` mapping an HTTP
 * bearer token (given as `token`, or read from the environment variable `tokenEnv`) to one of them (and
 * optionally to the user its executions are recorded for). Errors name the file and the field.
 */
import { z } from "zod";
import { describeIssue } from "../formats/schemas.ts";
import { ToolgraphError } from "./errors.ts";

export const policyName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 letters, digits, '_' or '-'");

export const policyRuleSchema = z
  .object({
    server: z.string().min(1).optional(),
    tool: z.string().min(1).max(256).optional(),
    tag: z.string().min(1).max(64).optional(),
  })
  .strict()
  .refine(
    (r) => r.server !== undefined || r.tool !== undefined || r.tag !== undefined,
    "give at least one of server, tool, tag",
  );

export const policySchema = z
  .object({
    allow: z.array(policyRuleSchema).max(1000).optional(),
    deny: z.array(policyRuleSchema).max(1000).optional(),
  })
  .strict();

export type PolicyRule = z.output<typeof policyRuleSchema>;
export type GatewayPolicy = z.output<typeof policySchema>;

export const tokenEntrySchema = z
  .object({
    token: z.string().min(16, "must be at least 16 characters").max(4096).optional(),
    tokenEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")
      .optional(),
    policy: policyName,
    user: z.string().min(1).max(256).optional(),
  })
  .strict()
  .refine((t) => (t.token === undefined) !== (t.tokenEnv === undefined), "give exactly one of token, tokenEnv");

/** An HTTP bearer token and the named policy (and user) of the sessions that present it. */
export interface TokenIdentity {
  token: string;
  policy: string;
  user?: string | undefined;
}

export function configProblem(field: string, message: string, file: string): ToolgraphError {
  return new ToolgraphError("invalid-input", `${file}: ${field}: ${message}`, { field, file });
}

/** The field of an issue under `at` (`at.field`, `at[0]`, or `at` itself for a record-level issue). */
export function subField(at: string, issue: string): string {
  const field = issue.split(": ")[0]!;
  return `${at}${field === "(record)" ? "" : field.startsWith("[") ? field : `.${field}`}`;
}

/** A policy object; every server a rule names must be one of `servers`. */
export function parsePolicy(raw: unknown, at: string, servers: (name: string) => boolean, file: string): GatewayPolicy {
  const pr = policySchema.safeParse(raw);
  if (!pr.success)
    throw configProblem(
      subField(at, describeIssue(pr.error.issues[0]!)),
      describeIssue(pr.error.issues[0]!).split(": ").slice(1).join(": "),
      file,
    );
  for (const r of [...(pr.data.allow ?? []), ...(pr.data.deny ?? [])]) {
    if (r.server !== undefined && !servers(r.server))
      throw configProblem(at, `a rule names server ${JSON.stringify(r.server)}, which mcpServers does not have`, file);
  }
  return pr.data;
}

/** The `tokens` list: each token resolved (from the environment for tokenEnv), naming a known policy, unique. */
export function parseTokens(
  raw: unknown,
  policies: Map<string, GatewayPolicy> | undefined,
  file: string,
): TokenIdentity[] {
  if (!Array.isArray(raw))
    throw configProblem("tokens", "must be an array of { token | tokenEnv, policy, user? }", file);
  const seen = new Set<string>();
  return raw.map((entry, i) => {
    const at = `tokens[${i}]`;
    const r = tokenEntrySchema.safeParse(entry);
    if (!r.success) {
      const issue = describeIssue(r.error.issues[0]!);
      throw configProblem(subField(at, issue), issue.split(": ").slice(1).join(": "), file);
    }
    const token = r.data.token ?? process.env[r.data.tokenEnv!];
    if (token === undefined || token.length < 16)
      throw configProblem(
        `${at}.tokenEnv`,
        `environment variable ${r.data.tokenEnv} is ${token === undefined ? "not set" : "shorter than 16 characters"}`,
        file,
      );
    if (!policies?.has(r.data.policy))
      throw configProblem(
        `${at}.policy`,
        `names policy ${JSON.stringify(r.data.policy)}, which policies does not have`,
        file,
      );
    if (seen.has(token)) throw configProblem(at, "repeats a token of an earlier entry", file);
    seen.add(token);
    return { token, policy: r.data.policy, ...(r.data.user !== undefined ? { user: r.data.user } : {}) };
  });
}
