/**
 * ToolLinkOS (EliasLumer/Graph-RAG-Tool-Fusion-ToolLinkOS, MIT) → toolgraph import formats.
 *
 * - Catalog ← `core_tools.json` + `regular_tools.json` (573 tools): id `tlos:<name>`, server `core` or
 *   `regular` (the files carry no industry), tags = [func_type].
 * - Declared edges ← `depends_on`: prerequisite → dependent, type `dependency`, source `template`
 *   (catalog knowledge, not training data). Repeated (tool, prerequisite) pairs keep one edge.
 * - Indirect edges (`*_INDIRECTLY_*`): the graph has 21 two-cycles, all between two INDIRECT edges
 *   (`get_wifi_status ↔ set_wifi_status`, `get_total_gdp_by_city ↔ get_gdp_per_capita_by_city`, ...).
 *   Declared edges follow `indirect` (default `keep`: all 1,494 distinct pairs, the two-cycles
 *   included, because the golden sets lie inside the transitive closure of the *full* graph —
 *   1,569/1,569 — and only 219 inside the closure once a direction is dropped; `break-two-cycles`:
 *   one direction per two-cycle, 1,473 edges; `drop-indirect`: DIRECT types only, 1,080 edges).
 *   Gold DAGs and step orders always use the two-cycle-broken set, which is acyclic on every golden
 *   set. `keepDirection`: a DIRECT edge over an INDIRECT one, else `get_*` before `set_*`, else
 *   `*total*` before `*per_capita*`, else the lexicographically smaller prerequisite first.
 * - Capabilities: one per regular tool (= the 523 main tools): the tool + the transitive closure of its
 *   prerequisites over all declared pairs (whatever `indirect` says), named after it; `dependsOn` = capabilities of its direct regular prerequisites.
 *   Built from the catalog only, so they hold no instance data.
 * - Instances ← `instances.json` (no official split → `seededSplit`, half train / half test): the
 *   golden set ordered topologically by the in-set edges (ties: golden-list order); `partialOrder`
 *   true, so next-step cases carry the edges; capability label `tlos:cap:<main_golden_function_name>`.
 */

import { join } from "node:path";
import { z } from "zod";
import type { CatalogCapability, CatalogTool, ConvertedDataset, DeclaredEdge, IndexEdge, Instance } from "./common.ts";
import {
  buildInputSchema,
  ConvertError,
  DATA_ROOT,
  instanceToEvalCases,
  instanceToTrace,
  readJsonFile,
  stableTopologicalOrder,
  uniqueInOrder,
} from "./common.ts";
import type { SplitOptions, SplitSizes } from "./split.ts";
import { assertNoLeak, seededSplit } from "./split.ts";

export const TLOS_PREFIX = "tlos:";
export const TLOS_CAPABILITY_PREFIX = "tlos:cap:";

export type IndirectPolicy = "keep" | "break-two-cycles" | "drop-indirect";

export interface ToolLinkOsOptions {
  /** Dataset root holding `toollinkos/`. Default `bench/data/toollinkos`. */
  dir?: string;
  /** Keep only the first `limit` instances (before the split). Default: all. */
  limit?: number;
  /** Split seed and fraction. Default `SPLIT_DEFAULTS`. */
  split?: SplitOptions;
  /** Which `depends_on` pairs become declared edges (see the header). Default `"keep"`. */
  indirect?: IndirectPolicy;
}

const TlosParam = z.looseObject({
  name: z.string().min(1),
  type: z.unknown().optional(),
  description: z.unknown().optional(),
  required: z.unknown().optional(),
});
const TlosDep = z.looseObject({
  name: z.string().min(1),
  dependence_type: z.string().default("TOOL_DIRECTLY_DEPENDS_ON"),
});
const TlosTool = z.looseObject({
  name: z.string().min(1),
  description: z.string().default(""),
  parameters: z.array(TlosParam).default([]),
  depends_on: z.array(TlosDep).default([]),
  func_type: z.string().optional(),
});
const TlosInstance = z.looseObject({
  user_query: z.string(),
  main_golden_function_name: z.string().min(1),
  golden_function_names: z.array(z.string().min(1)).min(1),
});

export type TlosToolRecord = z.infer<typeof TlosTool>;

/** A `depends_on` pair by tool name, oriented prerequisite → dependent. */
export interface TlosDependency {
  from: string;
  to: string;
  type: string;
}

function parseArray<T>(schema: z.ZodType<T>, raw: unknown, where: string): T[] {
  if (!Array.isArray(raw)) throw new ConvertError("bad-file", `${where} must be a JSON array`);
  return raw.map((r, i) => {
    const p = schema.safeParse(r);
    if (!p.success)
      throw new ConvertError(
        "bad-record",
        `${where}[${i}]: ${p.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; ")}`,
      );
    return p.data;
  });
}

export const isIndirect = (type: string) => type.includes("INDIRECTLY");

/** Which direction of a two-cycle a→b / b→a to keep (true: keep `a → b`). */
export function keepDirection(a: TlosDependency, b: TlosDependency): boolean {
  const ai = isIndirect(a.type);
  const bi = isIndirect(b.type);
  if (ai !== bi) return !ai;
  const getSet = (x: TlosDependency) => x.from.startsWith("get_") && x.to.startsWith("set_");
  if (getSet(a) !== getSet(b)) return getSet(a);
  const totalFirst = (x: TlosDependency) => x.from.includes("total") && x.to.includes("per_capita");
  if (totalFirst(a) !== totalFirst(b)) return totalFirst(a);
  return a.from < b.from;
}

/**
 * All dependency pairs of the catalog, oriented prerequisite → dependent: deduplicated (a DIRECT type
 * wins over INDIRECT for a repeated pair); unknown prerequisites and self-loops dropped (with a note).
 */
export function tlosDependencies(tools: readonly TlosToolRecord[]): { deps: TlosDependency[]; notes: string[] } {
  const names = new Set(tools.map((t) => t.name));
  const notes: string[] = [];
  const pairs = new Map<string, TlosDependency>();
  for (const t of tools) {
    for (const d of t.depends_on) {
      if (!names.has(d.name)) {
        notes.push(`tlos: ${t.name} depends on unknown tool ${d.name}`);
        continue;
      }
      if (d.name === t.name) continue;
      const key = `${d.name}\u0000${t.name}`;
      const prev = pairs.get(key);
      if (prev === undefined || (isIndirect(prev.type) && !isIndirect(d.dependence_type))) {
        pairs.set(key, { from: d.name, to: t.name, type: d.dependence_type });
      }
    }
  }
  return { deps: [...pairs.values()], notes };
}

/** Keeps one direction of every two-cycle a→b / b→a (rule of `keepDirection`); other edges unchanged. */
export function breakTwoCycles(deps: readonly TlosDependency[]): { kept: TlosDependency[]; dropped: TlosDependency[] } {
  const byKey = new Map(deps.map((d) => [`${d.from}\u0000${d.to}`, d]));
  const kept: TlosDependency[] = [];
  const dropped: TlosDependency[] = [];
  for (const d of deps) {
    const reverse = byKey.get(`${d.to}\u0000${d.from}`);
    (reverse !== undefined && !keepDirection(d, reverse) ? dropped : kept).push(d);
  }
  return { kept, dropped };
}

/** The declared-edge set under a policy (see the header). */
export function applyIndirectPolicy(deps: readonly TlosDependency[], policy: IndirectPolicy): TlosDependency[] {
  if (policy === "keep") return deps.slice();
  if (policy === "drop-indirect") return deps.filter((d) => !isIndirect(d.type));
  return breakTwoCycles(deps).kept;
}

export function tlosToolToCatalog(t: TlosToolRecord): CatalogTool {
  const kind = t.func_type ?? "regular";
  return {
    id: TLOS_PREFIX + t.name,
    name: t.name,
    description: t.description,
    inputSchema: buildInputSchema(t.parameters),
    tags: [kind],
    server: kind === "core" ? "core" : "regular",
  };
}

/** Prerequisites of each tool (by name) under the given dependencies. */
function prerequisiteMap(deps: readonly TlosDependency[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const d of deps) {
    const l = m.get(d.to);
    if (l === undefined) m.set(d.to, [d.from]);
    else l.push(d.from);
  }
  return m;
}

/** Tool names reachable backwards from `name` (its transitive prerequisites), BFS order, excluding it. */
export function prerequisiteClosure(name: string, prereqs: ReadonlyMap<string, readonly string[]>): string[] {
  const seen = new Set([name]);
  const out: string[] = [];
  const queue = [name];
  for (let h = 0; h < queue.length; h++) {
    for (const p of prereqs.get(queue[h]!) ?? []) {
      if (seen.has(p)) continue;
      seen.add(p);
      out.push(p);
      queue.push(p);
    }
  }
  return out;
}

export function tlosCapabilities(
  tools: readonly TlosToolRecord[],
  deps: readonly TlosDependency[],
): CatalogCapability[] {
  const prereqs = prerequisiteMap(deps);
  const regular = new Set(tools.filter((t) => (t.func_type ?? "regular") !== "core").map((t) => t.name));
  const caps: CatalogCapability[] = [];
  for (const t of tools) {
    if (!regular.has(t.name)) continue;
    const cap: CatalogCapability = {
      id: TLOS_CAPABILITY_PREFIX + t.name,
      name: t.name,
      description: t.description,
      tools: [t.name, ...prerequisiteClosure(t.name, prereqs)].map((n) => TLOS_PREFIX + n),
    };
    const dependsOn = uniqueInOrder(prereqs.get(t.name) ?? [])
      .filter((p) => regular.has(p))
      .map((p) => TLOS_CAPABILITY_PREFIX + p);
    if (dependsOn.length > 0) cap.dependsOn = dependsOn;
    caps.push(cap);
  }
  // The catalog rejects capability dependsOn cycles (ToolLinkOS has a few, e.g. total GDP ↔ GDP per capita):
  // keep each capability's prerequisites in catalog order, dropping one that would close a cycle.
  const kept = new Map<string, string[]>();
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const v = stack.pop()!;
      if (v === to) return true;
      if (seen.has(v)) continue;
      seen.add(v);
      stack.push(...(kept.get(v) ?? []));
    }
    return false;
  };
  for (const cap of caps) {
    const list: string[] = [];
    kept.set(cap.id, list);
    for (const d of cap.dependsOn ?? []) if (!reaches(d, cap.id)) list.push(d);
    if (cap.dependsOn) {
      if (list.length > 0) cap.dependsOn = list;
      else delete cap.dependsOn;
    }
  }
  return caps;
}

/**
 * One instance record → neutral instance `tlos:<index>`: steps in a topological order of the golden set
 * under `deps` (pass the two-cycle-broken set), ties by golden-list order.
 */
export function parseTlosInstance(raw: unknown, index: number, deps: readonly TlosDependency[]): Instance {
  const p = TlosInstance.safeParse(raw);
  if (!p.success)
    throw new ConvertError(
      "bad-record",
      `toollinkos instance ${index}: ${p.error.issues.map((x) => x.message).join("; ")}`,
    );
  const r = p.data;
  const golden = uniqueInOrder([...r.golden_function_names, r.main_golden_function_name]);
  const pos = new Map(golden.map((g, i) => [g, i]));
  const local: IndexEdge[] = [];
  for (const d of deps) {
    const i = pos.get(d.from);
    const j = pos.get(d.to);
    if (i !== undefined && j !== undefined) local.push([i, j]);
  }
  const id = `${TLOS_PREFIX}${index}`;
  const order = stableTopologicalOrder(golden.length, local);
  if (order === null) throw new ConvertError("cyclic-workflow", `${id}: golden set has a dependency cycle`);
  const newPos = new Array<number>(golden.length);
  order.forEach((old, k) => {
    newPos[old] = k;
  });
  const edges = local.map(([i, j]) => [newPos[i]!, newPos[j]!] as IndexEdge).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return {
    id,
    dataset: "toollinkos",
    part: "instances",
    query: r.user_query,
    steps: order.map((old) => TLOS_PREFIX + golden[old]!),
    edges,
    relevant: golden.map((g) => TLOS_PREFIX + g),
    partialOrder: true,
    capability: TLOS_CAPABILITY_PREFIX + r.main_golden_function_name,
  };
}

export interface ToolLinkOsConverted extends ConvertedDataset {
  splitSizes: SplitSizes;
}

/** Reads and converts ToolLinkOS; the seeded split is verified leak-free (throws `LeakError` otherwise). */
export function convertToolLinkOs(options: ToolLinkOsOptions = {}): ToolLinkOsConverted {
  const root = join(options.dir ?? join(DATA_ROOT, "toollinkos"), "toollinkos");
  const policy = options.indirect ?? "keep";
  const toolRecords = [
    ...parseArray(TlosTool, readJsonFile(join(root, "core_tools.json")), "core_tools.json"),
    ...parseArray(TlosTool, readJsonFile(join(root, "regular_tools.json")), "regular_tools.json"),
  ];
  const notes: string[] = [];
  const seen = new Set<string>();
  const unique = toolRecords.filter((t) => {
    if (seen.has(t.name)) {
      notes.push(`tlos: duplicate tool ${t.name} skipped`);
      return false;
    }
    seen.add(t.name);
    return true;
  });
  const { deps, notes: depNotes } = tlosDependencies(unique);
  notes.push(...depNotes);
  const { kept: acyclic, dropped } = breakTwoCycles(deps);
  for (const d of dropped) notes.push(`tlos: two-cycle ${d.from} <-> ${d.to}: gold orders ignore ${d.from} -> ${d.to}`);
  const tools = unique.map(tlosToolToCatalog);
  const capabilities = tlosCapabilities(unique, deps);
  const edges: DeclaredEdge[] = applyIndirectPolicy(deps, policy).map((d) => ({
    from: TLOS_PREFIX + d.from,
    to: TLOS_PREFIX + d.to,
    type: "dependency",
    source: "template",
  }));

  const rawInstances = readJsonFile(join(root, "instances.json"));
  if (!Array.isArray(rawInstances)) throw new ConvertError("bad-file", "instances.json must be a JSON array");
  const kept = options.limit === undefined ? rawInstances : rawInstances.slice(0, options.limit);
  const instances = kept.map((raw, i) => parseTlosInstance(raw, i, acyclic));
  for (const inst of instances)
    for (const s of inst.relevant)
      if (!seen.has(s.slice(TLOS_PREFIX.length))) notes.push(`${inst.id}: tool ${s} not in catalog`);

  const split = seededSplit(instances, options.split);
  const traces = split.train.map((inst, k) => instanceToTrace(inst, k));
  assertNoLeak(traces, split.test);
  return {
    dataset: "toollinkos",
    catalog: { tools, capabilities },
    edges,
    traces,
    evaluation: { test: split.test.flatMap(instanceToEvalCases) },
    trainInstances: split.train,
    testInstances: { test: split.test },
    notes,
    splitSizes: split.sizes,
  };
}
