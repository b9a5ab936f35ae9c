/**
 * toolgraph/anthropic — a custom client-side tool search for the Anthropic Messages API, answered by toolgraph's
 * search with `tool_reference` blocks (`@anthropic-ai/sdk` 1 types; the blocks are plain JSON).
 *
 *   const ts = anthropicToolSearch(tg, { tools });            // your tools; names map to toolgraph ids
 *   let m = await client.messages.create({ model, max_tokens, messages, tools: ts.tools });
 *   const results = await ts.answer(m.content);               // one tool_result per tool_search call
 *   messages.push({ role: "assistant", content: m.content }, { role: "user", content: results });
 *
 * - `tools`: a search tool (`tool_search`, input `{ query }`), then every given tool with `defer_loading: true`:
 *   the model sees only the search tool until a `tool_reference` loads a deferred tool's definition.
 * - `answer`: for each `tool_use` block of the search tool, `search` on the query; the top `k` tools become a
 *   `tool_result` (same `tool_use_id`) whose content is one `{ type: "tool_reference", tool_name }` per tool (a
 *   text block saying so when none matched). When the gate abstains the answer's tools are referenced all the
 *   same (the model asked, and judges them), unless `fallback` says otherwise.
 * - Names: a tool name's toolgraph id is the name, with its first `__` read as a dot (`toolId` to change it).
 * Each answer's selection (rank, score, explanation per tool) is kept in `selections`.
 * Defaults and why: docs/decisions/adapters.md.
 */

import type {
  AnthropicTool,
  AnthropicToolSearch,
  AnthropicToolSearchOptions,
  ContentBlockLike,
  ToolReferenceResult,
} from "./anthropic-types.ts";
import {
  type Fallback,
  invalid,
  NameMap,
  positiveInt,
  type Selection,
  selectFrom,
  type ToolgraphLike,
} from "./select.ts";

export type {
  AnthropicTool,
  AnthropicToolSearch,
  AnthropicToolSearchOptions,
  ContentBlockLike,
  SearchTool,
  ToolReferenceResult,
} from "./anthropic-types.ts";

export const ANTHROPIC_DEFAULTS = {
  /** Tools referenced per search. */
  k: 5,
  /** When the gate abstains: reference the answer's tools all the same. */
  fallback: "answer" as Fallback,
  /** The search tool's name. */
  name: "tool_search",
  /** The search tool's description. */
  description: "Search the deferred tools by what you want to do; the best matches are loaded for you to call.",
} as const;

export function anthropicToolSearch<T extends AnthropicTool>(
  tg: ToolgraphLike,
  options: AnthropicToolSearchOptions<T>,
): AnthropicToolSearch<T> {
  const k = positiveInt(options.k, "k", ANTHROPIC_DEFAULTS.k);
  const fallback = options.fallback ?? ANTHROPIC_DEFAULTS.fallback;
  const searchName = options.name ?? ANTHROPIC_DEFAULTS.name;
  const names = new NameMap(
    options.tools.map((t) => t.name),
    options,
  );
  if (names.idOf(searchName) !== undefined)
    throw invalid(`name: ${JSON.stringify(searchName)} is also one of the tools`);
  const tools: AnthropicToolSearch<T>["tools"] = [
    {
      name: searchName,
      description: options.description ?? ANTHROPIC_DEFAULTS.description,
      input_schema: {
        type: "object",
        properties: { query: { type: "string", description: "What you want to do, in plain words" } },
        required: ["query"],
      },
    },
    ...options.tools.map((t) => ({ ...t, defer_loading: true as const })),
  ];
  const scope = {
    ...(options.project !== undefined ? { project: options.project } : {}),
    ...(options.user !== undefined ? { user: options.user } : {}),
    ...(options.session !== undefined ? { session: options.session } : {}),
  };
  const selections: Selection[] = [];

  async function one(block: ContentBlockLike): Promise<ToolReferenceResult> {
    const query = (block.input as { query?: unknown } | undefined)?.query;
    if (typeof query !== "string" || query.trim() === "")
      throw invalid(`input.query: the ${searchName} call ${JSON.stringify(block.id)} needs a non-empty string`);
    const s = selectFrom(
      await tg.search({ intent: query, limit: Math.min(100, k * 4), ...scope }),
      "search",
      names,
      k,
      fallback,
    );
    selections.push(s);
    const content: ToolReferenceResult["content"] = s.names.map((n) => ({ type: "tool_reference", tool_name: n }));
    return {
      type: "tool_result",
      tool_use_id: block.id ?? "",
      content: content.length > 0 ? content : [{ type: "text", text: "No deferred tool matches this query." }],
    };
  }

  return {
    tools,
    selections,
    async answer(blocks) {
      const list = Array.isArray(blocks) ? blocks : [blocks as ContentBlockLike];
      const out: ToolReferenceResult[] = [];
      for (const b of list) if (b.type === "tool_use" && b.name === searchName) out.push(await one(b));
      return out;
    },
    toolIdOf: (name) => names.idOf(name),
  };
}
