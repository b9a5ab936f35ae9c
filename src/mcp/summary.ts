/**
 * Compact human-readable text for an MCP tool result: a headline, then one line per item (id, score, gate
 * decision, explanation). A gated-out answer says so and why (the threshold, the gap, the fallbacks); the
 * full JSON goes alongside as structuredContent.
 */

type Obj = { [key: string]: unknown };

const ITEM_KEYS = ["results", "suggestions", "capabilities", "alternatives", "items", "tools"] as const;
const MAX_EXPLANATION = 240;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function num(v: unknown): string | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v.toFixed(3) : undefined;
}

function clip(s: string, n = MAX_EXPLANATION): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function labelOf(item: Obj): string {
  for (const k of ["tool", "id", "capability", "name"]) {
    const v = item[k];
    if (typeof v === "string") return v;
  }
  return "?";
}

function gateOf(item: Obj): Obj | undefined {
  if (isObj(item.gate)) return item.gate;
  if (typeof item.decision === "string") return item;
  return undefined;
}

/** `accepted (high)`, `accepted-with-caution (medium)`, `abstained: 0.12 below threshold 0.70`. */
export function gateText(gate: Obj | undefined): string | undefined {
  if (!gate || typeof gate.decision !== "string") return undefined;
  if (gate.decision === "abstained") {
    const gap = num(gate.gap);
    const th = num(gate.threshold);
    return `abstained${gap ? `: ${gap} below threshold ${th ?? "?"}` : ""}`;
  }
  return `${gate.decision}${typeof gate.confidence === "string" ? ` (${gate.confidence})` : ""}`;
}

export function itemLine(item: Obj, rank: number): string {
  const parts = [`${rank}. ${labelOf(item)}`];
  if (typeof item.name === "string" && item.name !== labelOf(item)) parts[0] += ` (${item.name})`;
  const score = num(item.confidence) ?? num(item.score);
  if (score) parts.push(`${isObj(item) && typeof item.confidence === "number" ? "confidence" : "score"} ${score}`);
  const g = gateText(gateOf(item));
  if (g) parts.push(g);
  if (typeof item.why === "string") parts.push(item.why);
  const line = parts.join(" — ");
  return typeof item.explanation === "string" ? `${line}\n   ${clip(item.explanation)}` : line;
}

function itemsOf(result: Obj): { key: string; items: Obj[] } | undefined {
  for (const k of ITEM_KEYS) {
    const v = result[k];
    if (Array.isArray(v)) return { key: k, items: v.filter(isObj) };
  }
  return undefined;
}

function listText(v: unknown): string | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  return v.map((x) => (typeof x === "string" ? x : isObj(x) ? labelOf(x) : String(x))).join(", ");
}

/** Whether the answer was gated out: an abstained flag, or items all abstained, or an empty accepted list. */
export function isGatedOut(result: Obj): boolean {
  if (result.abstained === true) return true;
  if (Array.isArray(result.accepted) && result.accepted.length === 0) return true;
  const found = itemsOf(result);
  return !!found && found.items.length > 0 && found.items.every((i) => gateOf(i)?.decision === "abstained");
}

function gatedOutLine(result: Obj): string {
  const reason = typeof result.reason === "string" ? result.reason : "no candidate reached the confidence threshold";
  const fallbacks = listText(result.fallbacks);
  return `No confident answer (gated out): ${reason}.${fallbacks ? ` Fallback tools: ${fallbacks}.` : ""} The candidates below are shown for reference only.`;
}

function dagLines(result: Obj): string[] {
  const out: string[] = [];
  let layers = result.layers;
  if (!Array.isArray(layers) && Array.isArray(result.nodes)) {
    // Nodes carrying a layer number: group them (layer 0 runs first).
    const byLayer: string[][] = [];
    for (const n of result.nodes.filter(isObj)) {
      if (typeof n.layer !== "number" || n.layer < 0) continue;
      const layer = byLayer[n.layer] ?? [];
      layer.push(labelOf(n));
      byLayer[n.layer] = layer;
    }
    layers = byLayer.filter((l) => l !== undefined);
  }
  if (Array.isArray(layers)) {
    layers.forEach((layer, i) => {
      const names = listText(Array.isArray(layer) ? layer : isObj(layer) ? (layer.tools ?? layer.nodes) : undefined);
      if (names) out.push(`layer ${i + 1}: ${names}`);
    });
  }
  const order = listText(result.order);
  if (order && out.length === 0) out.push(`order: ${order}`);
  if (Array.isArray(result.edges)) {
    const edges = result.edges.filter(isObj).map((e) => `${String(e.from)} → ${String(e.to)}`);
    if (edges.length > 0) out.push(`edges: ${clip(edges.join(", "), 600)}`);
  }
  const critical = listText(isObj(result.criticalPath) ? result.criticalPath.tools : result.criticalPath);
  if (critical) out.push(`critical path: ${critical}`);
  return out;
}

/** The text content of a tool result. `what` names the answer ("tools for …"). */
export function summarize(what: string, result: Obj): string {
  const lines: string[] = [];
  const found = itemsOf(result);
  const dag = isObj(result.dag) ? dagLines(result.dag) : dagLines(result);
  if (found) {
    lines.push(`${found.items.length} ${found.key} ${what}`);
    const routing = result.routing;
    if (isObj(routing) && routing.mode === "two-hop" && typeof routing.explanation === "string")
      lines.push(clip(routing.explanation, 400));
    if (isGatedOut(result)) lines.push(gatedOutLine(result));
    else if (Array.isArray(result.accepted)) lines.push(`accepted: ${listText(result.accepted) ?? "none"}`);
    for (const [i, item] of found.items.entries()) lines.push(itemLine(item, i + 1));
  } else if (dag.length > 0) {
    lines.push(what);
    if (isGatedOut(result)) lines.push(gatedOutLine(result));
  } else if (isGatedOut(result) || typeof result.reason === "string") {
    lines.push(what);
    lines.push(isGatedOut(result) ? gatedOutLine(result) : `Reason: ${String(result.reason)}`);
  } else {
    // An answer without items (a lookup such as tool_info) reads as its explanation when it has one.
    lines.push(
      `${what}: ${typeof result.explanation === "string" ? clip(result.explanation, 1200) : clip(JSON.stringify(result), 1200)}`,
    );
  }
  lines.push(...dag);
  return lines.join("\n");
}
