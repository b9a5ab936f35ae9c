/**
 * Seal-Tools (fairyshine/Seal-Tools, Apache-2.0) → toolgraph import formats.
 *
 * - Catalog ← `tool.jsonl`: id `seal:<api_name>`, server = top-level `field` (before "/"), tags = the
 *   sub-field(s); parameters dict + `required` list → JSON Schema.
 * - Instances ← `dev.jsonl` (training traces), `test_in_domain.jsonl` and `test_out_domain.jsonl`
 *   (two evaluation splits, reported separately). Steps = `calling[*].api` in utterance order.
 * - Gold edges: `[i, j]` when a string inside call j's `parameters` contains a label `API_call_k` that
 *   call i lists in `responses` (also `API_call_k['field']`, `"API_call_0 response"`). One test
 *   instance (test_out_domain-difficult-241) references a *later* call's label; its steps are
 *   reordered stably so that every edge points forward (104 edges over 85 instances in the full data).
 * - No capabilities, no declared edges. Next-step cases use the logged order (no `edges`).
 */

import { join } from "node:path";
import { z } from "zod";
import type { CatalogTool, ConvertedDataset, IndexEdge, Instance } from "./common.ts";
import {
  buildInputSchema,
  ConvertError,
  DATA_ROOT,
  forEachString,
  forwardOrder,
  instanceToEvalCases,
  instanceToTrace,
  readJsonlFile,
  uniqueInOrder,
} from "./common.ts";
import { assertNoLeak } from "./split.ts";

export const SEAL_PREFIX = "seal:";
export const SEAL_TRAIN_PART = "dev";
export const SEAL_TEST_PARTS = ["test_in_domain", "test_out_domain"] as const;

export interface SealToolsOptions {
  /** Dataset root holding `Seal-Tools_Dataset/`. Default `bench/data/seal-tools`. */
  dir?: string;
  /** Keep only the first `limit` records of each instance file (the catalog is always complete). Default: all. */
  limit?: number;
}

const ParamSchema = z.looseObject({ type: z.unknown().optional(), description: z.unknown().optional() });

const SealToolRecord = z.looseObject({
  api_name: z.string().min(1),
  api_description: z.string().default(""),
  field: z.string().default(""),
  parameters: z.record(z.string(), ParamSchema).default({}),
  required: z.array(z.string()).default([]),
});

const SealCall = z.looseObject({
  api: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()).default({}),
  responses: z.array(z.string()).default([]),
});

const SealInstanceRecord = z.looseObject({
  id: z.string().min(1),
  query: z.string(),
  calling: z.array(SealCall),
});

export type SealCallRecord = z.infer<typeof SealCall>;

function parseWith<T>(schema: z.ZodType<T>, raw: unknown, where: string): T {
  const r = schema.safeParse(raw);
  if (!r.success)
    throw new ConvertError(
      "bad-record",
      `${where}: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return r.data;
}

/** One `tool.jsonl` record → catalog tool. */
export function sealToolToCatalog(raw: unknown): CatalogTool {
  const t = parseWith(SealToolRecord, raw, "seal-tools tool");
  const required = new Set(t.required);
  const params = Object.entries(t.parameters).map(([name, p]) => ({
    name,
    type: p.type,
    description: p.description,
    required: required.has(name),
  }));
  const parts = t.field
    .split("/")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const tool: CatalogTool = {
    id: SEAL_PREFIX + t.api_name,
    name: t.api_name,
    description: t.api_description,
    inputSchema: buildInputSchema(params),
  };
  if (parts.length > 0) tool.server = parts[0]!;
  if (parts.length > 1) tool.tags = parts.slice(1);
  return tool;
}

const LABEL_RE = /API_call_\d+(?!\d)/g;

/**
 * Data-flow edges of a `calling` list: `[i, j]` when call j's parameters mention a response label of
 * call i. Unresolvable labels and self-references are ignored. Edges may point backwards (i > j).
 */
export function sealCallingEdges(calling: readonly SealCallRecord[]): IndexEdge[] {
  const producer = new Map<string, number>();
  calling.forEach((c, i) => {
    for (const label of c.responses) if (!producer.has(label)) producer.set(label, i);
  });
  const edges: IndexEdge[] = [];
  calling.forEach((c, j) => {
    forEachString(c.parameters, (s) => {
      for (const m of s.matchAll(LABEL_RE)) {
        const i = producer.get(m[0]);
        if (i !== undefined && i !== j) edges.push([i, j]);
      }
    });
  });
  return edges;
}

/** One instance record → neutral instance (`seal:<id>`), steps reordered only if an edge points back. */
export function parseSealInstance(raw: unknown, part: string): Instance {
  const r = parseWith(SealInstanceRecord, raw, `seal-tools ${part} instance`);
  const id = SEAL_PREFIX + r.id;
  const { steps, edges } = forwardOrder(
    r.calling.map((c) => SEAL_PREFIX + c.api),
    sealCallingEdges(r.calling),
    id,
  );
  return {
    id,
    dataset: "seal-tools",
    part,
    query: r.query,
    steps,
    edges,
    relevant: uniqueInOrder(steps),
    partialOrder: false,
  };
}

/** Reads and converts Seal-Tools; verifies the official split is leak-free (throws `LeakError` otherwise). */
export function convertSealTools(options: SealToolsOptions = {}): ConvertedDataset {
  const root = join(options.dir ?? join(DATA_ROOT, "seal-tools"), "Seal-Tools_Dataset");
  const notes: string[] = [];
  const tools: CatalogTool[] = [];
  const ids = new Set<string>();
  for (const raw of readJsonlFile(join(root, "tool.jsonl"))) {
    const t = sealToolToCatalog(raw);
    if (ids.has(t.id)) {
      notes.push(`duplicate tool ${t.id} skipped`);
      continue;
    }
    ids.add(t.id);
    tools.push(t);
  }
  const load = (part: string) =>
    readJsonlFile(join(root, `${part}.jsonl`), options.limit).map((raw) => {
      const inst = parseSealInstance(raw, part);
      for (const s of inst.steps) if (!ids.has(s)) notes.push(`${inst.id}: tool ${s} not in catalog`);
      return inst;
    });
  const trainInstances = load(SEAL_TRAIN_PART);
  const traces = trainInstances.map((inst, k) => instanceToTrace(inst, k));
  const testInstances: Record<string, Instance[]> = {};
  const evaluation: ConvertedDataset["evaluation"] = {};
  for (const part of SEAL_TEST_PARTS) {
    const insts = load(part);
    assertNoLeak(traces, insts);
    testInstances[part] = insts;
    evaluation[part] = insts.flatMap(instanceToEvalCases);
  }
  return {
    dataset: "seal-tools",
    catalog: { tools, capabilities: [] },
    edges: [],
    traces,
    evaluation,
    trainInstances,
    testInstances,
    notes,
  };
}
