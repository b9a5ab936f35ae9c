/**
 * The Anthropic Messages wire items anthropic.ts reads and writes (plain JSON; the SDK's shapes), and its
 * options and handle.
 */
import type { Fallback, NameMapOptions, Selection } from "./select.ts";

/** The fields of a tool definition (Messages `Tool`) this adapter reads; the others are passed through. */
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: { type: "object" };
}

/** The search tool this adapter adds. */
export interface SearchTool {
  name: string;
  description: string;
  input_schema: { type: "object"; properties: Record<string, unknown>; required: string[] };
}

/** The fields of a response content block this adapter reads (`tool_use`). */
export interface ContentBlockLike {
  type: string;
  id?: string;
  name?: string;
  input?: unknown;
}

/** Messages `ToolResultBlockParam` holding `ToolReferenceBlockParam`s. */
export interface ToolReferenceResult {
  type: "tool_result";
  tool_use_id: string;
  content: ({ type: "tool_reference"; tool_name: string } | { type: "text"; text: string })[];
}

export interface AnthropicToolSearchOptions<T extends AnthropicTool> extends NameMapOptions {
  /** The tools to defer. */
  tools: readonly T[];
  /** Tools referenced per search (1–100). Default 5. */
  k?: number | undefined;
  /** When the gate abstains: "answer" (default), "all", or tool names (after the project's fallback tools). */
  fallback?: Fallback | undefined;
  /** The search tool's name. Default "tool_search". */
  name?: string | undefined;
  /** The search tool's description. */
  description?: string | undefined;
  /** The project to search. Default: the Toolgraph's. */
  project?: string | undefined;
  /** Who the answers are for (their history moves the gate). */
  user?: string | undefined;
  /** The answers' session (joins a recorded execution of that id). */
  session?: string | undefined;
}

export interface AnthropicToolSearch<T extends AnthropicTool> {
  /** The request's `tools`: the search tool, then the given tools with `defer_loading: true`. */
  readonly tools: (SearchTool | (T & { defer_loading: true }))[];
  /** One `tool_result` of `tool_reference` blocks for each `tool_use` of the search tool among the blocks. */
  answer(blocks: readonly ContentBlockLike[] | ContentBlockLike): Promise<ToolReferenceResult[]>;
  /** The toolgraph id of a tool name, or undefined for a tool not given here. */
  toolIdOf(name: string): string | undefined;
  /** Each search's selection, in order. */
  readonly selections: readonly Selection[];
}
