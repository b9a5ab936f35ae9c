/**
 * Request schemas shared by every front door (library, CLI, HTTP, MCP): one zod schema per operation.
 * The HTTP server and the MCP tools validate with these; the library validates with them too, so a bad
 * field gives the same error ("field: problem") through every door.
 */
import { z } from "zod";
import { safeId, safeIdList, safeText } from "../formats/schemas.ts";

// Ids and texts refuse what the database cannot hold (NUL) or an id must not carry (controls, U+2028 …).
const toolId = safeId(256);
const text = safeText(4000).min(1, "must not be empty");
const limit = z.number().int().min(1).max(100);

/**
 * The running workflow (for its task health, docs/decisions/gate-thresholds.md): its steps so far with their outcome,
 * how often it was replanned, and an id under which the detected contexts form a timeline. Detection reads it: AtRisk
 * (replans > 2) and OffTrack (success < 0.5) each add 0.05 to the threshold; > 3 failures in a row at the end mark the
 * user "frustrated".
 */
export const workflowField = z
  .object({
    id: safeId(256).optional().describe("An id for this workflow (its detected contexts form a timeline)"),
    steps: z
      .array(
        z
          .object({
            tool: toolId.describe("Tool id of the step"),
            success: z.boolean().default(true).describe("Whether the step succeeded (default true)"),
          })
          .strict(),
      )
      .max(1000)
      .describe("The workflow's steps so far, in order, with their outcome"),
    replans: z.number().int().min(0).max(1_000_000).optional().describe("How often the workflow was replanned"),
  })
  .strict();
export type WorkflowInput = z.input<typeof workflowField>;

export const gateFields = {
  /** The running workflow (steps with outcome, replans, id); the gate detects its health. */
  workflow: workflowField
    .optional()
    .describe("The running workflow (steps with outcomes, replans): a struggling workflow needs more confidence"),
  /** The user the answer is for (their history moves the threshold). */
  user: safeId(256)
    .optional()
    .describe("Who the answer is for: their past successes and failures move the confidence threshold"),
  /** Production environment and critical task (the critical_production rule). */
  environment: z
    .object({
      production: z.boolean().optional().describe("The task runs against production"),
      critical: z.boolean().optional().describe("The task is critical (with production: a stricter threshold)"),
    })
    .strict()
    .optional()
    .describe("Where the task runs: production and critical tasks need more confidence"),
  urgency: z
    .enum(["low", "medium", "high"])
    .optional()
    .describe("How urgent the task is (high urgency lowers the threshold slightly)"),
  /** Include the reasoning report of the top answer. */
  explain: z.boolean().optional().describe("Include the gate's reasoning report for the top answer (default false)"),
  /**
   * The session (workflow) this answer belongs to: a recorded execution whose id equals it, and feedback
   * naming it, are joined to the answer in the recommendation log. Not part of the answer's cache key.
   */
  session: safeId(256)
    .optional()
    .describe("The session (workflow) this answer belongs to, to join it with the execution and feedback later"),
};

const caps = {
  /** Drop tools carrying any of these safety tags (e.g. destructive, network). */
  excludeSafetyTags: z
    .array(safeText(2000).min(1))
    .max(50)
    .optional()
    .describe("Never return tools carrying any of these safety tags (e.g. destructive, network)"),
  maxTools: z.number().int().min(1).max(1000).optional().describe("Return at most this many tools"),
  maxLatencyMs: z.number().positive().optional().describe("Drop tools whose average latency (ms) exceeds this"),
  maxCost: z.number().nonnegative().optional().describe("Drop tools whose cost estimate exceeds this"),
};

export const searchRequest = z
  .object({
    intent: text.describe("The task in plain words (what you want to do, not a tool name)"),
    /** Tools already in the workflow (context for the graph term). */
    context: safeIdList({ max: 100 })
      .optional()
      .describe("Tool ids already used in this workflow, in order (tools used with them rank higher)"),
    limit: limit.optional().describe("How many tools to return (1-100, default 10)"),
    /** Tools that must not be returned (failed, unavailable). */
    exclude: safeIdList({ max: 1000 }).optional().describe("Tool ids never to return (failed or unavailable ones)"),
    /** Manual override: force these tools first, still explained. */
    only: safeIdList({ max: 100 })
      .optional()
      .describe("Tool ids to rank first regardless of score (still explained and gated)"),
    /** active (default: an explicit request) or passive (suggesting during a workflow: α by heat diffusion from the context). */
    mode: z
      .enum(["active", "passive"])
      .optional()
      .describe(
        "active (default): an explicit request; passive: suggesting during a workflow, weighting the context more",
      ),
    /**
     * flat (search every tool), two-hop (rank the namespaces — catalog `server` or id prefix — then search
     * the tools of the best few) or auto (default: flat below 20,000 tools or 100 namespaces; above, both routes
     * are timed on the catalog's first 8 queries and the faster at equal top 10 is kept; see
     * src/view/namespace-index.ts).
     */
    routing: z
      .enum(["flat", "two-hop", "auto"])
      .optional()
      .describe(
        "flat: search every tool; two-hop: rank the servers/namespaces first, then their tools; auto (default): two-hop for very large catalogs",
      ),
    ...caps,
    ...gateFields,
  })
  .strict();

export const suggestNextRequest = z
  .object({
    /** Tools that completed successfully so far, in order. */
    context: safeIdList({ max: 200 }).describe(
      "Tool ids that completed successfully so far, in order (empty at the start)",
    ),
    /** Tools that failed or are unavailable: never suggested. */
    exclude: safeIdList({ max: 1000 }).optional().describe("Tool ids that failed or are unavailable: never suggested"),
    /** Optional intent of the workflow (intent memory, detection). */
    intent: safeText(4000)
      .optional()
      .describe("The workflow's goal in plain words (similar past workflows then count more)"),
    limit: limit.optional().describe("How many suggestions to return (1-100, default 5)"),
    /** auto (default: learned when the project has enough traces, else seed), seed, learned or markov. */
    mode: z
      .enum(["auto", "seed", "learned", "markov"])
      .optional()
      .describe(
        "Scoring: auto (default: learned weights once there are enough traces, else seed), seed, learned or markov (plain transition counts)",
      ),
    ...gateFields,
  })
  .strict();

export const matchCapabilitiesRequest = z
  .object({
    intent: text.describe("The task in plain words"),
    limit: limit.optional().describe("How many capabilities to return (1-100, default 5)"),
    ...gateFields,
  })
  .strict();

export const discoverCapabilitiesRequest = z
  .object({
    context: safeIdList({ min: 1, max: 200 }).describe("Tool ids in use in this workflow (at least one)"),
    limit: limit.optional().describe("How many capabilities to return (1-100, default 5)"),
    ...gateFields,
  })
  .strict();

/**
 * discoverCapabilities' library-only option: the bench's ablation of the spectral cluster boost (default 0.5,
 * algorithms/prediction/capability-discovery.ts). Neither HTTP nor MCP can reach it: their request schemas are strict.
 */
export const discoverCapabilitiesOptions = z
  .object({
    ablation: z
      .object({ clusterBoost: z.number().min(0).max(10).optional().describe("Spectral cluster boost (default 0.5)") })
      .strict()
      .optional(),
  })
  .strict();

/** Schema-matched dependencies (outputSchema → required inputs) for tools with no learned relation; off by default. */
const schemaEdges = z
  .boolean()
  .optional()
  .describe(
    "Also infer dependencies by matching one tool's output fields to another's required inputs, for tools with no learned relation (default false)",
  );

export const buildDagRequest = z
  .object({
    tools: safeIdList({ min: 1, max: 200 }).describe("The tool ids to order (each once)"),
    intent: text
      .optional()
      .describe(
        "The request in plain words (optional): where the history never saw two of the tools in succession, the order the intent mentions them orients the dependency between them",
      ),
    schemaEdges,
    ...caps,
    ...gateFields,
  })
  .strict();

export const planRequest = z
  .object({
    intent: text.describe("The goal in plain words"),
    limit: limit.optional().describe("How many main tools to plan around (1-100, default 5)"),
    exclude: safeIdList({ max: 1000 }).optional().describe("Tool ids never to use (failed or unavailable ones)"),
    schemaEdges,
    ...caps,
    ...gateFields,
  })
  .strict();

export const alternativesRequest = z
  .object({
    tool: toolId.describe("The tool id to replace (it failed, is unavailable, too slow or too costly)"),
    context: safeIdList({ max: 200 }).optional().describe("Tool ids already used in this workflow (never proposed)"),
    limit: limit.optional().describe("How many alternatives to return (1-100, default 5)"),
    ...caps,
    ...gateFields,
  })
  .strict();

/**
 * The library-only options of buildDag and plan (not part of the HTTP/MCP requests): which graph the DAG
 * is read from (src/jobs/dag.ts DagGraph; default auto).
 */
export const dagOptions = z
  .object({
    graph: z
      .enum(["history", "dependency", "blended", "auto"])
      .optional()
      .describe("The graph the DAG is read from (default auto)"),
  })
  .strict();

/**
 * buildDag's library-only options: the graph, and the ablation switches of the DAG's evidence (src/jobs/dag.ts
 * DagOverOptions, each default = the answer every door gives). Neither HTTP nor MCP can reach them: their request
 * schemas are strict. The accuracy bench measures what each part of the DAG is worth with them.
 */
export const buildDagOptions = dagOptions.extend({
  ablation: z
    .object({
      hops: z.number().int().min(1).max(10).optional().describe("Longest path that relates two tools (default 3)"),
      dataFlowPrior: z.boolean().optional().describe("Propose one edge when nothing relates the tools (default true)"),
      precedence: z.boolean().optional().describe("Break cycles by observed precedence (default true)"),
      directFirst: z.boolean().optional().describe("Direct dependency evidence first (default true)"),
      keepDirect: z.boolean().optional().describe("Transitive reduction keeps direct edges (default true)"),
      roles: z.boolean().optional().describe("Orient unobserved path edges by learned roles (default false)"),
      mentionChain: z.number().int().min(0).optional().describe("Edges of the mention chain (0 abstains)"),
      historyFallback: z
        .union([z.boolean(), z.enum(["pair", "tool", "set"])])
        .optional()
        .describe("History candidates where the dependency graph relates nothing (default: on for graph auto)"),
    })
    .strict()
    .optional(),
});
export type DagAblation = NonNullable<z.output<typeof buildDagOptions>["ablation"]>;

export type SearchRequest = z.input<typeof searchRequest>;
export type SuggestNextRequest = z.input<typeof suggestNextRequest>;
export type MatchCapabilitiesRequest = z.input<typeof matchCapabilitiesRequest>;
export type DiscoverCapabilitiesRequest = z.input<typeof discoverCapabilitiesRequest>;
export type BuildDagRequest = z.input<typeof buildDagRequest>;
export type PlanRequest = z.input<typeof planRequest>;
export type AlternativesRequest = z.input<typeof alternativesRequest>;

/**
 * Feedback on a gated answer (learning the threshold per context): was an accepted answer
 * right, or did the user follow an answer the gate had abstained on, and did it work?
 */
export const feedbackRequest = z
  .object({
    /** The request text of the answer (its operation and domain key the learned threshold). */
    intent: safeText(4000).describe("The intent (request text) of the answer this feedback is about"),
    decision: z
      .enum(["accepted", "accepted-with-caution", "abstained"])
      .describe("The gate decision the answer carried"),
    /** For an abstention: did the user use the answer anyway? */
    followed: z.boolean().optional().describe("For an abstained answer: was it used anyway?"),
    success: z.boolean().describe("Did acting on the answer work?"),
    user: safeId(256).optional().describe("Who acted on the answer"),
    /** The `recommendationId` of the answer this feedback is about (joins it in the recommendation log). */
    recommendationId: safeId(256).optional().describe("The recommendationId of the answer, if it carried one"),
    /** The session of the answer(s) this feedback is about, when no id is given. */
    session: safeId(256).optional().describe("The session of the answer(s), when no recommendationId is given"),
  })
  .strict();
export type FeedbackRequest = z.input<typeof feedbackRequest>;
