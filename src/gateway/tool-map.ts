/**
 * An upstream MCP tool as a catalog tool: id `<server>.<tool>`, the server, the name and description made
 * display-safe (algorithms/safety/display-text.ts: controls, bidi, invisible and tag characters removed: it is
 * untrusted text, shown to agents and embedded, never compiled or executed), input and output schemas, and
 * safety tags from the annotations: `destructiveHint: true` → `destructive`, `openWorldHint: true` →
 * `network` (only explicit hints count; `readOnlyHint` adds none), and `suspicious` when the description reads
 * like instructions to the model (algorithms/safety/instruction-like.ts). The result is a candidate: `syncServerTools` validates it like a catalog tool
 * (size caps, id rules) and reports the ones it rejects.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { sanitizeDisplayText } from "../../algorithms/safety/display-text.ts";
import { instructionLike } from "../../algorithms/safety/instruction-like.ts";

export function catalogToolId(server: string, tool: string): string {
  return `${server}.${tool}`;
}

/** Splits `<server>.<tool>` at the first dot (server names contain none). */
export function splitToolId(id: string): { server: string; tool: string } | undefined {
  const dot = id.indexOf(".");
  if (dot <= 0 || dot === id.length - 1) return undefined;
  return { server: id.slice(0, dot), tool: id.slice(dot + 1) };
}

export function safetyTagsOf(tool: Pick<Tool, "annotations" | "description">): string[] {
  const tags: string[] = [];
  if (tool.annotations?.destructiveHint === true) tags.push("destructive");
  if (tool.annotations?.openWorldHint === true) tags.push("network");
  if (instructionLike(tool.description ?? "").length > 0) tags.push("suspicious");
  return tags;
}

/** Display-safe text of an upstream tool (see the header). */
export function displayText(s: string): string {
  return sanitizeDisplayText(s).text;
}

export function toCatalogTool(server: string, tool: Tool): Record<string, unknown> {
  const title = tool.title ?? tool.annotations?.title;
  return {
    id: catalogToolId(server, tool.name),
    name: displayText(typeof title === "string" && title.trim() !== "" ? title.trim() : tool.name),
    description: displayText(tool.description ?? ""),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    tags: [server],
    safetyTags: safetyTagsOf(tool),
    server,
  };
}
