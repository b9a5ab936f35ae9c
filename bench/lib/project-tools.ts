/**
 * The tools a project knows, read through the library's public graph view (`tg.graph()`): id → executions
 * recorded for the tool. The benches filter cases to known tools and split them into "covered by training"
 * (every tool executed at least once) with it, as a user of the package can.
 */
import type { Toolgraph } from "../../src/index.ts";

export async function projectTools(tg: Toolgraph, project: string): Promise<Map<string, number>> {
  const g = await tg.graph({ project });
  return new Map(g.nodes.map((n) => [n.id, n.executions]));
}
