/**
 * An upstream MCP tool as a catalog tool: id `<server>.<tool>`, the server, the description (control
 * characters other than tab and newline removed: it is untrusted text, shown to agents and embedded, never
 * compiled or executed), input and output schemas, and safety tags from the annotations:
 * `destructiveHint: true` → `destructive`, `openWorldHint: true` → `network` (only explicit hints count;
 * `readOnlyHint` adds none). The result is a candidate: `syncServerTools` validates it like a catalog tool
 * (size caps, id rules) and reports the ones it rejects.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

export function stripControl(s: string): string {
  return s.replace(CONTROL, "");
}

export function catalogToolId(server: string, tool: string): string {
  return `${server}.${tool}`;
}

/** Splits `<server>.<tool>` at the first dot (server names contain none). */
export function splitToolId(id: string): { server: string; tool: string } | undefined {
  const dot = id.indexOf(".");
  if (dot <= 0 || dot === id.length - 1) return undefined;
  return { server: id.slice(0, dot), tool: id.slice(dot + 1) };
}

export function safetyTagsOf(tool: Pick<Tool, "annotations">): string[] {
  const tags: string[] = [];
  if (tool.annotations?.destructiveHint === true) tags.push("destructive");
  if (tool.annotations?.openWorldHint === true) tags.push("network");
  return tags;
}

export function toCatalogTool(server: string, tool: Tool): Record<string, unknown> {
  const title = tool.title ?? tool.annotations?.title;
  return {
    id: catalogToolId(server, tool.name),
    name: stripControl(typeof title === "string" && title.trim() !== "" ? title.trim() : tool.name),
    description: stripControl(tool.description ?? ""),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    tags: [server],
    safetyTags: safetyTagsOf(tool),
    server,
  };
}
