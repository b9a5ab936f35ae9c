/**
 * toolgraph/openai — a client-executed `tool_search` for the OpenAI Responses API, answered by toolgraph's search
 * (`openai` 6 types; the wire items are plain JSON, so any client that sends them works).
 *
 *   const ts = openaiToolSearch(tg, { functions });          // functions named by toolgraph tool id
 *   let r = await client.responses.create({ model, input, tools: ts.tools });
 *   const loaded = await ts.answer(r.output);                 // one tool_search_output per client tool_search_call
 *   r = await client.responses.create({ model, previous_response_id: r.id, input: loaded, tools: ts.tools });
 *
 * - `tools`: a `tool_search` tool with `execution: "client"` and a `{ query }` schema, then one namespace per
 *   toolgraph server (the id's part before the first dot, or `namespaceOf`) holding its functions with
 *   `defer_loading: true`: the model sees the namespaces' names and descriptions only.
 * - `answer`: for each `tool_search_call` with `execution: "client"`, `search` on the query; the top `k` tools
 *   are loaded as a `tool_search_output` (`execution: "client"`, `status: "completed"`, the same `call_id`) whose
 *   `tools` are the chosen functions grouped in their namespaces. A call with the default `{ paths }` arguments
 *   loads those namespaces or `namespace.function` paths as named. When the gate abstains the answer's tools are
 *   loaded all the same (the model asked, and judges them), unless `fallback` says otherwise.
 * - `toolIdOf(functionCall)`: the toolgraph id of a `function_call` item (its namespace and name).
 * Each answer's selection (rank, score, explanation per tool) is kept in `selections`.
 * Defaults and why: docs/decisions/adapters.md.
 */
import {
  type Fallback,
  invalid,
  NameMap,
  positiveInt,
  type Selection,
  selectFrom,
  type ToolgraphLike,
} from "./select.ts";

export const OPENAI_DEFAULTS = {
  /** Tools loaded per search. */
  k: 5,
  /** When the gate abstains: load the answer's tools all the same. */
  fallback: "answer" as Fallback,
  /** The search tool's description. */
  description: "Search the deferred tools by what you want to do; the best matches are loaded for you to call.",
  /** Namespace of a tool id without a dot. */
  namespace: "tools",
} as const;

/** A function definition (Responses `FunctionTool`), named by its toolgraph tool id. */
export interface OpenAIFunction {
  type?: "function";
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

/** A function as it sits in a namespace (Responses `NamespaceTool.Function`). */
export interface NamespaceFunction {
  type: "function";
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
  defer_loading?: boolean;
}

/** Responses `NamespaceTool`. */
export interface NamespaceTool {
  type: "namespace";
  name: string;
  description: string;
  tools: NamespaceFunction[];
}

/** Responses `ToolSearchTool`, client-executed. */
export interface ClientToolSearchTool {
  type: "tool_search";
  execution: "client";
  description: string;
  parameters: Record<string, unknown>;
}

/** The fields of a `tool_search_call` output item this adapter reads. */
export interface ToolSearchCallLike {
  type: string;
  call_id?: string | null;
  execution?: string;
  arguments?: unknown;
}

/** Responses `ResponseToolSearchOutputItemParam`, client-executed. */
export interface ToolSearchOutput {
  type: "tool_search_output";
  call_id: string | null;
  execution: "client";
  status: "completed";
  tools: NamespaceTool[];
}

export interface OpenAIToolSearchOptions {
  /** The functions to defer, each named by its toolgraph tool id (`github.create_pull_request`). */
  functions: readonly OpenAIFunction[];
  /** Tools loaded per search (1–100). Default 5. */
  k?: number | undefined;
  /** When the gate abstains: "answer" (default), "all", or tool ids (after the project's fallback tools). */
  fallback?: Fallback | undefined;
  /** A tool id's namespace and function name. Default: split at the first dot (no dot: namespace "tools"). */
  namespaceOf?: ((toolId: string) => { namespace: string; name: string }) | undefined;
  /** Each namespace's description. Default: "Tools of <namespace>: <its function names>". */
  namespaceDescriptions?: Readonly<Record<string, string>> | undefined;
  /** The search tool's description. Default OPENAI_DEFAULTS.description. */
  description?: string | undefined;
  /** The project to search. Default: the Toolgraph's. */
  project?: string | undefined;
  /** Who the answers are for (their history moves the gate). */
  user?: string | undefined;
  /** The answers' session (joins a recorded execution of that id). */
  session?: string | undefined;
}

export interface OpenAIToolSearch {
  /** The request's `tools`: the client tool_search, then the namespaces of deferred functions. */
  readonly tools: (ClientToolSearchTool | NamespaceTool)[];
  /** One `tool_search_output` for each client `tool_search_call` among the items (others are skipped). */
  answer(items: readonly ToolSearchCallLike[] | ToolSearchCallLike): Promise<ToolSearchOutput[]>;
  /** The toolgraph id of a `function_call` item, or undefined for a function not deferred here. */
  toolIdOf(call: { name: string; namespace?: string | undefined }): string | undefined;
  /** Each searched call's selection, in order. */
  readonly selections: readonly Selection[];
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function defaultNamespaceOf(toolId: string): { namespace: string; name: string } {
  const i = toolId.indexOf(".");
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  return i <= 0
    ? { namespace: OPENAI_DEFAULTS.namespace, name: safe(toolId) }
    : { namespace: safe(toolId.slice(0, i)), name: safe(toolId.slice(i + 1)) };
}

/** The search query of a client tool_search call: `{ query }` (this tool's schema) or `{ paths }` (the default one). */
function parseArguments(raw: unknown): { query: string } | { paths: string[] } {
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

export function openaiToolSearch(tg: ToolgraphLike, options: OpenAIToolSearchOptions): OpenAIToolSearch {
  const k = positiveInt(options.k, "k", OPENAI_DEFAULTS.k);
  const fallback = options.fallback ?? OPENAI_DEFAULTS.fallback;
  const namespaceOf = options.namespaceOf ?? defaultNamespaceOf;
  // Names here are toolgraph ids: the wire names come from namespaceOf.
  const ids = new NameMap(
    options.functions.map((f) => f.name),
    { toolId: (n) => n },
  );
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
  const searchTool: ClientToolSearchTool = {
    type: "tool_search",
    execution: "client",
    description: options.description ?? OPENAI_DEFAULTS.description,
    parameters: {
      type: "object",
      properties: { query: { type: "string", description: "What you want to do, in plain words" } },
      required: ["query"],
      additionalProperties: false,
    },
  };
  const tools = [
    searchTool,
    ...[...members.keys()].map(
      (ns): NamespaceTool => ({
        type: "namespace",
        name: ns,
        description: describe(ns),
        tools: [...byId.values()].filter((x) => x.namespace === ns).map((x) => x.fn),
      }),
    ),
  ];
  const scope = {
    ...(options.project !== undefined ? { project: options.project } : {}),
    ...(options.user !== undefined ? { user: options.user } : {}),
    ...(options.session !== undefined ? { session: options.session } : {}),
  };
  const selections: Selection[] = [];

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

  async function one(call: ToolSearchCallLike): Promise<ToolSearchOutput> {
    const args = parseArguments(call.arguments);
    let chosen: string[];
    if ("paths" in args) {
      chosen = args.paths.flatMap((p) =>
        members.has(p)
          ? [...byId].filter(([, x]) => x.namespace === p).map(([id]) => id)
          : byWire.has(p)
            ? [byWire.get(p)!]
            : [],
      );
    } else {
      const s = selectFrom(
        await tg.search({ intent: args.query, limit: Math.min(100, k * 4), ...scope }),
        "search",
        ids,
        k,
        fallback,
      );
      selections.push(s);
      chosen = s.names;
    }
    return {
      type: "tool_search_output",
      call_id: call.call_id ?? null,
      execution: "client",
      status: "completed",
      tools: grouped([...new Set(chosen)]),
    };
  }

  return {
    tools,
    selections,
    async answer(items) {
      const list = Array.isArray(items) ? items : [items as ToolSearchCallLike];
      const calls = list.filter((it) => it.type === "tool_search_call" && it.execution === "client");
      const out: ToolSearchOutput[] = [];
      for (const c of calls) out.push(await one(c));
      return out;
    },
    toolIdOf(call) {
      return call.namespace !== undefined ? byWire.get(`${call.namespace}.${call.name}`) : undefined;
    },
  };
}
