/**
 * Import formats, validated at the boundary with zod (README "Import formats" documents them).
 * - Catalog JSON: { tools: Tool[], capabilities?: Capability[] }
 * - Traces JSONL: one Execution per line
 * - Declared edges JSONL: one DeclaredEdge per line
 * - Evaluation JSONL: one EvalCase per line (bench harness)
 */
import { z } from "zod";
import { zodProblems } from "./issues.ts";
import { LIMITS } from "./limits.ts";

export { LIMITS };

/** PostgreSQL `integer` (int4) bounds. */
export const INT4 = { min: -(2 ** 31), max: 2 ** 31 - 1 } as const;

/**
 * Characters an id must not contain: C0/C1 controls (incl. NUL and U+0085 NEXT LINE), format characters
 * (zero-width, bidi overrides, BOM) and the line/paragraph separators U+2028/U+2029.
 */
const ID_FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string is not well-formed UTF-16 (a lone surrogate: half of a pair, which no UTF-8 text can carry), or
 * undefined. Refused in ids and free text alike, never replaced: PostgreSQL's jsonb refuses the escape outright
 * and a text column would silently store U+FFFD instead (docs/decisions/text-validation.md).
 */
export function surrogateProblem(s: string): string | undefined {
  const bad = LONE_SURROGATE.exec(s);
  if (!bad) return undefined;
  return `must be well-formed Unicode (found a lone surrogate U+${bad[0].charCodeAt(0).toString(16).toUpperCase()} at index ${bad.index})`;
}

/** True when every character is printable ASCII (U+0020..U+007E): none of the forbidden ones can occur. */
function printableAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/** Why an id is unusable, or undefined. */
export function idProblem(s: string): string | undefined {
  if (printableAscii(s)) return undefined;
  const bad = ID_FORBIDDEN.exec(s);
  if (bad)
    return `must not contain control, format or line-separator characters (found U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} at index ${bad.index})`;
  return surrogateProblem(s);
}

/** An id: 1..256 characters, no control/format/line-separator characters, no surrounding white space. */
export const safeId = (max: number = LIMITS.idLength) =>
  z
    .string()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .check((ctx) => {
      // One plain check (superRefine builds an addIssue closure per value; every request id passes here).
      pushIdIssues(ctx.issues, ctx.value, undefined);
    });

/**
 * The issues of an id's characters (forbidden ones, surrounding white space), pushed as zod issues at `path`
 * (an index in a list, or none): what both safeId and safeIdList check besides the length.
 */
function pushIdIssues(issues: z.core.$ZodRawIssue[], s: string, index: number | undefined): void {
  const problem = idProblem(s);
  const padded = s.trim() !== s;
  if (!problem && !padded) return;
  const at = index === undefined ? {} : { path: [index] };
  if (problem) issues.push({ code: "custom", message: problem, input: s, ...at });
  if (padded) issues.push({ code: "custom", message: "must not start or end with white space", input: s, ...at });
}

/** Characters (code points) of a string, as zod's string length bounds count them: a surrogate pair is one. */
function codePoints(s: string): number {
  let count = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

/**
 * A list of ids (each as `safeId(idMax)` requires) with at least `min` and at most `max` entries, validated in
 * one pass over the list: the element schema checks only the type (its length bounds are declared for JSON
 * Schema) and one check on the list reports each element's problems with its index, before the list's own
 * bounds, in the order `z.array(safeId(idMax)).min(min).max(max)` reports them (a list over `max` reports only
 * that). Unlike that schema, a list holding a non-string reports only the type errors.
 */
export const safeIdList = (bounds: { min?: number; max: number }, idMax: number = LIMITS.idLength) => {
  const list = z.array(z.string().meta({ minLength: 1, maxLength: idMax })).check((ctx) => {
    const ids = ctx.value;
    // A list over its bound reports only that (zod checks it before the elements).
    if (ids.length > bounds.max) return;
    for (let i = 0; i < ids.length; i++) {
      const s = ids[i]!;
      if (s.length === 0) ctx.issues.push({ code: "custom", message: "must not be empty", input: s, path: [i] });
      if (s.length > idMax && codePoints(s) > idMax)
        ctx.issues.push({ code: "custom", message: `must be at most ${idMax} characters`, input: s, path: [i] });
      pushIdIssues(ctx.issues, s, i);
    }
  });
  return (bounds.min !== undefined ? list.min(bounds.min) : list).max(bounds.max);
};

const NUL_MESSAGE = "must not contain the NUL character (U+0000)";

/** Why free text cannot be stored (NUL, a lone surrogate), or undefined. */
export function textProblem(s: string): string | undefined {
  if (s.includes("\u0000")) return NUL_MESSAGE;
  return surrogateProblem(s);
}

/**
 * Free text up to `max` characters: any character (newlines, tabs, controls, any script) but NUL, which
 * PostgreSQL text cannot hold, and lone surrogates, which no UTF-8 text can (docs/decisions/text-validation.md).
 */
export const safeText = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .check((ctx) => {
      const problem = textProblem(ctx.value);
      if (problem) ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
    });

/** Why a JSON value cannot be stored (depth, NUL or a lone surrogate in a key or string), with the path inside it, or undefined. */
export function jsonProblem(
  value: unknown,
  maxDepth: number = LIMITS.jsonDepth,
): { path: (string | number)[]; message: string } | undefined {
  // Iterative, so a 100k-deep value does not overflow the stack while being checked.
  const stack: { v: unknown; path: (string | number)[]; depth: number }[] = [{ v: value, path: [], depth: 1 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return { path, message: problem };
      continue;
    }
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return { path, message: "must be a finite number" };
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth > maxDepth) return { path, message: `is nested deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], path: [...path, i], depth: depth + 1 });
    } else {
      for (const [k, x] of Object.entries(v)) {
        const problem = textProblem(k);
        if (problem) return { path: [...path, k], message: `key ${problem}` };
        stack.push({ v: x, path: [...path, k], depth: depth + 1 });
      }
    }
  }
  return undefined;
}

/** A JSON object storable as jsonb: at most LIMITS.jsonDepth levels, no NUL or lone surrogate anywhere. */
const jsonObject = z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
  const p = jsonProblem(v);
  if (p) ctx.addIssue({ code: "custom", path: p.path, message: p.message });
});

const id = safeId();

const shortText = (max: number) => safeText(max);
const textList = z.array(shortText(LIMITS.textItemLength)).max(LIMITS.textListItems);
const boundedNumber = (max: number) => z.number().finite().nonnegative().max(max, `must be at most ${max}`);
const duration = boundedNumber(LIMITS.maxDurationMs);

export const toolSchema = z
  .object({
    id,
    name: shortText(LIMITS.nameLength).optional(),
    description: shortText(LIMITS.descriptionLength).default(""),
    inputSchema: jsonObject.optional(),
    /** What the tool returns, same shape as inputSchema ({type:"object", properties:{field:{type?, description?}}}). */
    outputSchema: jsonObject.optional(),
    tags: textList.default([]),
    examples: textList.default([]),
    antiPatterns: textList.default([]),
    costEstimate: boundedNumber(LIMITS.maxCost).optional(),
    avgLatencyMs: duration.optional(),
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
    priority: z.number().int().min(INT4.min).max(INT4.max).default(0),
    dependsOn: z.array(id).default([]),
  })
  .strict()
  .superRefine((c, ctx) => {
    c.dependsOn.forEach((d, k) => {
      if (d === c.id)
        ctx.addIssue({
          code: "custom",
          path: ["dependsOn", k],
          message: `a capability cannot depend on itself (${JSON.stringify(d)})`,
        });
    });
  });

/**
 * The first dependsOn cycle among `deps` (capability → the capabilities it depends on), as the list of ids
 * around it (`[a, b, a]`), or undefined. Iterative DFS, O(V + E).
 */
export function dependencyCycle(deps: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 1 | 2>(); // 1 = on the current path, 2 = done
  for (const start of deps.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [start];
    const iters: number[] = [0];
    state.set(start, 1);
    while (path.length > 0) {
      const node = path[path.length - 1]!;
      const next = deps.get(node) ?? [];
      const i = iters[iters.length - 1]!;
      if (i >= next.length) {
        state.set(node, 2);
        path.pop();
        iters.pop();
        continue;
      }
      iters[iters.length - 1] = i + 1;
      const to = next[i]!;
      const st = state.get(to);
      if (st === 1) return [...path.slice(path.indexOf(to)), to];
      if (st === undefined) {
        state.set(to, 1);
        path.push(to);
        iters.push(0);
      }
    }
  }
  return undefined;
}

/** Project settings a catalog may carry (stored with the project; absent fields keep their stored value). */
export const projectSettingsSchema = z
  .object({
    /** Tools offered instead when the gate abstains (fallback to a general tool); [] clears them. */
    fallbackTools: z.array(id).max(100).optional(),
  })
  .strict();

export const catalogSchema = z
  .object({
    tools: z.array(toolSchema),
    capabilities: z.array(capabilitySchema).default([]),
    settings: projectSettingsSchema.optional(),
  })
  .strict()
  .superRefine((cat, ctx) => {
    const total = cat.capabilities.reduce((n, c) => n + c.patterns.length, 0);
    if (total > LIMITS.patternsPerProject) {
      ctx.addIssue({
        code: "custom",
        path: ["capabilities"],
        message: `declares ${total} trigger patterns; at most ${LIMITS.patternsPerProject} per project`,
      });
    }
    const cycle = dependencyCycle(new Map(cat.capabilities.map((c) => [c.id, c.dependsOn])));
    if (cycle) {
      const i = cat.capabilities.findIndex((c) => c.id === cycle[cycle.length - 2]);
      const k = cat.capabilities[i]!.dependsOn.indexOf(cycle[cycle.length - 1]!);
      ctx.addIssue({
        code: "custom",
        path: ["capabilities", i, "dependsOn", k],
        message: `closes a dependsOn cycle: ${cycle.join(" → ")}`,
      });
    }
  });

const isoDate = z.union([z.string(), z.number(), z.date()]).transform((v, ctx) => {
  const d = new Date(v);
  const t = d.getTime();
  if (Number.isNaN(t)) {
    ctx.addIssue({ code: "custom", message: `is not a valid date: ${JSON.stringify(v).slice(0, 60)}` });
    return z.NEVER;
  }
  if (t < LIMITS.minDateMs || t > LIMITS.maxDateMs) {
    ctx.addIssue({
      code: "custom",
      message: `is outside the supported range 0001-01-01 .. 9999-12-31: ${JSON.stringify(v).slice(0, 60)}`,
    });
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
    durationMs: duration.optional(),
    at: isoDate.optional(),
  })
  .strict();

export const executionSchema = z
  .object({
    id,
    user: id.optional(),
    intent: shortText(LIMITS.descriptionLength).optional(),
    capability: id.optional(),
    /** The answer this execution followed (its `recommendationId`); the execution's id also joins answers of that session. */
    recommendationId: id.optional(),
    startedAt: isoDate,
    success: z.boolean(),
    steps: z.array(stepSchema).min(1, "must have at least one step").max(LIMITS.stepsPerExecution),
  })
  .strict()
  .superRefine((ex, ctx) => {
    ex.steps.forEach((s, i) => {
      if (s.parent !== undefined && s.parent >= i) {
        ctx.addIssue({
          code: "custom",
          path: ["steps", i, "parent"],
          message: `must point to an earlier step (got ${s.parent}, step is ${i})`,
        });
      }
      s.dependsOn.forEach((d, k) => {
        if (d >= i) {
          ctx.addIssue({
            code: "custom",
            path: ["steps", i, "dependsOn", k],
            message: `must point to an earlier step (got ${d}, step is ${i})`,
          });
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
  z.object({
    kind: z.literal("retrieval"),
    id,
    query: z.string().min(1),
    relevant: z.array(id).min(1),
    split: z.string().optional(),
  }),
  z.object({
    kind: z.literal("next-step"),
    id,
    steps: z.array(id).min(2),
    edges: z.array(edgePair).optional(),
    query: z.string().optional(),
    split: z.string().optional(),
  }),
  z.object({
    kind: z.literal("dag"),
    id,
    tools: z.array(id).min(1),
    edges: z.array(edgePair),
    query: z.string().optional(),
    split: z.string().optional(),
  }),
  z.object({
    kind: z.literal("capability"),
    id,
    query: z.string().min(1),
    capability: id,
    split: z.string().optional(),
  }),
]);

export type ToolInput = z.infer<typeof toolSchema>;
export type CapabilityInput = z.infer<typeof capabilitySchema>;
export type CatalogInput = z.infer<typeof catalogSchema>;
export type StepInput = z.infer<typeof stepSchema>;
export type ExecutionInput = z.infer<typeof executionSchema>;
export type DeclaredEdgeInput = z.infer<typeof declaredEdgeSchema>;
export type EvalCase = z.infer<typeof evalCaseSchema>;

/** Formats a zod issue as `field.path: message` ("required" when the field is absent): zodProblems, one formatter. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const p = zodProblems([issue])[0]!;
  return `${p.field || "(record)"}: ${p.message}`;
}
