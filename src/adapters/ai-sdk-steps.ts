/**
 * What ai-sdk.ts reads from the AI SDK's steps: the tool calls made so far (each failed when a tool error answers
 * it), and the request's text (the first user message).
 */
import type { PrepareStepInput, StepLike } from "./ai-sdk-types.ts";

export interface Call {
  name: string;
  success: boolean;
}

/** The tool calls of the steps, in order, each failed when a tool error answers it. */
export function callsOf(steps: readonly StepLike[]): Call[] {
  const calls: Call[] = [];
  for (const step of steps) {
    const failed = new Set(step.content.filter((p) => p.type === "tool-error").map((p) => p.toolCallId));
    for (const p of step.content)
      if (p.type === "tool-call" && p.toolName !== undefined)
        calls.push({ name: p.toolName, success: !failed.has(p.toolCallId) });
  }
  return calls;
}

/** The text of the first user message (a string, or its text parts joined). */
export function firstUserText(messages: PrepareStepInput["messages"]): string | undefined {
  const m = messages.find((x) => x.role === "user");
  if (!m) return undefined;
  if (typeof m.content === "string") return m.content.trim() || undefined;
  if (!Array.isArray(m.content)) return undefined;
  const text = m.content
    .filter(
      (p): p is { type: "text"; text: string } =>
        typeof p === "object" && p !== null && p.type === "text" && typeof p.text === "string",
    )
    .map((p) => p.text)
    .join("\n")
    .trim();
  return text || undefined;
}
