/**
 * NESTFUL v1 (IBM/NESTFUL @ 053cbde, Apache-2.0; the 300-sample release) → toolgraph import formats.
 *
 * - Catalog ← the three `*-spec.json` files (executable / glaive / sgd): id `nestful:<name>`, server =
 *   the API prefix before the first "." (`RentalCars.GetCarsAvailable` → `RentalCars`), otherwise the
 *   subset name; tags = [subset]. Parameters are read from every spelling found in the specs:
 *   `query_parameters` and `path_parameters` (executable), `query_parameters` or `parameters` (Glaive),
 *   `arguments` (SGD, with `allowed_values` → `enum`). Identical duplicate specs are kept once.
 *   `output_parameters` → `outputSchema` (`buildOutputSchema`: types normalised, non-empty
 *   `possible_values` → `enum`, nested `properties`/`items` kept); an empty map gives no outputSchema.
 *   Tools called in samples but absent from every spec (7 Glaive names) get a stub entry tagged `stub`
 *   whose description is the name in words and whose properties are the argument names of the call.
 * - Instances ← `*-data.json`: steps = `output[*].name` without the `var_result` sink; edge `[i, j]`
 *   when a string in call j's `arguments` contains `$<label_i>` followed by `.`, `$` or `[`
 *   (`$var1.skyId$`, `$var1$`, `"5 * $var1.Exchange Rate$"`). A label that is reused refers to the most
 *   recent earlier call carrying it. No official split → `seededSplit` (half train / half test).
 *   Next-step cases use the logged order (no `edges`); dag cases carry the data-flow edges.
 */

import { join } from "node:path";
import { z } from "zod";
import type { CatalogTool, ConvertedDataset, IndexEdge, Instance, ParamSpec } from "./common.ts";
import {
  buildInputSchema,
  buildOutputSchema,
  ConvertError,
  DATA_ROOT,
  forEachString,
  forwardOrder,
  instanceToEvalCases,
  instanceToTrace,
  isRecord,
  readJsonFile,
  uniqueInOrder,
} from "./common.ts";
import type { SplitOptions, SplitSizes } from "./split.ts";
import { assertNoLeak, seededSplit } from "./split.ts";

export const NESTFUL_PREFIX = "nestful:";
export const NESTFUL_SINK = "var_result";

export const NESTFUL_SUBSETS = [
  { name: "executable", data: "data/executable/executable-data.json", spec: "data/executable/executable-spec.json" },
  {
    name: "glaive",
    data: "data/non-executable/non-executable-glaive-data.json",
    spec: "data/non-executable/non-executable-glaive-spec.json",
  },
  {
    name: "sgd",
    data: "data/non-executable/non-executable-sgd-data.json",
    spec: "data/non-executable/non-executable-sgd-spec.json",
  },
] as const;

export interface NestfulOptions {
  /** Dataset root holding `data/`. Default `bench/data/nestful`. */
  dir?: string;
  /** Keep only the first `limit` samples of each subset (before the split). Default: all. */
  limit?: number;
  /** Split seed and fraction. Default `SPLIT_DEFAULTS`. */
  split?: SplitOptions;
}

/** Parameter containers of a spec, in the order they are read. */
export const NESTFUL_PARAM_FIELDS = ["query_parameters", "path_parameters", "parameters", "arguments"] as const;

const Spec = z.looseObject({ name: z.string().min(1), description: z.string().default("") });
const Call = z.looseObject({
  name: z.string().min(1),
  arguments: z.unknown().optional(),
  label: z.string().optional(),
});
const Sample = z.looseObject({ input: z.string(), output: z.array(Call) });

export type NestfulCall = z.infer<typeof Call>;

function specParams(raw: Record<string, unknown>): ParamSpec[] {
  const out: ParamSpec[] = [];
  for (const field of NESTFUL_PARAM_FIELDS) {
    const container = raw[field];
    if (!isRecord(container)) continue;
    // A JSON-Schema-shaped container ({type:"object", properties, required:[...]}) is unwrapped too.
    const props = isRecord(container.properties) ? container.properties : container;
    const req = Array.isArray(container.required) ? new Set(container.required) : undefined;
    for (const [name, p] of Object.entries(props)) {
      if (!isRecord(p)) continue;
      const allowed = Array.isArray(p.enum) ? p.enum : Array.isArray(p.allowed_values) ? p.allowed_values : undefined;
      out.push({
        name,
        type: p.type,
        description: p.description,
        required: req ? req.has(name) : p.required === true,
        enum: allowed,
      });
    }
  }
  return out;
}

export function nestfulServer(name: string, subset: string): string {
  const dot = name.indexOf(".");
  return dot > 0 ? name.slice(0, dot) : subset;
}

/** One spec record → catalog tool. */
export function nestfulSpecToTool(raw: unknown, subset: string): CatalogTool {
  const p = Spec.safeParse(raw);
  if (!p.success || !isRecord(raw))
    throw new ConvertError(
      "bad-record",
      `nestful ${subset} spec: ${p.success ? "not an object" : p.error.issues.map((x) => x.message).join("; ")}`,
    );
  const outputSchema = buildOutputSchema(raw.output_parameters);
  return {
    id: NESTFUL_PREFIX + p.data.name,
    name: p.data.name,
    description: p.data.description,
    inputSchema: buildInputSchema(specParams(raw)),
    ...(outputSchema ? { outputSchema } : {}),
    tags: [subset],
    server: nestfulServer(p.data.name, subset),
  };
}

/** `get_news_headlines` / `SearchHotels` → "get news headlines" / "search hotels". */
export function humanizeName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[._-]+/g, " ")
    .trim()
    .toLowerCase();
}

function stubTool(name: string, subset: string, argNames: readonly string[]): CatalogTool {
  return {
    id: NESTFUL_PREFIX + name,
    name,
    description: humanizeName(name),
    inputSchema: buildInputSchema(argNames.map((n) => ({ name: n }))),
    tags: [subset, "stub"],
    server: nestfulServer(name, subset),
  };
}

const REF_RE = /\$([A-Za-z_][A-Za-z0-9_]*)(?=[.$[])/g;

/**
 * Data-flow edges among calls (sink already removed): `[i, j]` when call j's arguments reference the
 * label of call i, a label resolving to the most recent earlier call that carries it. Returns the edges
 * and the references that resolved to nothing.
 */
export function nestfulCallEdges(calls: readonly NestfulCall[]): { edges: IndexEdge[]; unresolved: string[] } {
  const last = new Map<string, number>();
  const edges: IndexEdge[] = [];
  const unresolved: string[] = [];
  calls.forEach((c, j) => {
    forEachString(c.arguments, (s) => {
      for (const m of s.matchAll(REF_RE)) {
        const i = last.get(m[1]!);
        if (i === undefined) unresolved.push(m[1]!);
        else edges.push([i, j]);
      }
    });
    if (c.label !== undefined && c.label !== "") last.set(c.label, j);
  });
  return { edges, unresolved };
}

/** One sample → neutral instance `nestful:<subset>-<index>`. `notes` receives unresolved references. */
export function parseNestfulSample(
  raw: unknown,
  subset: string,
  index: number,
  notes: string[] = [],
): Instance & { calls: NestfulCall[] } {
  const p = Sample.safeParse(raw);
  const id = `${NESTFUL_PREFIX}${subset}-${index}`;
  if (!p.success)
    throw new ConvertError(
      "bad-record",
      `${id}: ${p.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; ")}`,
    );
  const calls = p.data.output.filter((c) => c.name.trim().toLowerCase() !== NESTFUL_SINK);
  const { edges: raw_edges, unresolved } = nestfulCallEdges(calls);
  for (const u of unresolved) notes.push(`${id}: reference $${u} resolves to no earlier call`);
  const { steps, edges } = forwardOrder(
    calls.map((c) => NESTFUL_PREFIX + c.name),
    raw_edges,
    id,
  );
  return {
    id,
    dataset: "nestful",
    part: subset,
    query: p.data.input,
    steps,
    edges,
    relevant: uniqueInOrder(steps),
    partialOrder: false,
    calls,
  };
}

export interface NestfulConverted extends ConvertedDataset {
  splitSizes: SplitSizes;
}

/** Reads and converts NESTFUL; the seeded split is verified leak-free (throws `LeakError` otherwise). */
export function convertNestful(options: NestfulOptions = {}): NestfulConverted {
  const root = options.dir ?? join(DATA_ROOT, "nestful");
  const notes: string[] = [];
  const tools: CatalogTool[] = [];
  const byId = new Map<string, string>();
  const instances: Instance[] = [];
  const stubs = new Map<string, CatalogTool>();
  const pendingCalls: { subset: string; call: NestfulCall }[] = [];
  for (const sub of NESTFUL_SUBSETS) {
    const specs = readJsonFile(join(root, sub.spec));
    if (!Array.isArray(specs)) throw new ConvertError("bad-file", `${sub.spec} must be a JSON array`);
    for (const raw of specs) {
      const t = nestfulSpecToTool(raw, sub.name);
      const text = JSON.stringify(raw);
      const prev = byId.get(t.id);
      if (prev !== undefined) {
        notes.push(
          `nestful: ${prev === text ? "identical" : "differing"} duplicate spec ${t.name} in ${sub.name} skipped`,
        );
        continue;
      }
      byId.set(t.id, text);
      tools.push(t);
    }
    const data = readJsonFile(join(root, sub.data));
    if (!Array.isArray(data)) throw new ConvertError("bad-file", `${sub.data} must be a JSON array`);
    const kept = options.limit === undefined ? data : data.slice(0, options.limit);
    kept.forEach((raw, i) => {
      const { calls, ...inst } = parseNestfulSample(raw, sub.name, i, notes);
      instances.push(inst);
      for (const call of calls) pendingCalls.push({ subset: sub.name, call });
    });
  }
  for (const { subset, call } of pendingCalls) {
    const id = NESTFUL_PREFIX + call.name;
    if (byId.has(id) || stubs.has(id)) continue;
    const args = isRecord(call.arguments) ? Object.keys(call.arguments) : [];
    stubs.set(id, stubTool(call.name, subset, args));
    notes.push(`nestful: tool ${call.name} (${subset}) has no spec; stub added`);
  }
  tools.push(...stubs.values());

  const split = seededSplit(instances, options.split);
  const traces = split.train.map((inst, k) => instanceToTrace(inst, k));
  assertNoLeak(traces, split.test);
  return {
    dataset: "nestful",
    catalog: { tools, capabilities: [] },
    edges: [],
    traces,
    evaluation: { test: split.test.flatMap(instanceToEvalCases) },
    trainInstances: split.train,
    testInstances: { test: split.test },
    notes,
    splitSizes: split.sizes,
  };
}
