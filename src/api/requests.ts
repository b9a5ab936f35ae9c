/**
 * Request schemas shared by every front door (library, CLI, HTTP, MCP): one zod schema per operation.
 * The HTTP server and the MCP tools validate with these; the library validates with them too, so a bad
 * field gives the same error ("field: problem") through every door.
 */
import { z } from "zod";

const toolId = z.string().min(1).max(256);
const text = z.string().min(1, "must not be empty").max(4000, "must be at most 4000 characters");
const limit = z.number().int().min(1).max(100);

export const gateFields = {
  /** The user the answer is for (their history moves the threshold). */
  user: z.string().min(1).max(256).optional(),
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
  excludeSafetyTags: z.array(z.string().min(1)).max(50).optional(),
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
     * the tools of the best few) or auto (default: the measured winner per catalog size — two-hop from 50,000
     * tools in at least 100 namespaces, else flat; see src/services/namespace-index.ts).
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
    intent: z.string().max(4000).optional(),
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
    intent: z.string().max(4000),
    decision: z.enum(["accepted", "accepted-with-caution", "abstained"]),
    /** For an abstention: did the user use the answer anyway? */
    followed: z.boolean().optional(),
    success: z.boolean(),
    user: z.string().min(1).max(256).optional(),
    /** The `recommendationId` of the answer this feedback is about (joins it in the recommendation log). */
    recommendationId: z.string().min(1).max(256).optional(),
    /** The session of the answer(s) this feedback is about, when no id is given. */
    session: z.string().min(1).max(256).optional(),
  })
  .strict();
export type FeedbackRequest = z.input<typeof feedbackRequest>;
