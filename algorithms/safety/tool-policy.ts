/**
 * An allow / deny policy over tools, compiled once and asked per tool.
 *
 * Formula: a tool is denied when a `deny` rule matches it, or when `allow` rules exist and none matches it. A
 * rule matches when every field it gives matches: `server` (exact), `tool` (a glob over the catalog id
 * `<server>.<tool>`: algorithms/strings/glob.ts), `tag` (one of the tool's safety tags, case-insensitive).
 * Source: the gateway's trust controls (docs/decisions/gateway-trust.md).
 * Invariants: pure; an empty policy denies nothing; a deny rule wins over every allow rule; the reason names
 * the first matching deny rule.
 */
import { globRegExp } from "../strings/glob.ts";

export interface ToolPolicyRule {
  server?: string | undefined;
  tool?: string | undefined;
  tag?: string | undefined;
}

export interface ToolPolicy {
  allow?: ToolPolicyRule[] | undefined;
  deny?: ToolPolicyRule[] | undefined;
}

export interface ToolFacts {
  id: string;
  server: string;
  safetyTags: readonly string[];
}

export interface CompiledPolicy {
  /** The reason a tool is denied, or undefined when it is allowed. */
  denies(tool: ToolFacts): string | undefined;
  empty: boolean;
}

function ruleText(r: ToolPolicyRule): string {
  return Object.entries(r)
    .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
    .join(", ");
}

export function compilePolicy(policy: ToolPolicy | undefined): CompiledPolicy {
  const compile = (rules: ToolPolicyRule[] | undefined) =>
    (rules ?? []).map((r) => ({ r, glob: r.tool === undefined ? undefined : globRegExp(r.tool) }));
  const allow = compile(policy?.allow);
  const deny = compile(policy?.deny);
  const matches = (c: { r: ToolPolicyRule; glob: RegExp | undefined }, t: ToolFacts) =>
    (c.r.server === undefined || c.r.server === t.server) &&
    (c.glob === undefined || c.glob.test(t.id)) &&
    (c.r.tag === undefined || t.safetyTags.some((x) => x.toLowerCase() === c.r.tag!.toLowerCase()));
  return {
    empty: allow.length === 0 && deny.length === 0,
    denies(t) {
      const d = deny.find((c) => matches(c, t));
      if (d) return `denied by the gateway policy (deny rule: ${ruleText(d.r)})`;
      if (allow.length > 0 && !allow.some((c) => matches(c, t)))
        return "denied by the gateway policy (no allow rule matches it)";
      return undefined;
    },
  };
}
