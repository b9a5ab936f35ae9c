/**
 * The one table of toolgraph's operations. Every door is generated from it: the library's methods
 * (src/library/toolgraph.ts), the HTTP routes and the OpenAPI document (src/server/routes.ts), the MCP
 * tools and their text summaries (src/mcp/mcp-server.ts), and the CLI commands (src/cli/commands/).
 * Adding an operation is one job file (src/jobs/, exporting a `Job`) and one entry here.
 *
 * The table is light on purpose: texts and spellings only, and a `load()` that imports the job (its request
 * and result schemas and its `run`) when a door first needs it, so `toolgraph --help` lists every command
 * without loading a schema library, a database or a model.
 */
import type { z } from "zod";
import type { Job } from "../jobs/job.ts";

export interface Operation<J extends Job<z.ZodType, unknown, z.ZodObject | undefined> = Job> {
  /** The library method (`tg.search(…)`) and the key of this table. */
  readonly name: string;
  /** One line: what the operation answers (HTTP summary, CLI --help). */
  readonly summary: string;
  /** HTTP/OpenAPI description. */
  readonly description: string;
  readonly http: { readonly path: string; readonly operationId: string };
  readonly mcp: {
    readonly name: string;
    readonly title: string;
    /** What an agent reads to decide when to call it. */
    readonly description: string;
    /** Headline of the text summary of an answer ("for \"open a PR\""). */
    headline(args: Record<string, unknown>): string;
  };
  readonly cli: {
    readonly command: string;
    /** The request field the command's first positional argument fills. */
    readonly positional?: string | undefined;
    readonly examples?: readonly string[] | undefined;
    /**
     * The command's flags (kebab-case; each fills the request field of the same name in camelCase, its value
     * read by the field's type: numbers, comma lists, JSON objects). Commands written by hand (search, next,
     * …) keep their own spelling; these flags serve the generated ones.
     */
    readonly options?: Readonly<Record<string, { readonly help: string; readonly boolean?: boolean }>> | undefined;
  };
  /** A valid request on the demo project (`toolgraph demo`): documentation, and the base of the doors' fuzz tests. */
  readonly example: Readonly<Record<string, unknown>>;
  /** Reads only (MCP readOnlyHint). */
  readonly readOnly: boolean;
  /** Calling it twice with the same request has no further effect (MCP idempotentHint). */
  readonly idempotent: boolean;
  /** The job: request and result schemas, `run`. */
  load(): Promise<J>;
}

const op = <J extends Job<z.ZodType, unknown, z.ZodObject | undefined>>(o: Operation<J>): Operation<J> => o;
const quoted = (v: unknown) => JSON.stringify(String(v ?? "")).slice(0, 120);
const names = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);

export const OPERATIONS = {
  search: op({
    name: "search",
    summary: "Rank the catalog's tools for an intent",
    description:
      "Hybrid semantic + graph search over the project's tools; every result carries its score breakdown, explanation and gate decision.",
    http: { path: "/v1/search", operationId: "searchTools" },
    mcp: {
      name: "search_tools",
      title: "Search tools by intent",
      description:
        "Call this before choosing a tool whenever you have more tools available than you can see or compare, or you are unsure which tool fits. " +
        "Give the task in plain words as `intent` (and the tools already used as `context`); returns the best-matching tools ranked by meaning and by how tools are used together, " +
        "each with a score, an explanation and a gate decision (accepted / accepted-with-caution / abstained). If every candidate is abstained, say so rather than guessing. " +
        '`routing: "two-hop"` searches namespace first (ranks the namespaces, then searches the tools of the best few) and says which; the default (auto) does so for catalogs of 50,000+ tools.',
      headline: (a) => `for ${quoted(a.intent)}`,
    },
    cli: { command: "search", positional: "intent" },
    example: { intent: "open a pull request", limit: 3 },
    readOnly: true,
    idempotent: true,
    load: () => import("../jobs/search.ts").then((m) => m.searchJob),
  }),
  suggestNext: op({
    name: "suggestNext",
    summary: "Suggest the next tool after the tools run so far",
    description: "Next-step scores (co-occurrence, community, recency, PageRank) given the workflow so far; gated.",
    http: { path: "/v1/next", operationId: "suggestNext" },
    mcp: {
      name: "suggest_next_tool",
      title: "Suggest the next tool",
      description:
        "Call this after a tool call succeeds and you need to decide what to do next in a multi-step workflow. Pass the tools run so far in order as `context` " +
        "(and failed ones in `exclude`); returns the tools that most often follow, scored from past executions (co-occurrence, community, recency, PageRank) and gated.",
      headline: (a) => `after ${names(a.context).length > 0 ? names(a.context).join(" → ") : "(start)"}`,
    },
    cli: { command: "next" },
    example: { context: ["git.commit"], limit: 3 },
    readOnly: true,
    idempotent: true,
    load: () => import("../jobs/next.ts").then((m) => m.suggestNextJob),
  }),
  matchCapabilities: op({
    name: "matchCapabilities",
    summary: "Match an intent to known capabilities",
    description: "Capabilities (named multi-tool workflows) ranked for an intent; gated.",
    http: { path: "/v1/capabilities/match", operationId: "matchCapabilities" },
    mcp: {
      name: "search_capabilities",
      title: "Match an intent to known capabilities",
      description:
        "Call this at the start of a task that probably needs several tools, to find a known, proven workflow (capability) for it instead of assembling one tool by tool. " +
        "Returns capabilities ranked for the intent with their tools, scores and gate decisions.",
      headline: (a) => `for ${quoted(a.intent)}`,
    },
    cli: { command: "capabilities", positional: "intent" },
    example: { intent: "triage a new issue" },
    readOnly: true,
    idempotent: true,
    load: () => import("../jobs/capabilities.ts").then((m) => m.matchCapabilitiesJob),
  }),
  discoverCapabilities: op({
    name: "discoverCapabilities",
    summary: "Discover capabilities related to the tools in use",
    description:
      "Capabilities whose tools cluster with the given context tools (spectral clusters, hypergraph PageRank).",
    http: { path: "/v1/capabilities/discover", operationId: "discoverCapabilities" },
    mcp: {
      name: "discover_capabilities",
      title: "Discover capabilities related to the tools in use",
      description:
        "Call this when you are already using some tools and want to know which larger workflows they belong to, or what related capabilities exist nearby. " +
        "Pass the tools in use as `context`.",
      headline: (a) => `related to ${names(a.context).join(", ")}`,
    },
    cli: { command: "discover" },
    example: { context: ["github.list_issues"] },
    readOnly: true,
    idempotent: true,
    load: () => import("../jobs/capabilities.ts").then((m) => m.discoverCapabilitiesJob),
  }),
  buildDag: op({
    name: "buildDag",
    summary: "Order a set of tools into an execution DAG",
    description:
      "Dependencies among the given tools (learned and declared edges), cycles broken, transitive reduction, parallel layers, critical path.",
    http: { path: "/v1/dag", operationId: "buildDag" },
    mcp: {
      name: "build_dag",
      title: "Order tools into an execution DAG",
      description:
        "Call this when you know which tools a task needs but not in which order (or which can run in parallel). Pass the tool ids as `tools`; " +
        "returns their dependencies learned from past executions and declared edges, as parallel layers with the critical path.",
      headline: (a) => `execution DAG of ${names(a.tools).length} tools`,
    },
    cli: { command: "dag" },
    example: { tools: ["git.commit", "git.push"] },
    readOnly: true,
    idempotent: true,
    load: () => import("../jobs/dag.ts").then((m) => m.buildDagJob),
  }),
  plan: op({
    name: "plan",
    summary: "Plan a workflow for an intent",
    description: "Searches tools for the intent, closes over their dependencies and returns an ordered DAG; gated.",
    http: { path: "/v1/plan", operationId: "planWorkflow" },
    mcp: {
      name: "plan_workflow",
      title: "Plan a workflow for an intent",
      description:
        "Call this when you have a goal but no plan: it searches the tools for the intent, adds the tools they depend on, and returns an ordered, gated workflow (DAG). " +
        "Use search_tools instead when you need a single tool.",
      headline: (a) => `plan for ${quoted(a.intent)}`,
    },
    cli: { command: "plan", positional: "intent" },
    example: { intent: "fix the typo in the README" },
    readOnly: true,
    idempotent: true,
    load: () => import("../jobs/plan.ts").then((m) => m.planJob),
  }),
  alternatives: op({
    name: "alternatives",
    summary: "Find alternatives to a tool",
    description: "Tools that can replace the given one (similar description, same community, same capability); gated.",
    http: { path: "/v1/alternatives", operationId: "findAlternatives" },
    mcp: {
      name: "find_alternatives",
      title: "Find alternatives to a tool",
      description:
        "Call this when a tool failed, is unavailable, or is too slow or costly: returns tools that can replace it (similar purpose, same community or capability), gated.",
      headline: (a) => `alternatives to ${String(a.tool)}`,
    },
    cli: { command: "alternatives", positional: "tool" },
    example: { tool: "fs.delete_file" },
    readOnly: true,
    idempotent: true,
    load: () => import("../jobs/alternatives.ts").then((m) => m.alternativesJob),
  }),
  feedback: op({
    name: "feedback",
    summary: "Report the outcome of a gated answer",
    description:
      "An accepted answer that failed raises the learned threshold of its context (project × operation × domain); an abstention the user followed successfully lowers it.",
    http: { path: "/v1/feedback", operationId: "feedback" },
    mcp: {
      name: "record_feedback",
      title: "Report how an answer worked out",
      description:
        "Call this after acting on an answer of search_tools, suggest_next_tool or plan_workflow: say whether it worked (`success`), and for an abstained answer whether you used it anyway (`followed`). " +
        "The confidence threshold for that kind of request learns from it (a failed accepted answer raises it, a successful followed abstention lowers it).",
      headline: (a) => `feedback on ${quoted(a.intent)}`,
    },
    cli: {
      command: "feedback",
      positional: "intent",
      options: {
        decision: { help: "the gate decision the answer carried: accepted, accepted-with-caution or abstained" },
        success: { help: "acting on the answer worked", boolean: true },
        followed: { help: "for an abstained answer: it was used anyway", boolean: true },
        user: { help: "who acted on the answer" },
        "recommendation-id": { help: "the recommendationId of the answer" },
        session: { help: "the session of the answer(s), when no recommendationId is given" },
      },
      examples: ['toolgraph feedback "open a pull request" --decision accepted --success'],
    },
    example: { intent: "open a pull request", decision: "accepted", success: true },
    readOnly: false,
    idempotent: false,
    load: () => import("../jobs/feedback.ts").then((m) => m.feedbackJob),
  }),
  toolInfo: op({
    name: "toolInfo",
    summary: "Everything known of one tool",
    description:
      "A tool's catalog entry (description, input and output schemas, tags, safety tags, server), its use (steps, success rate, latency), its community, PageRank and capabilities, and its strongest neighbours both ways.",
    http: { path: "/v1/tools/info", operationId: "toolInfo" },
    mcp: {
      name: "tool_info",
      title: "Describe one tool",
      description:
        "Call this before using a tool you know little about, or to check one a search returned: its description and input schema, its safety tags, how often it worked, " +
        "and which tools usually come before and after it.",
      headline: (a) => `tool ${String(a.tool)}`,
    },
    cli: {
      command: "tool-info",
      positional: "tool",
      options: { neighbours: { help: "neighbours to list each way (default 5)" } },
      examples: ["toolgraph tool-info fs.delete_file --project demo"],
    },
    example: { tool: "fs.delete_file" },
    readOnly: true,
    idempotent: true,
    load: () => import("../jobs/tool-info.ts").then((m) => m.toolInfoJob),
  }),
} as const;

export type OperationName = keyof typeof OPERATIONS;
/** Every operation, in the order the doors list them. */
export const OPERATION_LIST: readonly Operation[] = Object.values(OPERATIONS);

type JobOf<N extends OperationName> = Awaited<ReturnType<(typeof OPERATIONS)[N]["load"]>>;
type LibraryOptionsOf<J> =
  J extends Job<z.ZodType, unknown, infer O> ? (O extends z.ZodObject ? Partial<z.input<O>> : unknown) : unknown;
/** The request of an operation as the library takes it (HTTP and MCP take the same minus library options). */
export type RequestOf<N extends OperationName> = z.input<JobOf<N>["request"]> & LibraryOptionsOf<JobOf<N>>;
/** The answer of an operation. */
export type ResultOf<N extends OperationName> = Awaited<ReturnType<JobOf<N>["run"]>>;

/** The project scope every call may carry. */
export interface Scoped {
  /** The project (tenant) to read and write. Default: the instance's project. */
  project?: string | undefined;
}

/** One method per operation: what the library facade offers and every door calls. */
export type OperationMethods = {
  [N in OperationName]: (req: RequestOf<N> & Scoped) => Promise<ResultOf<N> & { recommendationId?: string }>;
};
