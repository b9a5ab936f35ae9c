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

import { deferredNamespaces, parseArguments } from "./openai-namespaces.ts";
import type {
  ClientToolSearchTool,
  NamespaceTool,
  OpenAIToolSearch,
  OpenAIToolSearchOptions,
  ToolSearchCallLike,
  ToolSearchOutput,
} from "./openai-types.ts";
import { OPENAI_NAMESPACE } from "./openai-types.ts";
import { type Fallback, NameMap, positiveInt, type Selection, selectFrom, type ToolgraphLike } from "./select.ts";

export { defaultNamespaceOf } from "./openai-namespaces.ts";
export type {
  ClientToolSearchTool,
  NamespaceFunction,
  NamespaceTool,
  OpenAIFunction,
  OpenAIToolSearch,
  OpenAIToolSearchOptions,
  ToolSearchCallLike,
  ToolSearchOutput,
} from "./openai-types.ts";

export const OPENAI_DEFAULTS = {
  /** Tools loaded per search. */
  k: 5,
  /** When the gate abstains: load the answer's tools all the same. */
  fallback: "answer" as Fallback,
  /** The search tool's description. */
  description: "Search the deferred tools by what you want to do; the best matches are loaded for you to call.",
  /** Namespace of a tool id without a dot. */
  namespace: OPENAI_NAMESPACE,
} as const;

export function openaiToolSearch(tg: ToolgraphLike, options: OpenAIToolSearchOptions): OpenAIToolSearch {
  const k = positiveInt(options.k, "k", OPENAI_DEFAULTS.k);
  const fallback = options.fallback ?? OPENAI_DEFAULTS.fallback;
  // Names here are toolgraph ids: the wire names come from namespaceOf.
  const ids = new NameMap(
    options.functions.map((f) => f.name),
    { toolId: (n) => n },
  );
  const { byId, byWire, members, describe, grouped } = deferredNamespaces(options);
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
