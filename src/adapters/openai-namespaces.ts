/**
 * The namespaces of deferred functions (openai.ts): each function's wire namespace and name (`namespaceOf`,
 * default the id's part before the first dot), checked against the API's name rule, and the namespaces holding them;
 * and the arguments of a client tool_search call.
 */

import type { NamespaceFunction, NamespaceTool, OpenAIToolSearchOptions } from "./openai-types.ts";
import { OPENAI_NAMESPACE } from "./openai-types.ts";
import { invalid } from "./select.ts";

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function defaultNamespaceOf(toolId: string): { namespace: string; name: string } {
  const i = toolId.indexOf(".");
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  return i <= 0
    ? { namespace: OPENAI_NAMESPACE, name: safe(toolId) }
    : { namespace: safe(toolId.slice(0, i)), name: safe(toolId.slice(i + 1)) };
}

/** The functions of `options` in their namespaces, with the lookups openai.ts answers calls with. */
export function deferredNamespaces(
  options: Pick<OpenAIToolSearchOptions, "functions" | "namespaceOf" | "namespaceDescriptions">,
) {
  const namespaceOf = options.namespaceOf ?? defaultNamespaceOf;
  const byId = new Map<string, { fn: NamespaceFunction; namespace: string }>();
  const byWire = new Map<string, string>();
  const members = new Map<string, string[]>();
  for (const f of options.functions) {
    const { namespace, name } = namespaceOf(f.name);
    if (!NAME.test(namespace) || !NAME.test(name))
      throw invalid(
        `functions: ${JSON.stringify(f.name)} maps to namespace ${JSON.stringify(namespace)} and name ${JSON.stringify(name)}; each must match ${NAME}`,
      );
    const wire = `${namespace}.${name}`;
    const other = byWire.get(wire);
    if (other !== undefined)
      throw invalid(`functions: ${JSON.stringify(other)} and ${JSON.stringify(f.name)} both map to ${wire}`);
    byWire.set(wire, f.name);
    const fn: NamespaceFunction = {
      type: "function",
      name,
      ...(f.description != null ? { description: f.description } : {}),
      parameters: f.parameters ?? { type: "object", properties: {} },
      ...(f.strict != null ? { strict: f.strict } : {}),
      defer_loading: true,
    };
    byId.set(f.name, { fn, namespace });
    members.set(namespace, [...(members.get(namespace) ?? []), name]);
  }
  const describe = (ns: string) =>
    options.namespaceDescriptions?.[ns] ?? `Tools of ${ns}: ${(members.get(ns) ?? []).join(", ")}`.slice(0, 1024);
  /** The chosen functions, grouped in their namespaces (first-seen order of both). */
  function grouped(toolIds: readonly string[]): NamespaceTool[] {
    const out = new Map<string, NamespaceTool>();
    for (const id of toolIds) {
      const x = byId.get(id);
      if (!x) continue;
      const ns = out.get(x.namespace) ?? {
        type: "namespace",
        name: x.namespace,
        description: describe(x.namespace),
        tools: [],
      };
      ns.tools.push(x.fn);
      out.set(x.namespace, ns);
    }
    return [...out.values()];
  }
  return { byId, byWire, members, describe, grouped };
}

/** The search query of a client tool_search call: `{ query }` (this tool's schema) or `{ paths }` (the default one). */
export function parseArguments(raw: unknown): { query: string } | { paths: string[] } {
  let a = raw;
  if (typeof a === "string") {
    try {
      a = JSON.parse(a);
    } catch {
      throw invalid("arguments: not JSON");
    }
  }
  const o = (typeof a === "object" && a !== null ? a : {}) as { query?: unknown; paths?: unknown };
  if (typeof o.query === "string" && o.query.trim() !== "") return { query: o.query };
  if (Array.isArray(o.paths) && o.paths.every((p) => typeof p === "string")) return { paths: o.paths as string[] };
  throw invalid("arguments: needs a non-empty query (string) or paths (array of strings)");
}
