/**
 * Instruction-like text in a tool's description: the marks of a description written to steer the model that
 * reads it (a "tool poisoning" prompt injection) rather than to describe the tool. A tool with any of them is
 * `suspicious`: never accepted without caution, and the reason names the rule and the words that matched.
 *
 * Rules (on the display-safe text, lower-cased, white space collapsed; each a bounded regular expression, no
 * backtracking across the whole text):
 * - override: "ignore / disregard / forget (all / any / the) previous / prior / above / earlier
 *   instructions / rules / prompts";
 * - precedence: "always call / use / run / invoke this (tool / function) first / before", "call / use this
 *   (tool) before any other / every other", "before (calling / using) any other tool";
 * - secrecy: "do not / don't / never tell / mention / reveal / inform (this / it / to) the user";
 * - role: a role or chat-template marker: "<system>", "</system>", "<|im_start|>", "[inst]", "<<sys>>",
 *   "<important>", "system prompt:", a line starting "system:" or "assistant:";
 * - exfiltration: "send / post / upload / forward ... (the) conversation / chat history / api key / password /
 *   secret / token / ssh key / credentials" within 60 characters;
 * - credential-read: a path to secrets: "~/.ssh", "id_rsa", ".env" file, "~/.aws/credentials", "/etc/passwd".
 * The rules are a documented heuristic, not a classifier: measured false-positive rate on the shared catalogs
 * (Seal-Tools, ToolLinkOS, NESTFUL) and the pinned MCP servers' tools in docs/decisions/suspicious-descriptions.md.
 * Invariants: pure; the same text always gives the same verdict; a text without letters is never suspicious.
 */
import { sanitizeDisplayText } from "./display-text.ts";

export type SuspicionRule = "override" | "precedence" | "secrecy" | "role" | "exfiltration" | "credential-read";

export interface Suspicion {
  rule: SuspicionRule;
  /** The words that matched (at most 80 characters). */
  match: string;
}

const RULES: { rule: SuspicionRule; re: RegExp }[] = [
  {
    rule: "override",
    re: /\b(?:ignore|disregard|forget|override)\b (?:all |any |the |your |of )*(?:previous|prior|above|earlier|preceding|system|other) (?:instructions|rules|prompts?|directions|guidelines)\b/,
  },
  {
    rule: "precedence",
    re: /\balways (?:call|use|run|invoke|execute) (?:this|me)(?: tool| function)? (?:first|before)\b/,
  },
  {
    rule: "precedence",
    re: /\b(?:call|use|run|invoke) (?:this|me)(?: tool| function)? before (?:any|every|all) (?:other|others)\b/,
  },
  {
    rule: "precedence",
    re: /\bbefore (?:calling|using|invoking|running) (?:any|every|all) (?:other )?tools?\b.{0,40}\b(?:must|always|first)\b/,
  },
  {
    rule: "secrecy",
    re: /\b(?:do not|don't|never|must not) (?:tell|mention|reveal|inform|notify|show)(?: this| it| that)?(?: to)? (?:the )?user\b/,
  },
  {
    rule: "role",
    re: /<\/?(?:system|important|instructions?)>|<\|im_start\|>|\[\/?inst\]|<<\/?sys>>|\bsystem prompt:|(?:^|\n)\s*(?:system|assistant)\s*:/,
  },
  {
    rule: "exfiltration",
    re: /\b(?:send|post|upload|forward|transmit|exfiltrate)\b.{0,60}?\b(?:conversation|chat history|api[ _-]?keys?|passwords?|secrets?|access tokens?|ssh keys?|credentials|private keys?)\b/,
  },
  {
    rule: "credential-read",
    re: /~\/\.ssh\b|\bid_rsa\b|~\/\.aws\/credentials|\/etc\/passwd\b|\bread (?:the )?\.env\b/,
  },
];

/** The rules `description` trips, in rule order (empty: not suspicious). */
export function instructionLike(description: string): Suspicion[] {
  if (!/[a-z]/i.test(description)) return [];
  const text = sanitizeDisplayText(description)
    .text.toLowerCase()
    .replace(/[ \t]+/g, " ")
    .slice(0, 32_768);
  const out: Suspicion[] = [];
  for (const { rule, re } of RULES) {
    if (out.some((s) => s.rule === rule)) continue;
    const m = re.exec(text);
    if (m) out.push({ rule, match: m[0].trim().slice(0, 80) });
  }
  return out;
}
