/**
 * An upstream server's tool list: every page of tools/list, each tool checked here a tool at a time in slices
 * between event-loop turns (listedTools), not by the SDK's schema, which parses a whole page in one synchronous
 * pass (100–300 ms for 3,000 tools) and refuses the page for one bad tool; and, on a 2026-07-28 connection, the
 * `subscriptions/listen` stream that delivers tools/list_changed.
 */
import type { Client, StandardSchemaV1 } from "@modelcontextprotocol/client";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { slicer } from "../view/background.ts";
import { UPSTREAM_DEFAULTS } from "./upstream-options.ts";

/** A tools/list page as the gateway reads it: an object with a `tools` array; each tool is checked afterwards. */
const TOOLS_PAGE: StandardSchemaV1<unknown, { tools: unknown[]; nextCursor?: unknown }> = {
  "~standard": {
    version: 1,
    vendor: "toolgraph-gateway",
    validate: (value: unknown) =>
      typeof value === "object" && value !== null && Array.isArray((value as { tools?: unknown }).tools)
        ? { value: value as { tools: unknown[]; nextCursor?: unknown } }
        : { issues: [{ message: "tools/list: the result has no tools array" }] },
  },
};

/**
 * The tools of one tools/list page that have what the gateway needs (a string name, an object input schema),
 * checked in slices between event-loop turns; the others are counted and left out, never the whole page.
 */
export async function listedTools(page: readonly unknown[]): Promise<{ tools: Tool[]; dropped: number }> {
  const slice = slicer();
  const tools: Tool[] = [];
  let dropped = 0;
  for (const t of page) {
    const o = t as { name?: unknown; inputSchema?: unknown } | null;
    if (
      typeof o === "object" &&
      o !== null &&
      typeof o.name === "string" &&
      o.name !== "" &&
      typeof o.inputSchema === "object" &&
      o.inputSchema !== null &&
      !Array.isArray(o.inputSchema)
    )
      tools.push(o as Tool);
    else dropped++;
    await slice();
  }
  return { tools, dropped };
}

/** Every page of the server's tools (at most `maxPages`), past the client's response cache. */
export async function listAllTools(client: Client, timeout?: number): Promise<{ tools: Tool[]; dropped: number }> {
  const tools: Tool[] = [];
  let dropped = 0;
  let cursor: string | undefined;
  for (let page = 0; page < UPSTREAM_DEFAULTS.maxPages; page++) {
    // One page at a time, past the client's response cache: the list as the server sends it now.
    const r = await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      TOOLS_PAGE,
      timeout === undefined ? undefined : { timeout },
    );
    const listed = await listedTools(r.tools);
    tools.push(...listed.tools);
    dropped += listed.dropped;
    cursor = typeof r.nextCursor === "string" && r.nextCursor !== "" ? r.nextCursor : undefined;
    if (!cursor) break;
  }
  return { tools, dropped };
}

/**
 * A 2026-07-28 server sends tools/list_changed only on a `subscriptions/listen` stream: opens one when it
 * advertises the notification (the client's handler receives them as on a 2025 connection). Resolves true once
 * acknowledged, false when there is nothing to listen to; throws when the listen is refused or fails.
 */
export async function listenForToolChanges(client: Client, timeout: number): Promise<boolean> {
  if (client.getProtocolEra() !== "modern" || client.getServerCapabilities()?.tools?.listChanged !== true) return false;
  await client.listen({ toolsListChanged: true }, { timeout });
  return true;
}
