/**
 * `toolgraph/formats` — the import formats as zod schemas (README "Import formats"): the catalog, one execution
 * (a traces JSONL line), one declared edge and one evaluation case, their limits (LIMITS) and `describeIssue`,
 * which names the field of a failed check the way the doors do. For a program that writes or checks files
 * before importing them.
 */
export {
  type CapabilityInput,
  type CatalogInput,
  catalogSchema,
  type DeclaredEdgeInput,
  declaredEdgeSchema,
  describeIssue,
  type EvalCase,
  type ExecutionInput,
  evalCaseSchema,
  executionSchema,
  LIMITS,
  type StepInput,
  type ToolInput,
} from "./schemas.ts";
