/**
 * The OpenAI Responses wire items openai.ts reads and writes (plain JSON; the `openai` package's shapes), and
 * its options and handle.
 */
import type { Fallback, Selection } from "./select.ts";

/** Namespace of a tool id without a dot (OPENAI_DEFAULTS.namespace). */
export const OPENAI_NAMESPACE = "tools";

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
