/**
 * Import formats, validated at the boundary with zod (README "Import formats" documents them).
 * - Catalog JSON: { tools: Tool[], capabilities?: Capability[] }
 * - Traces JSONL: one Execution per line
 * - Declared edges JSONL: one DeclaredEdge per line
 * - Evaluation JSONL: one EvalCase per line (bench harness)
 */
import { z } from "zod";

export const LIMITS = {
  idLength: 256,
  nameLength: 512,
  /** A description longer than this is rejected (a 10 MB description is a mistake, not a tool). */
  descriptionLength: 32_768,
  textListItems: 200,
  textItemLength: 2_000,
  stepsPerExecution: 10_000,
  patternLength: 200,
  patternsPerCapability: 50,
} as const;

const id = z
  .string()
  .min(1, "must not be empty")
  .max(LIMITS.idLength, `must be at most ${LIMITS.idLength} characters`)
  .refine((s) => ![...s].some((ch) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127), "must not contain control characters")
  .refine((s) => s.trim() === s, "must not start or end with white space");

const shortText = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const textList = z.array(shortText(LIMITS.textItemLength)).max(LIMITS.textListItems);
const nonNegative = z.number().finite().nonnegative();

export const toolSchema = z
  .object({
    id,
    name: shortText(LIMITS.nameLength).optional(),
    description: shortText(LIMITS.descriptionLength).default(""),
    inputSchema: z.record(z.string(), z.unknown()).optional(),
    /** What the tool returns, same shape as inputSchema ({type:"object", properties:{field:{type?, description?}}}). */
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    tags: textList.default([]),
    examples: textList.default([]),
    antiPatterns: textList.default([]),
    costEstimate: nonNegative.optional(),
    avgLatencyMs: nonNegative.optional(),
    safetyTags: textList.default([]),
    server: shortText(LIMITS.nameLength).optional(),
  })
  .strict();

export const capabilitySchema = z
  .object({
    id,
    name: shortText(LIMITS.nameLength).optional(),
    description: shortText(LIMITS.descriptionLength).default(""),
    tools: z.array(id).default([]),
    patterns: z.array(shortText(LIMITS.patternLength)).max(LIMITS.patternsPerCapability).default([]),
    keywords: textList.default([]),
    priority: z.number().int().default(0),
    dependsOn: z.array(id).default([]),
  })
  .strict();

export const catalogSchema = z
  .object({
    tools: z.array(toolSchema),
    capabilities: z.array(capabilitySchema).default([]),
  })
  .strict();

const isoDate = z
  .union([z.string(), z.number(), z.date()])
  .transform((v, ctx) => {
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) {
      ctx.addIssue({ code: "custom", message: `is not a valid date: ${JSON.stringify(v).slice(0, 60)}` });
      return z.NEVER;
    }
    return d;
  });

const stepIndex = z.number().int().nonnegative();

export const stepSchema = z
  .object({
    tool: id,
    parent: stepIndex.optional(),
    dependsOn: z.array(stepIndex).default([]),
    success: z.boolean().default(true),
    durationMs: nonNegative.optional(),
    at: isoDate.optional(),
  })
  .strict();

export const executionSchema = z
  .object({
    id,
    user: id.optional(),
    intent: shortText(LIMITS.descriptionLength).optional(),
    capability: id.optional(),
    startedAt: isoDate,
    success: z.boolean(),
    steps: z.array(stepSchema).min(1, "must have at least one step").max(LIMITS.stepsPerExecution),
  })
  .strict()
  .superRefine((ex, ctx) => {
    ex.steps.forEach((s, i) => {
      if (s.parent !== undefined && s.parent >= i) {
        ctx.addIssue({ code: "custom", path: ["steps", i, "parent"], message: `must point to an earlier step (got ${s.parent}, step is ${i})` });
      }
      s.dependsOn.forEach((d, k) => {
        if (d >= i) {
          ctx.addIssue({ code: "custom", path: ["steps", i, "dependsOn", k], message: `must point to an earlier step (got ${d}, step is ${i})` });
        }
      });
    });
  });

export const EDGE_TYPE_VALUES = ["dependency", "contains", "provides", "sequence"] as const;
export const EDGE_SOURCE_VALUES = ["template", "inferred", "observed"] as const;

export const declaredEdgeSchema = z
  .object({
    from: id,
    to: id,
    type: z.enum(EDGE_TYPE_VALUES),
    // "declared" is accepted as an alias of "observed": a known, confirmed dependency.
    source: z
      .enum([...EDGE_SOURCE_VALUES, "declared"])
      .default("template")
      .transform((v) => (v === "declared" ? "observed" : v)),
  })
  .strict()
  .refine((e) => e.from !== e.to, { message: "from and to must differ (no self-loops)", path: ["to"] });

const edgePair = z.tuple([stepIndex, stepIndex]);

export const evalCaseSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("retrieval"), id, query: z.string().min(1), relevant: z.array(id).min(1), split: z.string().optional() }),
  z.object({ kind: z.literal("next-step"), id, steps: z.array(id).min(2), edges: z.array(edgePair).optional(), query: z.string().optional(), split: z.string().optional() }),
  z.object({ kind: z.literal("dag"), id, tools: z.array(id).min(1), edges: z.array(edgePair), query: z.string().optional(), split: z.string().optional() }),
  z.object({ kind: z.literal("capability"), id, query: z.string().min(1), capability: id, split: z.string().optional() }),
]);

export type ToolInput = z.infer<typeof toolSchema>;
export type CapabilityInput = z.infer<typeof capabilitySchema>;
export type CatalogInput = z.infer<typeof catalogSchema>;
export type StepInput = z.infer<typeof stepSchema>;
export type ExecutionInput = z.infer<typeof executionSchema>;
export type DeclaredEdgeInput = z.infer<typeof declaredEdgeSchema>;
export type EvalCase = z.infer<typeof evalCaseSchema>;

/** True when the issue only says that the field is absent (every union branch received undefined). */
function isMissing(issue: z.core.$ZodIssue): boolean {
  if (issue.code === "invalid_type") return / received undefined$/.test(issue.message);
  if (issue.code === "invalid_union") {
    return issue.errors.length > 0 && issue.errors.every((branch) => branch.length > 0 && branch.every((b) => b.path.length === 0 && isMissing(b)));
  }
  return false;
}

/** Formats a zod issue as `field.path: message` ("required" when the field is absent). */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
  return `${path || "(record)"}: ${isMissing(issue) ? "required" : issue.message}`;
}
