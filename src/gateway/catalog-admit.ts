/**
 * What of an upstream's tool list may enter the catalog: each tool as a catalog tool (tool-map.ts), denied by the
 * policy (algorithms/safety/tool-policy.ts) or checked against its pin (trust.ts: new, pinned, approved-change,
 * or quarantined). The per-tool work (display-safe texts, safety tags, the pin hash) runs in slices between
 * event-loop turns: thousands of tools are hundreds of milliseconds of it.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { toolHash } from "../../algorithms/safety/tool-pin.ts";
import type { CompiledPolicy } from "../../algorithms/safety/tool-policy.ts";
import { slicer } from "../view/background.ts";
import { boundList } from "./bounded-line.ts";
import { toCatalogTool } from "./tool-map.ts";
import type { PinStore } from "./trust.ts";

/**
 * The catalog tools of a server's list that the policy allows and the pins do not quarantine; the others replace
 * the server's entries in `blocked` (catalog id → why: call_tool refuses them with it) at the end, at once.
 */
export async function admitTools(
  server: string,
  tools: Tool[],
  o: {
    policy: CompiledPolicy;
    pins: PinStore;
    autoApprove: boolean;
    blocked: Map<string, string>;
    log: (line: string) => void;
  },
): Promise<Record<string, unknown>[]> {
  const slice = slicer();
  const blocked = new Map<string, string>();
  const allowed: { tool: Tool; catalog: Record<string, unknown>; hash: string }[] = [];
  for (const tool of tools) {
    const catalog = toCatalogTool(server, tool);
    const why = o.policy.denies({ id: catalog.id as string, server, safetyTags: catalog.safetyTags as string[] });
    if (why) blocked.set(catalog.id as string, why);
    else allowed.push({ tool, catalog, hash: toolHash(tool) });
    await slice();
  }
  const verdicts = await o.pins.checkInSlices(
    allowed.map(({ tool, catalog, hash }) => ({ id: catalog.id as string, tool, hash })),
    { autoApprove: o.autoApprove, now: new Date().toISOString() },
  );
  const admitted: Record<string, unknown>[] = [];
  const changed: string[] = [];
  for (const { catalog } of allowed) {
    const v = verdicts.get(catalog.id as string)!;
    if (v.state === "quarantined") blocked.set(catalog.id as string, v.reason);
    else admitted.push(catalog);
    if (v.state === "approved-change") changed.push(catalog.id as string);
  }
  for (const id of [...o.blocked.keys()]) if (id.startsWith(`${server}.`)) o.blocked.delete(id);
  for (const [id, why] of blocked) o.blocked.set(id, why);
  if (blocked.size > 0)
    o.log(`toolgraph gateway: ${server}: left out by the policy or quarantined: ${boundList([...blocked.keys()])}`);
  if (changed.length > 0)
    o.log(`toolgraph gateway: ${server}: changed tools approved automatically (autoApprove): ${boundList(changed)}`);
  return admitted;
}
