/**
 * The MCP front door: an McpServer whose tools call the same RecommenderApi methods as the HTTP server,
 * with the shared request schemas of src/contract/requests.ts as input schemas. Each result is a compact text
 * summary (one line per item) plus the full JSON as structuredContent. A gated-out answer is a normal
 * result that says why; `isError` is reserved for real errors (invalid input, unknown tool, no catalog).
 *
 * Arguments are validated once, by the api, with the same schema the tool lists: `tools/call` is answered
 * here instead of by the SDK's handler (which would check them first and word the error its own way,
 * `steps.0.tool`), so an invalid field reads as on every other door (`steps[0].tool`, in `_meta`). Arguments
 * nested deeper than any body may be (LIMITS.documentDepth) are refused first, naming the path.
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { JsonResult, RecommenderApi } from "../contract/api.ts";
import { errorOutcome } from "../contract/error-mapping.ts";
import { ToolgraphError } from "../contract/errors.ts";
import {
  alternativesRequest,
  buildDagRequest,
  discoverCapabilitiesRequest,
  feedbackRequest,
  matchCapabilitiesRequest,
  planRequest,
  searchRequest,
  suggestNextRequest,
} from "../contract/requests.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { fieldOf } from "../formats/issues.ts";
import { jsonValueDepthProblem } from "../formats/json-text.ts";
import { VERSION } from "../version.ts";
import { executionArgs } from "./execution-input.ts";
import { summarize } from "./summary.ts";

/** Where an isError result carries the error object `{ code, message, field? }`. */
export const ERROR_META_KEY = "toolgraph/error";

export const MCP_SERVER_INFO = { name: "toolgraph", version: VERSION } as const;

export interface McpServerOptions {
  /** Project every tool reads and writes. Default: the api's own project. */
  project?: string | undefined;
  /** Where internal errors are logged (never stdout: stdio carries the protocol). Default stderr. */
  log?: ((line: string) => void) | undefined;
}

type Args = Record<string, unknown>;

export interface McpToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodObject;
  /** The result's schema (src/contract/results.ts): the tool's MCP outputSchema. */
  outputSchema: z.ZodObject;
  readOnly: boolean;
  /** Calling it twice with the same arguments has no further effect. Default: readOnly. */
  idempotent?: boolean;
  run(api: RecommenderApi, args: Args, project: { project?: string }): Promise<JsonResult>;
  /** Headline of the text summary. */
  what(args: Args): string;
}

const quoted = (v: unknown) => JSON.stringify(String(v ?? "")).slice(0, 120);

const recordArgs = executionArgs.extend({
  autoRegister: z.boolean().optional().describe("Register tools absent from the catalog instead of rejecting the record (default false)"),
});

export const MCP_TOOLS: McpToolSpec[] = [
  {
    name: "search_tools",
    title: "Search tools by intent",
    description:
      "Call this before choosing a tool whenever you have more tools available than you can see or compare, or you are unsure which tool fits. " +
      "Give the task in plain words as `intent` (and the tools already used as `context`); returns the best-matching tools ranked by meaning and by how tools are used together, " +
      "each with a score, an explanation and a gate decision (accepted / accepted-with-caution / abstained). If every candidate is abstained, say so rather than guessing. " +
      "`routing: \"two-hop\"` searches namespace first (ranks the namespaces, then searches the tools of the best few) and says which; the default (auto) does so for catalogs of 50,000+ tools.",
    inputSchema: searchRequest,
    outputSchema: RESULT_SCHEMAS.search,
    readOnly: true,
    run: (api, a, p) => api.search({ ...(a as z.infer<typeof searchRequest>), ...p }),
    what: (a) => `for ${quoted(a.intent)}`,
  },
  {
    name: "suggest_next_tool",
    title: "Suggest the next tool",
    description:
      "Call this after a tool call succeeds and you need to decide what to do next in a multi-step workflow. Pass the tools run so far in order as `context` " +
      "(and failed ones in `exclude`); returns the tools that most often follow, scored from past executions (co-occurrence, community, recency, PageRank) and gated.",
    inputSchema: suggestNextRequest,
    outputSchema: RESULT_SCHEMAS.suggestNext,
    readOnly: true,
    run: (api, a, p) => api.suggestNext({ ...(a as z.infer<typeof suggestNextRequest>), ...p }),
    what: (a) => `after ${Array.isArray(a.context) && a.context.length > 0 ? a.context.join(" → ") : "(start)"}`,
  },
  {
    name: "search_capabilities",
    title: "Match an intent to known capabilities",
    description:
      "Call this at the start of a task that probably needs several tools, to find a known, proven workflow (capability) for it instead of assembling one tool by tool. " +
      "Returns capabilities ranked for the intent with their tools, scores and gate decisions.",
    inputSchema: matchCapabilitiesRequest,
    outputSchema: RESULT_SCHEMAS.matchCapabilities,
    readOnly: true,
    run: (api, a, p) => api.matchCapabilities({ ...(a as z.infer<typeof matchCapabilitiesRequest>), ...p }),
    what: (a) => `for ${quoted(a.intent)}`,
  },
  {
    name: "discover_capabilities",
    title: "Discover capabilities related to the tools in use",
    description:
      "Call this when you are already using some tools and want to know which larger workflows they belong to, or what related capabilities exist nearby. " +
      "Pass the tools in use as `context`.",
    inputSchema: discoverCapabilitiesRequest,
    outputSchema: RESULT_SCHEMAS.discoverCapabilities,
    readOnly: true,
    run: (api, a, p) => api.discoverCapabilities({ ...(a as z.infer<typeof discoverCapabilitiesRequest>), ...p }),
    what: (a) => `related to ${Array.isArray(a.context) ? a.context.join(", ") : ""}`,
  },
  {
    name: "build_dag",
    title: "Order tools into an execution DAG",
    description:
      "Call this when you know which tools a task needs but not in which order (or which can run in parallel). Pass the tool ids as `tools`; " +
      "returns their dependencies learned from past executions and declared edges, as parallel layers with the critical path.",
    inputSchema: buildDagRequest,
    outputSchema: RESULT_SCHEMAS.buildDag,
    readOnly: true,
    run: (api, a, p) => api.buildDag({ ...(a as z.infer<typeof buildDagRequest>), ...p }),
    what: (a) => `execution DAG of ${Array.isArray(a.tools) ? a.tools.length : 0} tools`,
  },
  {
    name: "plan_workflow",
    title: "Plan a workflow for an intent",
    description:
      "Call this when you have a goal but no plan: it searches the tools for the intent, adds the tools they depend on, and returns an ordered, gated workflow (DAG). " +
      "Use search_tools instead when you need a single tool.",
    inputSchema: planRequest,
    outputSchema: RESULT_SCHEMAS.plan,
    readOnly: true,
    run: (api, a, p) => api.plan({ ...(a as z.infer<typeof planRequest>), ...p }),
    what: (a) => `plan for ${quoted(a.intent)}`,
  },
  {
    name: "find_alternatives",
    title: "Find alternatives to a tool",
    description:
      "Call this when a tool failed, is unavailable, or is too slow or costly: returns tools that can replace it (similar purpose, same community or capability), gated.",
    inputSchema: alternativesRequest,
    outputSchema: RESULT_SCHEMAS.alternatives,
    readOnly: true,
    run: (api, a, p) => api.alternatives({ ...(a as z.infer<typeof alternativesRequest>), ...p }),
    what: (a) => `alternatives to ${String(a.tool)}`,
  },
  {
    name: "record_execution",
    title: "Record a finished workflow",
    description:
      "Call this once a multi-step workflow has finished (successfully or not) to teach toolgraph what you ran: the tool calls in order with their success. " +
      "Future recommendations learn from it. Recording the same `id` again is a no-op.",
    inputSchema: recordArgs,
    outputSchema: RESULT_SCHEMAS.recordExecution,
    readOnly: false,
    run: (api, a, p) => {
      const { autoRegister, ...execution } = a;
      if (autoRegister !== undefined && typeof autoRegister !== "boolean") {
        throw new ToolgraphError("invalid-input", "autoRegister: must be true or false", { field: "autoRegister" });
      }
      return api.recordExecution(execution, { ...p, autoRegister: autoRegister === true });
    },
    what: (a) => `recorded execution ${String(a.id)}`,
    idempotent: true,
  },
  {
    name: "record_feedback",
    title: "Report how an answer worked out",
    description:
      "Call this after acting on an answer of search_tools, suggest_next_tool or plan_workflow: say whether it worked (`success`), and for an abstained answer whether you used it anyway (`followed`). " +
      "The confidence threshold for that kind of request learns from it (a failed accepted answer raises it, a successful followed abstention lowers it).",
    inputSchema: feedbackRequest,
    outputSchema: RESULT_SCHEMAS.feedback,
    readOnly: false,
    idempotent: false,
    run: (api, a, p) => api.feedback({ ...(a as z.infer<typeof feedbackRequest>), ...p }),
    what: (a) => `feedback on ${quoted(a.intent)}`,
  },
];

function stderrLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Runs one tool call: the result as text + structuredContent, or an isError result for real errors. */
export async function callTool(api: RecommenderApi, spec: McpToolSpec, args: Args, options: McpServerOptions = {}): Promise<CallToolResult> {
  const scope = options.project === undefined ? {} : { project: options.project };
  try {
    // Arguments nested past the bound of every body (LIMITS.documentDepth) are refused before anything walks them.
    const deep = jsonValueDepthProblem(args);
    if (deep) {
      const field = fieldOf(deep.path);
      throw new ToolgraphError("invalid-input", `${field ? `${field}: ` : ""}${deep.message}`, { field });
    }
    // Results are plain JSON objects (contract.ts); structuredContent wants an indexable record.
    const result = (await spec.run(api, args, scope)) as Record<string, unknown>;
    return { content: [{ type: "text", text: summarize(spec.what(args), result) }], structuredContent: result };
  } catch (err) {
    const m = errorOutcome(err, "mcp");
    if (m.internal) (options.log ?? stderrLog)(`toolgraph mcp: ${spec.name}: internal error: ${(err as Error)?.stack ?? String(err)}`);
    const e = { code: m.code, message: m.message, ...(m.field !== undefined ? { field: m.field } : {}), ...(m.details !== undefined ? { details: m.details } : {}) };
    // No structuredContent on an error: it would have to match the tool's outputSchema (clients check it).
    // The error object (code, message, field) travels in _meta.
    return {
      isError: true,
      content: [{ type: "text", text: `${e.code}: ${e.message}` }],
      _meta: { [ERROR_META_KEY]: e },
    };
  }
}

/** An isError result for a tool name no spec has (as the SDK's handler would answer, with toolgraph's error object). */
function unknownToolResult(name: string): CallToolResult {
  const e = { code: "unknown-tool", message: `no tool ${JSON.stringify(name).slice(0, 200)} (see tools/list)`, field: "name" };
  return { isError: true, content: [{ type: "text", text: `${e.code}: ${e.message}` }], _meta: { [ERROR_META_KEY]: e } };
}

/** An McpServer with every toolgraph tool registered, bound to one project. */
export function createMcpServer(api: RecommenderApi, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      "toolgraph recommends tools from a graph learned from past executions. Use search_tools before picking a tool, suggest_next_tool between steps, " +
      "plan_workflow or build_dag for multi-step tasks, and record_execution when a workflow ends. Answers marked abstained are not confident: say so.",
  });
  for (const spec of MCP_TOOLS) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: spec.inputSchema,
        outputSchema: spec.outputSchema,
        annotations: { title: spec.title, readOnlyHint: spec.readOnly, destructiveHint: false, idempotentHint: spec.idempotent ?? spec.readOnly, openWorldHint: false },
      },
      (args: Args) => callTool(api, spec, args, options),
    );
  }
  // tools/list stays the SDK's (JSON Schemas of the specs); tools/call passes the arguments unchecked to
  // the api, which validates them once (see the header).
  const byName = new Map(MCP_TOOLS.map((spec) => [spec.name, spec]));
  server.server.setRequestHandler(CallToolRequestSchema, (request) => {
    const spec = byName.get(request.params.name);
    const args = request.params.arguments ?? {};
    return spec ? callTool(api, spec, args, options) : unknownToolResult(request.params.name);
  });
  return server;
}
