/**
 * Request schemas shared by every front door (library, CLI, HTTP, MCP): one zod schema per operation.
 * The HTTP server and the MCP tools validate with these; the library validates with them too, so a bad
 * field gives the same error ("field: problem") through every door.
 */
import { z } from "zod";
import { safeId, safeText } from "../formats/schemas.ts";

// Ids and texts refuse what the database cannot hold (NUL) or an id must not carry (controls, U+2028 …).
const toolId = safeId(256);
const text = safeText(4000).min(1, "must not be empty");
const limit = z.number().int().min(1).max(100);

/**
 * The running workflow (seed 001 task health): its steps so far with their outcome, how often it was
 * replanned, and an id under which the detected contexts form a timeline. Detection reads it: AtRisk
 * (replans > 2) and OffTrack (success < 0.5) each add 0.05 to the threshold; > 3 failures in a row at the
 * end mark the user "frustrated".
 */
export const workflowField = z
  .object({
    id: z.string().min(1).max(256).optional(),
    steps: z.array(z.object({ tool: toolId, success: z.boolean().default(true) }).strict()).max(1000),
    replans: z.number().int().min(0).max(1_000_000).optional(),
  })
  .strict();
export type WorkflowInput = z.input<typeof workflowField>;

export const gateFields = {
  /** The running workflow (steps with outcome, replans, id); the gate detects its health. */
  workflow: workflowField.optional(),
  /** The user the answer is for (their history moves the threshold). */
  user: safeId(256).optional(),
  /** Production environment and critical task (the critical_production rule). */
  environment: z.object({ production: z.boolean().optional(), critical: z.boolean().optional() }).strict().optional(),
  urgency: z.enum(["low", "medium", "high"]).optional(),
  /** Include the reasoning report of the top answer. */
  explain: z.boolean().optional(),
  /**
   * The session (workflow) this answer belongs to: a recorded execution whose id equals it, and feedback
   * naming it, are joined to the answer in the recommendation log. Not part of the answer's cache key.
   */
  session: z.string().min(1).max(256).optional(),
};

const caps = {
  /** Drop tools carrying any of these safety tags (e.g. destructive, network). */
  excludeSafetyTags: z.array(safeText(2000).min(1)).max(50).optional(),
  maxTools: z.number().int().min(1).max(1000).optional(),
  maxLatencyMs: z.number().positive().optional(),
  maxCost: z.number().nonnegative().optional(),
};

export const searchRequest = z
  .object({
    intent: text,
    /** Tools already in the workflow (context for the graph term). */
    context: z.array(toolId).max(100).optional(),
    limit: limit.optional(),
    /** Tools that must not be returned (failed, unavailable). */
    exclude: z.array(toolId).max(1000).optional(),
    /** Manual override: force these tools first, still explained. */
    only: z.array(toolId).max(100).optional(),
    /** active (default: an explicit request) or passive (suggesting during a workflow: α by heat diffusion from the context). */
    mode: z.enum(["active", "passive"]).optional(),
    /**
     * flat (search every tool), two-hop (rank the namespaces — catalog `server` or id prefix — then search
     * the tools of the best few) or auto (default: flat below 20,000 tools or 100 namespaces; above, both routes
     * are timed on the catalog's first 8 queries and the faster at equal top 10 is kept; see
     * src/services/namespace-index.ts).
     */
    routing: z.enum(["flat", "two-hop", "auto"]).optional(),
    ...caps,
    ...gateFields,
  })
  .strict();

export const suggestNextRequest = z
  .object({
    /** Tools that completed successfully so far, in order. */
    context: z.array(toolId).max(200),
    /** Tools that failed or are unavailable: never suggested. */
    exclude: z.array(toolId).max(1000).optional(),
    /** Optional intent of the workflow (intent memory, detection). */
    intent: safeText(4000).optional(),
    limit: limit.optional(),
    /** auto (default: learned when the project has enough traces, else seed), seed, learned or markov. */
    mode: z.enum(["auto", "seed", "learned", "markov"]).optional(),
    ...gateFields,
  })
  .strict();

export const matchCapabilitiesRequest = z
  .object({ intent: text, limit: limit.optional(), ...gateFields })
  .strict();

export const discoverCapabilitiesRequest = z
  .object({ context: z.array(toolId).min(1).max(200), limit: limit.optional(), ...gateFields })
  .strict();

/** Schema-matched dependencies (outputSchema → required inputs) for tools with no learned relation; off by default. */
const schemaEdges = z.boolean().optional();

export const buildDagRequest = z
  .object({ tools: z.array(toolId).min(1).max(200), schemaEdges, ...caps, ...gateFields })
  .strict();

export const planRequest = z
  .object({
    intent: text,
    limit: limit.optional(),
    exclude: z.array(toolId).max(1000).optional(),
    schemaEdges,
    ...caps,
    ...gateFields,
  })
  .strict();

export const alternativesRequest = z
  .object({ tool: toolId, context: z.array(toolId).max(200).optional(), limit: limit.optional(), ...caps, ...gateFields })
  .strict();

export type SearchRequest = z.input<typeof searchRequest>;
export type SuggestNextRequest = z.input<typeof suggestNextRequest>;
export type MatchCapabilitiesRequest = z.input<typeof matchCapabilitiesRequest>;
export type DiscoverCapabilitiesRequest = z.input<typeof discoverCapabilitiesRequest>;
export type BuildDagRequest = z.input<typeof buildDagRequest>;
export type PlanRequest = z.input<typeof planRequest>;
export type AlternativesRequest = z.input<typeof alternativesRequest>;

/**
 * Feedback on a gated answer (issue 7, learning the threshold per context): was an accepted answer
 * right, or did the user follow an answer the gate had abstained on, and did it work?
 */
export const feedbackRequest = z
  .object({
    /** The request text of the answer (its operation and domain key the learned threshold). */
    intent: safeText(4000),
    decision: z.enum(["accepted", "accepted-with-caution", "abstained"]),
    /** For an abstention: did the user use the answer anyway? */
    followed: z.boolean().optional(),
    success: z.boolean(),
    user: safeId(256).optional(),
    /** The `recommendationId` of the answer this feedback is about (joins it in the recommendation log). */
    recommendationId: safeId(256).optional(),
    /** The session of the answer(s) this feedback is about, when no id is given. */
    session: safeId(256).optional(),
  })
  .strict();
export type FeedbackRequest = z.input<typeof feedbackRequest>;
