/**
 * Result schemas of the recommending operations, defined once: they give the MCP tools their
 * `outputSchema`, the OpenAPI document its 200 bodies, and — checked at compile time below — they agree
 * with the result types the services return (src/contract/api.ts). They name the fields an agent reads
 * (ids, scores, gate decisions, explanations, input schemas) and stay open (`looseObject`) to the
 * diagnostic fields around them (breakdowns, timings, analytics), which may grow.
 */
import { z } from "zod";
import type {
  AlternativesResult,
  BuildDagResult,
  DiscoverCapabilitiesResult,
  MatchCapabilitiesResult,
  PlanResult,
  SearchResult,
  SuggestNextResult,
} from "./api.ts";

const json = z.record(z.string(), z.unknown());

export const gateSchema = z
  .looseObject({
    decision: z.enum(["accepted", "accepted-with-caution", "abstained"]).describe("The gate's decision on this answer"),
    confidence: z.string().describe("Confidence band (high, medium, low)"),
    caution: z.boolean().describe("True when the answer is accepted with caution"),
    threshold: z.number().describe("The threshold the score was compared with"),
    gap: z.number().optional().describe("How far below the threshold an abstained answer fell"),
    probability: z.number().optional().describe("Calibrated probability of success, when the project is calibrated"),
  })
  .describe("The gate decision: accepted, accepted-with-caution or abstained, and why");

/** The tail every gated answer shares (gate/gatekeeper.ts gatedSummary). */
const gatedTail = {
  accepted: z.array(z.string()).describe("Ids of the answers the gate accepted"),
  abstained: z.boolean().describe("True when nothing reached the threshold: say so rather than guess"),
  reason: z.string().optional().describe("Why the whole answer abstained"),
  fallbacks: z.array(z.string()).optional().describe("The project's fallback tools, offered when the answer abstained"),
  threshold: json.describe("The threshold adjustment and the rules that moved it"),
};

const toolIds = z.array(z.string());

export const searchResultSchema = z.looseObject({
  project: z.string(),
  intent: z.string(),
  results: z
    .array(
      z.looseObject({
        tool: z.string().describe("Tool id (call it by this id: through call_tool behind the gateway)"),
        name: z.string(),
        description: z.string(),
        server: z.string().nullable().describe("The MCP server the tool belongs to, or null"),
        inputSchema: json.nullable().describe("The tool's input JSON Schema, or null"),
        safetyTags: z
          .array(z.string())
          .describe(
            "The tool's safety tags (destructive, network, suspicious, …); a suspicious tool is never accepted outright",
          ),
        score: z.number().describe("Hybrid score in [0, 1]"),
        gate: gateSchema,
        explanation: z.string().describe("Why the tool ranks here"),
      }),
    )
    .describe("Tools ranked for the intent"),
  channels: z
    .object({ lexical: z.boolean(), embedding: z.boolean(), graph: z.boolean() })
    .describe(
      "The ranking channels that were live (embedding false while the tools' embeddings are still being computed)",
    ),
  degraded: z
    .literal("embedding")
    .optional()
    .describe(
      '"embedding": ranked by the lexical and graph channels only, nothing accepted outright; ask again shortly for the full ranking',
    ),
  ...gatedTail,
});

export const suggestNextResultSchema = z.looseObject({
  project: z.string(),
  context: toolIds,
  suggestions: z
    .array(
      z.looseObject({
        tool: z.string().describe("Tool id"),
        confidence: z.number().describe("Confidence in [0, 1]"),
        gate: gateSchema,
        explanation: z.string().describe("Why it is suggested"),
      }),
    )
    .describe("Tools that most often follow the context"),
  ...gatedTail,
});

const capabilityItem = z.looseObject({
  capability: z.string().describe("Capability id"),
  name: z.string(),
  score: z.number(),
  gate: gateSchema,
  explanation: z.string(),
});

export const matchCapabilitiesResultSchema = z.looseObject({
  project: z.string(),
  intent: z.string(),
  results: z
    .array(capabilityItem.extend({ tools: toolIds.describe("The capability's tools") }))
    .describe("Capabilities ranked for the intent"),
  ...gatedTail,
});

export const discoverCapabilitiesResultSchema = z.looseObject({
  project: z.string(),
  context: toolIds,
  results: z
    .array(capabilityItem.extend({ matchedTools: toolIds.describe("Context tools that belong to it") }))
    .describe("Capabilities related to the tools in use"),
  ...gatedTail,
});

const dagShape = {
  nodes: z
    .array(z.looseObject({ tool: z.string(), layer: z.number(), prerequisites: toolIds, dependents: toolIds }))
    .describe("Each tool with its layer and dependencies"),
  edges: z
    .array(z.looseObject({ from: z.string(), to: z.string(), strength: z.number(), explanation: z.string() }))
    .describe("Dependencies, each explained"),
  layers: z.array(toolIds).describe("Tools that can run in parallel, layer by layer, in order"),
};

export const buildDagResultSchema = z.looseObject({
  project: z.string(),
  ...dagShape,
  confidence: z.number(),
  gate: gateSchema,
});

export const planResultSchema = z.looseObject({
  project: z.string(),
  intent: z.string(),
  tools: z
    .array(
      z.looseObject({
        tool: z.string().describe("Tool id"),
        why: z.string().describe("Why it is in the plan"),
        server: z.string().nullable().describe("The MCP server the tool belongs to, or null"),
        inputSchema: json.nullable().describe("The tool's input JSON Schema, or null"),
      }),
    )
    .describe("The planned tools"),
  ...dagShape,
  confidence: z.number(),
  gate: gateSchema,
});

export const alternativesResultSchema = z.looseObject({
  project: z.string(),
  tool: z.string().describe("The tool being replaced"),
  results: z
    .array(
      z.looseObject({
        tool: z.string(),
        name: z.string(),
        score: z.number(),
        gate: gateSchema,
        explanation: z.string(),
      }),
    )
    .describe("Substitutes, best first"),
  ...gatedTail,
});

export const recordExecutionResultSchema = z.looseObject({
  inserted: z.number().describe("1 when the execution was new, 0 when its id was already recorded"),
  skippedExisting: z.number(),
  steps: z.number(),
  edgesTouched: z.number(),
  autoRegistered: toolIds,
  graphVersion: z.number(),
});

export const feedbackResultSchema = z.looseObject({
  project: z.string(),
  outcome: z.string().describe("How the feedback was classified (accepted-succeeded, abstained-followed-failed, …)"),
  offset: z.number().describe("The learned threshold offset of the answer's context after this feedback"),
});

/** Every result schema by MCP tool name (also read by the OpenAPI document by operation). */
export const RESULT_SCHEMAS = {
  search: searchResultSchema,
  suggestNext: suggestNextResultSchema,
  matchCapabilities: matchCapabilitiesResultSchema,
  discoverCapabilities: discoverCapabilitiesResultSchema,
  buildDag: buildDagResultSchema,
  plan: planResultSchema,
  alternatives: alternativesResultSchema,
  recordExecution: recordExecutionResultSchema,
  feedback: feedbackResultSchema,
} as const;

// Compile-time agreement: every service result is a valid value of its schema's type (the open objects'
// index signatures set aside: the service types are interfaces, which have none).
type NoIndex<T> = T extends readonly (infer U)[]
  ? NoIndex<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: NoIndex<T[K]> }
    : T;
type Fits<T, S extends z.ZodType> = T extends NoIndex<z.input<S>> ? true : never;
const agree: [
  Fits<SearchResult, typeof searchResultSchema>,
  Fits<SuggestNextResult, typeof suggestNextResultSchema>,
  Fits<MatchCapabilitiesResult, typeof matchCapabilitiesResultSchema>,
  Fits<DiscoverCapabilitiesResult, typeof discoverCapabilitiesResultSchema>,
  Fits<BuildDagResult, typeof buildDagResultSchema>,
  Fits<PlanResult, typeof planResultSchema>,
  Fits<AlternativesResult, typeof alternativesResultSchema>,
] = [true, true, true, true, true, true, true];
void agree;
