/**
 * Shared types and helpers of the dataset converters (Seal-Tools, ToolLinkOS, NESTFUL).
 *
 * The converters turn each public benchmark into toolgraph's own import formats:
 *   - Catalog JSON (`Catalog`): tools with a JSON-Schema `inputSchema`, and capabilities.
 *   - Traces JSONL (`TraceRecord`): one gold workflow of a training instance per line.
 *   - Declared edges JSONL (`DeclaredEdge`): catalog knowledge (ToolLinkOS `depends_on`).
 *   - Evaluation JSONL (`EvalCase`): retrieval / next-step / dag / capability cases.
 *
 * In between, every dataset is first parsed into neutral `Instance`s (query + gold workflow), which
 * the split (`split.ts`) assigns to training (→ traces) or evaluation (→ cases).
 */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// ---------------------------------------------------------------------------------------------
// Import formats
// ---------------------------------------------------------------------------------------------

export interface JsonSchemaProperty {
  type?: string;
  description?: string;
  enum?: unknown[];
}

export interface InputSchema {
  type: "object";
  properties: Record<string, JsonSchemaProperty>;
  required: string[];
}

/** A returned field: JSON-Schema-like, nested objects and array items kept (outputs are trees). */
export interface OutputSchemaProperty extends JsonSchemaProperty {
  properties?: Record<string, OutputSchemaProperty>;
  items?: OutputSchemaProperty;
}

/** What a tool returns: `{type:"object", properties}` (no `required`: every field is returned). */
export interface OutputSchema {
  type: "object";
  properties: Record<string, OutputSchemaProperty>;
}

export interface CatalogTool {
  id: string;
  name: string;
  description: string;
  inputSchema: InputSchema;
  /** What the tool returns (NESTFUL `output_parameters`); absent when the source does not say. */
  outputSchema?: OutputSchema;
  tags?: string[];
  examples?: string[];
  server?: string;
}

export interface CatalogCapability {
  id: string;
  name: string;
  description: string;
  tools: string[];
  dependsOn?: string[];
}

export interface Catalog {
  tools: CatalogTool[];
  capabilities: CatalogCapability[];
}

export interface TraceStep {
  tool: string;
  /** Index of the enclosing step (a step that contains this one). */
  parent?: number;
  /** Indices of earlier steps this one needs (data or control dependency). */
  dependsOn?: number[];
  success: boolean;
  durationMs?: number;
  at?: string;
}

export interface TraceRecord {
  id: string;
  user?: string;
  intent?: string;
  capability?: string;
  startedAt: string;
  success: boolean;
  steps: TraceStep[];
}

export type DeclaredEdgeType = "dependency" | "contains" | "provides" | "sequence";

export interface DeclaredEdge {
  from: string;
  to: string;
  type: DeclaredEdgeType;
  source?: "template" | "declared";
}

export type IndexEdge = [number, number];

export interface RetrievalCase {
  kind: "retrieval";
  id: string;
  query: string;
  relevant: string[];
}

export interface NextStepCase {
  kind: "next-step";
  id: string;
  query?: string;
  steps: string[];
  /** Partial order over `steps` (i before j). Absent: the order of `steps` is the only gold order. */
  edges?: IndexEdge[];
}

export interface DagCase {
  kind: "dag";
  id: string;
  query?: string;
  tools: string[];
  edges: IndexEdge[];
}

export interface CapabilityCase {
  kind: "capability";
  id: string;
  query: string;
  capability: string;
}

export type EvalCase = RetrievalCase | NextStepCase | DagCase | CapabilityCase;

// ---------------------------------------------------------------------------------------------
// Neutral instance and converted dataset
// ---------------------------------------------------------------------------------------------

export type DatasetName = "seal-tools" | "toollinkos" | "nestful";

/** One benchmark instance: a query and its gold workflow, tool ids already prefixed. */
export interface Instance {
  /** Dataset-prefixed, unique across all datasets (e.g. `seal:dev-easy-0`, `tlos:17`, `nestful:sgd-3`). */
  id: string;
  dataset: DatasetName;
  /** Source part: `dev`, `test_in_domain`, `test_out_domain`, `executable`, `glaive`, `sgd`, `instances`. */
  part: string;
  query: string;
  /** Tool ids in gold execution order; a tool used twice appears twice. */
  steps: string[];
  /** Gold dependency edges `[i, j]` (step i before step j); `steps` is a linear extension of them. */
  edges: IndexEdge[];
  /** Unique tool ids of the workflow (binary relevance for retrieval). */
  relevant: string[];
  /** True when `steps` order is only one linear extension of `edges` (ToolLinkOS); false for logged orders. */
  partialOrder: boolean;
  /** Gold capability id, when the dataset has capabilities. */
  capability?: string;
}

export interface ConvertedDataset {
  dataset: DatasetName;
  catalog: Catalog;
  /** Declared (catalog-knowledge) edges; empty when the dataset has none. */
  edges: DeclaredEdge[];
  /** Training executions (gold workflows of training instances). */
  traces: TraceRecord[];
  /** Evaluation cases by split name (e.g. `test_in_domain`, `test_out_domain`, `test`). */
  evaluation: Record<string, EvalCase[]>;
  trainInstances: Instance[];
  testInstances: Record<string, Instance[]>;
  /** Non-fatal findings while parsing (unresolved references, duplicate specs, stub tools...). */
  notes: string[];
}

// ---------------------------------------------------------------------------------------------
// Errors and paths
// ---------------------------------------------------------------------------------------------

export class ConvertError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(`convert: ${message}`);
    this.code = code;
    this.name = "ConvertError";
  }
}

/** `bench/data/`, resolved from this file. */
export const DATA_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "data");

// ---------------------------------------------------------------------------------------------
// Reading and writing
// ---------------------------------------------------------------------------------------------

export function readJsonFile(path: string): unknown {
  const text = readFileSync(path, "utf8");
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new ConvertError("bad-json", `${path} is not valid JSON: ${(err as Error).message}`);
  }
}

/** Reads a JSONL file; blank lines and CRLF endings are tolerated. `limit` keeps the first records. */
export function readJsonlFile(path: string, limit?: number): unknown[] {
  const out: unknown[] = [];
  const lines = readFileSync(path, "utf8")
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (limit !== undefined && out.length >= limit) break;
    const line = lines[i]!.trim();
    if (line === "") continue;
    try {
      out.push(JSON.parse(line));
    } catch (err) {
      throw new ConvertError("bad-jsonl", `${path}:${i + 1} is not valid JSON: ${(err as Error).message}`);
    }
  }
  return out;
}

export function toJsonl(rows: readonly unknown[]): string {
  return rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length > 0 ? "\n" : "");
}

/**
 * Writes a converted dataset to `dir`: `catalog.json`, `edges.jsonl`, `traces.jsonl` and one
 * `eval-<split>.jsonl` per evaluation split. Returns the written paths.
 */
export function writeConverted(ds: ConvertedDataset, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  const put = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    written.push(p);
  };
  put("catalog.json", JSON.stringify(ds.catalog, null, 1) + "\n");
  put("edges.jsonl", toJsonl(ds.edges));
  put("traces.jsonl", toJsonl(ds.traces));
  for (const [split, cases] of Object.entries(ds.evaluation)) put(`eval-${split}.jsonl`, toJsonl(cases));
  return written;
}

// ---------------------------------------------------------------------------------------------
// Schema helpers
// ---------------------------------------------------------------------------------------------

const TYPE_MAP: Record<string, string> = {
  str: "string",
  string: "string",
  text: "string",
  enum: "string",
  date: "string",
  int: "integer",
  integer: "integer",
  float: "number",
  double: "number",
  number: "number",
  bool: "boolean",
  boolean: "boolean",
  list: "array",
  array: "array",
  dict: "object",
  object: "object",
};

/**
 * Maps a dataset's parameter type spelling (`str`, `Int`, `Boolean`, `Date (yyyy-mm-dd)`, `dict`...) to a
 * JSON Schema type; unknown or missing spellings give `undefined` (the property then has no `type`).
 */
export function toJsonSchemaType(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  const key = raw.trim().toLowerCase();
  const direct = TYPE_MAP[key];
  if (direct !== undefined) return direct;
  const head = key.split(/[\s(]/)[0] ?? "";
  return TYPE_MAP[head];
}

export interface ParamSpec {
  name: string;
  type?: unknown;
  description?: unknown;
  required?: unknown;
  enum?: unknown;
}

/** Builds `{type:"object", properties, required}` from a parameter list (first spelling of a name wins). */
export function buildInputSchema(params: readonly ParamSpec[]): InputSchema {
  const properties: Record<string, JsonSchemaProperty> = {};
  const required: string[] = [];
  for (const p of params) {
    if (Object.hasOwn(properties, p.name)) continue;
    const prop: JsonSchemaProperty = {};
    const type = toJsonSchemaType(p.type);
    if (type !== undefined) prop.type = type;
    if (typeof p.description === "string" && p.description !== "") prop.description = p.description;
    if (Array.isArray(p.enum) && p.enum.length > 0) prop.enum = p.enum.slice();
    properties[p.name] = prop;
    if (p.required === true) required.push(p.name);
  }
  return { type: "object", properties, required };
}

/** Nesting kept in an output schema (deeper levels are cut). */
export const OUTPUT_SCHEMA_DEPTH = 4;

function outputProperty(raw: Record<string, unknown>, depth: number): OutputSchemaProperty {
  const prop: OutputSchemaProperty = {};
  const type = toJsonSchemaType(raw.type);
  if (type !== undefined) prop.type = type;
  if (typeof raw.description === "string" && raw.description !== "") prop.description = raw.description;
  const values = Array.isArray(raw.enum)
    ? raw.enum
    : Array.isArray(raw.possible_values)
      ? raw.possible_values
      : undefined;
  if (values !== undefined && values.length > 0) prop.enum = values.slice();
  if (depth < OUTPUT_SCHEMA_DEPTH && isRecord(raw.properties)) {
    const nested = outputProperties(raw.properties, depth + 1);
    if (Object.keys(nested).length > 0) prop.properties = nested;
  }
  if (depth < OUTPUT_SCHEMA_DEPTH && isRecord(raw.items)) prop.items = outputProperty(raw.items, depth + 1);
  return prop;
}

function outputProperties(fields: Record<string, unknown>, depth: number): Record<string, OutputSchemaProperty> {
  const out: Record<string, OutputSchemaProperty> = {};
  for (const [name, raw] of Object.entries(fields)) if (isRecord(raw)) out[name] = outputProperty(raw, depth);
  return out;
}

/**
 * Builds `{type:"object", properties}` from a spec's output field map (`{field: {type?, description?,
 * possible_values?|enum?, properties?, items?}}`, or a JSON-Schema object whose `properties` hold it).
 * Types are normalised like inputs, non-empty `possible_values` become `enum`, nesting is kept to
 * OUTPUT_SCHEMA_DEPTH levels. Undefined when there is no field (nothing known about the output).
 */
export function buildOutputSchema(fields: unknown): OutputSchema | undefined {
  if (!isRecord(fields)) return undefined;
  const container = isRecord(fields.properties) && fields.type === "object" ? fields.properties : fields;
  const properties = outputProperties(container, 1);
  return Object.keys(properties).length === 0 ? undefined : { type: "object", properties };
}

// ---------------------------------------------------------------------------------------------
// Workflow helpers
// ---------------------------------------------------------------------------------------------

/** Lower-cases and collapses white space; the key under which query texts are compared for leaks. */
export function normalizeQuery(q: string): string {
  return q.trim().toLowerCase().replace(/\s+/g, " ");
}

/** Unique values in first-seen order. */
export function uniqueInOrder<T>(items: Iterable<T>): T[] {
  return [...new Set(items)];
}

/** Sorted, deduplicated edge list without self-loops. */
export function normalizeEdges(edges: Iterable<IndexEdge>): IndexEdge[] {
  const seen = new Set<string>();
  const out: IndexEdge[] = [];
  for (const [i, j] of edges) {
    if (i === j) continue;
    const k = `${i},${j}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push([i, j]);
  }
  out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return out;
}

/**
 * Stable topological order of n items under `edges` (Kahn; among ready items the smallest `priority`
 * first, then the smallest index). Returns null when the edges contain a cycle.
 */
export function stableTopologicalOrder(
  n: number,
  edges: readonly IndexEdge[],
  priority: (i: number) => number = (i) => i,
): number[] | null {
  const indeg = new Array<number>(n).fill(0);
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const [i, j] of edges) {
    out[i]!.push(j);
    indeg[j]!++;
  }
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) ready.push(i);
  const order: number[] = [];
  const cmp = (a: number, b: number) => priority(a) - priority(b) || a - b;
  while (ready.length > 0) {
    ready.sort(cmp);
    const u = ready.shift()!;
    order.push(u);
    for (const v of out[u]!) {
      indeg[v]!--;
      if (indeg[v] === 0) ready.push(v);
    }
  }
  return order.length === n ? order : null;
}

/**
 * Reorders a workflow so that every edge points forward (stable: already-consistent workflows are
 * unchanged). Throws on a cyclic workflow.
 */
export function forwardOrder(
  steps: readonly string[],
  edges: readonly IndexEdge[],
  id: string,
): { steps: string[]; edges: IndexEdge[] } {
  if (edges.every(([i, j]) => i < j)) return { steps: steps.slice(), edges: normalizeEdges(edges) };
  const order = stableTopologicalOrder(steps.length, edges);
  if (order === null) throw new ConvertError("cyclic-workflow", `workflow ${id} has cyclic gold edges`);
  const pos = new Array<number>(steps.length);
  order.forEach((old, k) => {
    pos[old] = k;
  });
  return {
    steps: order.map((old) => steps[old]!),
    edges: normalizeEdges(edges.map(([i, j]) => [pos[i]!, pos[j]!] as IndexEdge)),
  };
}

/** Deterministic synthetic clock of converted traces: 2024-01-01T00:00:00Z + index minutes. */
export const TRACE_EPOCH_MS = Date.UTC(2024, 0, 1);

/** A gold workflow as a successful training execution; steps one second apart; `dependsOn` from edges. */
export function instanceToTrace(inst: Instance, index: number): TraceRecord {
  const start = TRACE_EPOCH_MS + index * 60_000;
  const preds: number[][] = inst.steps.map(() => []);
  for (const [i, j] of inst.edges) preds[j]!.push(i);
  const steps: TraceStep[] = inst.steps.map((tool, k) => {
    const step: TraceStep = { tool, success: true, at: new Date(start + k * 1000).toISOString() };
    const d = preds[k]!;
    if (d.length > 0) step.dependsOn = d.slice().sort((a, b) => a - b);
    return step;
  });
  const trace: TraceRecord = {
    id: inst.id,
    intent: inst.query,
    startedAt: new Date(start).toISOString(),
    success: true,
    steps,
  };
  if (inst.capability !== undefined) trace.capability = inst.capability;
  return trace;
}

/**
 * Evaluation cases of one instance: retrieval always; next-step and dag when the workflow has two or
 * more steps (next-step carries `edges` only for partial orders); capability when labelled.
 */
export function instanceToEvalCases(inst: Instance): EvalCase[] {
  const cases: EvalCase[] = [{ kind: "retrieval", id: inst.id, query: inst.query, relevant: inst.relevant.slice() }];
  if (inst.steps.length >= 2) {
    const next: NextStepCase = { kind: "next-step", id: inst.id, query: inst.query, steps: inst.steps.slice() };
    if (inst.partialOrder) next.edges = inst.edges.map(([i, j]) => [i, j] as IndexEdge);
    cases.push(next);
    cases.push({
      kind: "dag",
      id: inst.id,
      query: inst.query,
      tools: inst.steps.slice(),
      edges: inst.edges.map(([i, j]) => [i, j] as IndexEdge),
    });
  }
  if (inst.capability !== undefined) {
    cases.push({ kind: "capability", id: inst.id, query: inst.query, capability: inst.capability });
  }
  return cases;
}

/** Counts of evaluation cases per kind. */
export function countByKind(cases: readonly EvalCase[]): Record<EvalCase["kind"], number> {
  const c = { retrieval: 0, "next-step": 0, dag: 0, capability: 0 };
  for (const x of cases) c[x.kind]++;
  return c;
}

/** Walks every string inside a JSON value (arrays and objects included). */
export function forEachString(value: unknown, visit: (s: string) => void): void {
  if (typeof value === "string") visit(value);
  else if (Array.isArray(value)) for (const v of value) forEachString(v, visit);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) forEachString(v, visit);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
