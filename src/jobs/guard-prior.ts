/**
 * The history guard's default strength for a project before (or without) a fitted one: the paired scores of
 * algorithms/search/guard-prior.ts measured on the project's own history, and the near-duplicate groups of
 * its past requests (shared with the search-weight fit).
 *
 *   sample   one successful past execution per intent group (algorithms/evaluation/intent-groups.ts), up to
 *            maxGroups (100) groups, in the order of a seeded hash of the execution id (independent of the
 *            storage order);
 *   memory   AP@10 of the tools ranked by the intent memory's votes with every execution of the request's own
 *            group left out (what the history says about a request it has not seen);
 *   content  AP@10 of the content channel alone (β default, μ 0, graph 0): what the descriptions say;
 *   γ₀       guardPrior(memory, content) (algorithms/search/guard-prior.ts).
 *
 * Computed on the first search after the history has grown by a quarter (or from nothing), awaited by that
 * search (about one recall and one content search per sampled group, yielding to the event loop between
 * them), and kept per engine and project until the history grows by a quarter again. Why:
 * docs/decisions/history-guard.md.
 *
 * Kept across processes too, in an embedded data directory's cache (view.shared), keyed by the project's graph
 * version, its executions, its catalog's texts and embedding model (catalogKey) and the package version: a
 * later process (a CLI call) at the same graph version reads it instead of measuring
 * (docs/decisions/everyday-budget.md). Written only from a measurement made on a snapshot loaded whole (no
 * record patched in) with a clean memory and fresh analytics, which is what a new process measures there.
 */
import { fnv1a, type IntentGroups, intentGroupsSteps } from "../../algorithms/evaluation/intent-groups.ts";
import { averagePrecisionAtK } from "../../algorithms/evaluation/retrieval-metrics.ts";
import { type GuardPrior, guardPrior } from "../../algorithms/search/guard-prior.ts";
import { drainInSlices, slicer, yieldToEventLoop } from "../view/background.ts";
import { type MemoryIndex, memoryRow } from "../view/intent-memory.ts";
import { catalogKey } from "../view/search-index.ts";
import type { ProjectView } from "../view/project-view.ts";
import { VERSION } from "../version.ts";
import { readyToolCoherence, searchCandidates } from "./search-scoring.ts";
import { DEFAULT_SEARCH_WEIGHTS, heldOutSignals } from "./search-weights.ts";

export const GUARD_PRIOR_DEFAULTS = {
  /** Most intent groups sampled. */
  maxGroups: 100,
  /** Growth of the history (executions) after which the prior is measured again. */
  regrowth: 1.25,
} as const;

/** Rows of the memory index with at least one successful step. */
export function successfulRows(memory: MemoryIndex): number[] {
  const { stepOffsets, stepSuccess } = memory.rows;
  const rows: number[] = [];
  for (let i = 0; i < memory.rows.length; i++) {
    let anySuccess = false;
    for (let k = stepOffsets[i]!; k < stepOffsets[i + 1]! && !anySuccess; k++) anySuccess = stepSuccess[k] === 1;
    if (anySuccess) rows.push(i);
  }
  return rows;
}

/** Near-duplicate groups of the rows, computed on their distinct (intent text, successful tool set) pairs. */
export function rowGroups(memory: MemoryIndex, rows: readonly number[]): { group: Int32Array; groups: IntentGroups } {
  const steps = rowGroupsSteps(memory, rows);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** `rowGroups` in steps: yields every 500 rows and inside the grouping (drained in slices by its callers). */
export function* rowGroupsSteps(
  memory: MemoryIndex,
  rows: readonly number[],
): Generator<void, { group: Int32Array; groups: IntentGroups }, void> {
  const { stepOffsets, stepSuccess, stepTool } = memory.rows;
  const itemOf = new Map<string, number>();
  const items: { intent: string; tools: string[] }[] = [];
  const itemOfRow = new Int32Array(rows.length);
  for (let j = 0; j < rows.length; j++) {
    if (j > 0 && j % 500 === 0) yield;
    const r = rows[j]!;
    const tools: string[] = [];
    for (let k = stepOffsets[r]!; k < stepOffsets[r + 1]!; k++)
      if (stepSuccess[k] === 1) tools.push(memory.rows.stepTools[stepTool[k]!]!);
    const toolKey = [...new Set(tools)].sort().join("\u0000");
    const key = `${memory.textOf[r]}\u0001${toolKey}`;
    let item = itemOf.get(key);
    if (item === undefined) {
      item = items.length;
      itemOf.set(key, item);
      items.push({ intent: memory.texts[memory.textOf[r]!]!, tools });
    }
    itemOfRow[j] = item;
  }
  const groups = yield* intentGroupsSteps(items);
  return { group: Int32Array.from(itemOfRow, (it) => groups.group[it]!), groups };
}

/** The groups' sample: one row per group, in the order of a seeded hash of the execution id (ties by id). */
function sampleOnePerGroup(
  memory: MemoryIndex,
  rows: readonly number[],
  groupOfRow: Int32Array,
  max: number,
): number[] {
  const ids = rows.map((r) => memory.rows.ids[r]!);
  const hash = ids.map((id) => fnv1a(`1\u0000${id}`));
  const order = rows
    .map((_, j) => j)
    .sort((x, y) => hash[x]! - hash[y]! || (ids[x]! < ids[y]! ? -1 : ids[x]! > ids[y]! ? 1 : 0));
  const taken = new Set<number>();
  const out: number[] = [];
  for (const j of order) {
    if (out.length >= max) break;
    if (taken.has(groupOfRow[j]!)) continue;
    taken.add(groupOfRow[j]!);
    out.push(j);
  }
  return out;
}

/** Measures the prior on the project's history now (see the header). */
export async function measureGuardPrior(view: ProjectView): Promise<GuardPrior> {
  const memory = await view.memory();
  const rows = successfulRows(memory);
  if (rows.length === 0) return guardPrior([], []);
  const { group: groupOfRow, groups } = await drainInSlices(rowGroupsSteps(memory, rows));
  if (groups.count < 2) return guardPrior([], []);
  const picked = sampleOnePerGroup(memory, rows, groupOfRow, GUARD_PRIOR_DEFAULTS.maxGroups);
  const membersOf = new Map<number, number[]>();
  rows.forEach((r, j) => {
    const g = groupOfRow[j]!;
    const list = membersOf.get(g);
    if (list) list.push(r);
    else membersOf.set(g, [r]);
  });
  const s = view.snapshot;
  const a = view.analytics();
  const idx = await view.searchIndex();
  // The ranking's per-analytics state in slices, before the first search would compute it in one piece.
  await readyToolCoherence(s, a, idx);
  let maxSucc = 0;
  for (let i = 0; i < s.n; i++) maxSucc = Math.max(maxSucc, s.successes[i]!);
  const batch = picked.map((j) => ({ j, row: memoryRow(memory, rows[j]!) }));
  // The memory stored these intents' vectors (by text hash): read back; one never stored is embedded, not stored (a read
  // such as search or stats triggers this measurement and must write nothing).
  const vs = await view.embeddingsReadOnly(batch.map((b) => b.row.intent));
  const mem: number[] = [];
  const content: number[] = [];
  const slice = slicer();
  for (const [b, { j, row }] of batch.entries()) {
    const relevant = new Set(row.steps.filter((st) => st.success).map((st) => st.tool));
    const members = membersOf.get(groupOfRow[j]!)!;
    const unseen = await view.recall(row.intent, vs[b]!, {
      excludeIds: new Set(members.map((r) => memory.rows.ids[r]!)),
    });
    // A recall and a search are each up to tens of ms: a turn of the event loop between them.
    await yieldToEventLoop();
    // The group's own executions left out of the usage counts too: its tools answer as if never run (as the
    // search-weight fit's unseen mode does, search-weights.ts heldOutSignals).
    const held = heldOutSignals(
      s,
      a.analytics.pagerank,
      members.flatMap((r) => memoryRow(memory, r).steps),
      maxSucc,
    );
    const votes = [...(unseen.toolVotes ?? new Map<number, number>())]
      .map(([i, v]) => [s.tools[i]!.id, v] as const)
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, 10)
      .map(([t]) => t);
    mem.push(averagePrecisionAtK(votes, relevant, 10));
    const hits = searchCandidates(s, a, idx, row.intent, vs[b]!, {
      beta: DEFAULT_SEARCH_WEIGHTS.beta,
      memoryWeight: 0,
      contentWeight: 1,
      graphWeight: 0,
      global: held.global,
      executions: held.executions,
      top: 10,
    }).map((h) => s.tools[h.index]!.id);
    content.push(averagePrecisionAtK(hits, relevant, 10));
    await slice();
  }
  return guardPrior(mem, content);
}

/**
 * The project's prior, measured again when its history has grown by GUARD_PRIOR_DEFAULTS.regrowth since the
 * last measurement (concurrent callers share one measurement; kept on the engine across graph versions).
 */
export async function guardPriorFor(view: ProjectView): Promise<GuardPrior> {
  // While the catalog is embedded and answers come at once (whileEmbedding "lexical"), the measurement would wait
  // for the model (the intents' vectors, the full index): the prior without evidence answers meanwhile.
  if (!view.embeddingLive()) return guardPrior([], []);
  const memory = await view.memory();
  const slot = view.projectMemo<{ executions: number; prior: Promise<GuardPrior> }>("guard prior");
  const cached = slot.get();
  const n = memory.rows.length;
  if (
    cached &&
    n >= cached.executions &&
    n < Math.max(cached.executions * GUARD_PRIOR_DEFAULTS.regrowth, cached.executions + 1)
  )
    return cached.prior;
  const prior = storedOrMeasured(view, n);
  const entry = { executions: n, prior };
  slot.set(entry);
  prior.catch(() => {
    if (slot.get() === entry) slot.set(undefined);
  });
  return prior;
}

/** The layout of a stored prior: its five numbers as float64 (NaN kept), in GuardPrior's field order. */
const STORED_FIELDS = ["strength", "groups", "memory", "content", "lower"] as const;

/** The prior stored by an earlier process at this graph version, else a new measurement (stored when it may be). */
async function storedOrMeasured(view: ProjectView, executions: number): Promise<GuardPrior> {
  const s = view.snapshot;
  const shared = view.shared(
    "guard-prior",
    `1\u0000${VERSION}\u0000${s.version}\u0000${executions}\u0000${catalogKey(s, view.embedder.model)}`,
  );
  const bytes = s.patchCount === 0 ? shared?.read() : undefined;
  if (bytes && bytes.length === STORED_FIELDS.length * 8) {
    const f = new Float64Array(STORED_FIELDS.length);
    new Uint8Array(f.buffer).set(bytes);
    return Object.fromEntries(STORED_FIELDS.map((k, i) => [k, f[i]!])) as unknown as GuardPrior;
  }
  const prior = await measureGuardPrior(view);
  if (shared && s.patchCount === 0 && view.analytics().fresh && view.memoryClean())
    shared.write(new Uint8Array(Float64Array.from(STORED_FIELDS, (k) => prior[k]).buffer));
  return prior;
}
