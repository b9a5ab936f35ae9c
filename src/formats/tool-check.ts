/**
 * A hand-written check of the catalog's tool schema (schemas.ts `toolSchema`) for the gateway's catalog sync: a
 * tool it accepts is returned exactly as the zod schema parses it; anything it is not sure of (an invalid tool,
 * and a few valid but unusual shapes: an explicit `undefined`, a `__proto__` key) is left to
 * zod, which then names the problem. So `toolInput(x)` accepts and rejects exactly what `toolSchema` does
 * (property-tested with fast-check in test/formats/tool-check.test.ts) while a usual upstream tool never reaches
 * zod: its first parse compiles the schema (tens of ms on the event loop under load) and each parse costs
 * ~0.07 ms (3,000 tools, 230 ms; docs/decisions/gateway-first-answer.md).
 */
import { LIMITS } from "./limits.ts";
import { idProblem, jsonProblem, type ToolInput, textProblem, toolSchema } from "./schemas.ts";

type Check = { success: true; data: ToolInput } | ReturnType<typeof toolSchema.safeParse>;

/** `toolSchema.safeParse(x)`, without zod for a usual valid tool. */
export function toolInput(x: unknown): Check {
  const fast = usualTool(x);
  return fast ? { success: true, data: fast } : toolSchema.safeParse(x);
}

/** The schema's keys (a plain object, not a module-level Set: test/view/no-module-caches.test.ts). */
const KEYS: Readonly<Record<string, true>> = {
  id: true,
  name: true,
  description: true,
  inputSchema: true,
  outputSchema: true,
  tags: true,
  examples: true,
  antiPatterns: true,
  costEstimate: true,
  avgLatencyMs: true,
  safetyTags: true,
  server: true,
};

function plain(x: unknown): x is Record<string, unknown> {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

/** A string zod's `.max(max)` accepts for sure (code units ≤ max, so code points too) and free text accepts. */
function text(x: unknown, max: number): x is string {
  return typeof x === "string" && x.length <= max && textProblem(x) === undefined;
}

function textList(x: unknown): string[] | undefined {
  if (!Array.isArray(x) || Object.getPrototypeOf(x) !== Array.prototype || x.length > LIMITS.textListItems) return;
  for (let i = 0; i < x.length; i++) if (!text(x[i], LIMITS.textItemLength)) return;
  return [...x];
}

function jsonObject(x: unknown): Record<string, unknown> | undefined {
  if (!plain(x) || Object.hasOwn(x, "__proto__")) return;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (v === undefined) return;
    out[k] = v;
  }
  return jsonProblem(out) === undefined ? out : undefined;
}

function amount(x: unknown, max: number): x is number {
  return typeof x === "number" && Number.isFinite(x) && x >= 0 && x <= max;
}

/** The parsed tool when `x` is a usual valid one (see the header), else undefined. */
export function usualTool(x: unknown): ToolInput | undefined {
  if (!plain(x)) return;
  for (const k of Object.keys(x)) if (!Object.hasOwn(KEYS, k) || x[k] === undefined) return;
  const id = x.id;
  if (typeof id !== "string" || id.length === 0 || id.length > LIMITS.idLength) return;
  if (idProblem(id) !== undefined || id.trim() !== id) return;
  const out: Record<string, unknown> = { id };
  if (Object.hasOwn(x, "name")) {
    if (!text(x.name, LIMITS.nameLength)) return;
    out.name = x.name;
  }
  if (Object.hasOwn(x, "description")) {
    if (!text(x.description, LIMITS.descriptionLength)) return;
    out.description = x.description;
  } else out.description = "";
  for (const k of ["inputSchema", "outputSchema"] as const) {
    if (!Object.hasOwn(x, k)) continue;
    const o = jsonObject(x[k]);
    if (!o) return;
    out[k] = o;
  }
  for (const k of ["tags", "examples", "antiPatterns"] as const) {
    const list = Object.hasOwn(x, k) ? textList(x[k]) : [];
    if (!list) return;
    out[k] = list;
  }
  if (Object.hasOwn(x, "costEstimate")) {
    if (!amount(x.costEstimate, LIMITS.maxCost)) return;
    out.costEstimate = x.costEstimate;
  }
  if (Object.hasOwn(x, "avgLatencyMs")) {
    if (!amount(x.avgLatencyMs, LIMITS.maxDurationMs)) return;
    out.avgLatencyMs = x.avgLatencyMs;
  }
  const safety = Object.hasOwn(x, "safetyTags") ? textList(x.safetyTags) : [];
  if (!safety) return;
  out.safetyTags = safety;
  if (Object.hasOwn(x, "server")) {
    if (!text(x.server, LIMITS.nameLength)) return;
    out.server = x.server;
  }
  return out as ToolInput;
}
