/**
 * Leak-free train/test splits of benchmark instances, and the check that proves it.
 *
 * Seal-Tools keeps its own splits (dev → training traces; test_in_domain and test_out_domain →
 * evaluation). ToolLinkOS and NESTFUL have none: `seededSplit` groups instances by normalised query
 * text (so duplicate queries never straddle the split), shuffles the groups with mulberry32(seed)
 * (Fisher–Yates) and gives the first round(groups × trainFraction) groups to training.
 *
 * `findLeaks` / `assertNoLeak` verify, for training traces against test instances, that
 *   1. no test instance id is a training trace id,
 *   2. no test query (normalised) is a training trace intent,
 *   3. no test workflow's gold (tool, tool) edge is contributed by a training trace of the same
 *      instance (same id or same query).
 * Declared catalog edges (ToolLinkOS `depends_on`) are catalog knowledge, not training data, and are
 * outside this check; benches use them only in the "with declared edges" configuration.
 */

import { mulberry32, shuffled } from "../../algorithms/random/rng.ts";
import type { Instance, TraceRecord } from "./common.ts";
import { normalizeQuery } from "./common.ts";

export interface SplitOptions {
  /** Seed of the group shuffle. Default `SPLIT_DEFAULTS.seed` (20240901). */
  seed?: number;
  /** Share of query groups assigned to training, in (0, 1). Default 0.5. */
  trainFraction?: number;
}

export const SPLIT_DEFAULTS = { seed: 20240901, trainFraction: 0.5 } as const;

export interface SplitSizes {
  train: number;
  test: number;
  /** Number of distinct normalised queries (groups) that were split. */
  groups: number;
}

export interface Split<T> {
  train: T[];
  test: T[];
  sizes: SplitSizes;
}

export class SplitError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(`split: ${message}`);
    this.code = code;
    this.name = "SplitError";
  }
}

/** Seeded split by query group; both halves keep the input order. */
export function seededSplit<T extends { id: string; query: string }>(
  items: readonly T[],
  options: SplitOptions = {},
): Split<T> {
  const seed = options.seed ?? SPLIT_DEFAULTS.seed;
  const fraction = options.trainFraction ?? SPLIT_DEFAULTS.trainFraction;
  if (!(fraction > 0 && fraction < 1))
    throw new SplitError("bad-fraction", `trainFraction must be in (0, 1), got ${fraction}`);
  const ids = new Set<string>();
  const groups = new Map<string, number>();
  for (const it of items) {
    if (ids.has(it.id)) throw new SplitError("duplicate-id", `instance id ${it.id} appears twice`);
    ids.add(it.id);
    const key = normalizeQuery(it.query);
    if (!groups.has(key)) groups.set(key, groups.size);
  }
  const order = shuffled([...groups.keys()], mulberry32(seed));
  const nTrain = Math.round(order.length * fraction);
  const trainKeys = new Set(order.slice(0, nTrain));
  const train: T[] = [];
  const test: T[] = [];
  for (const it of items) (trainKeys.has(normalizeQuery(it.query)) ? train : test).push(it);
  return { train, test, sizes: { train: train.length, test: test.length, groups: groups.size } };
}

export interface LeakViolation {
  kind: "id-leak" | "query-leak" | "edge-leak";
  testId: string;
  traceId: string;
  detail: string;
}

export interface LeakReport {
  trainTraces: number;
  testInstances: number;
  /** Gold (tool, tool) edges of test workflows that were checked. */
  checkedEdges: number;
}

export class LeakError extends Error {
  readonly code: string;
  readonly violations: LeakViolation[];
  constructor(violations: LeakViolation[]) {
    const first = violations[0]!;
    super(
      `split: ${violations.length} leak(s) between training and test, first ${first.kind} test ${first.testId} / trace ${first.traceId}: ${first.detail}`,
    );
    this.code = first.kind;
    this.violations = violations;
    this.name = "LeakError";
  }
}

function traceEdgePairs(t: TraceRecord): Set<string> {
  const pairs = new Set<string>();
  t.steps.forEach((s) => {
    for (const i of s.dependsOn ?? []) {
      const from = t.steps[i]?.tool;
      if (from !== undefined) pairs.add(`${from}\u0000${s.tool}`);
    }
  });
  return pairs;
}

/** All leaks between training traces and test instances (empty when the split is clean). */
export function findLeaks(train: readonly TraceRecord[], test: readonly Instance[]): LeakViolation[] {
  const byId = new Map<string, TraceRecord[]>();
  const byQuery = new Map<string, TraceRecord[]>();
  const push = (m: Map<string, TraceRecord[]>, k: string, t: TraceRecord) => {
    const l = m.get(k);
    if (l === undefined) m.set(k, [t]);
    else l.push(t);
  };
  for (const t of train) {
    push(byId, t.id, t);
    if (t.intent !== undefined) push(byQuery, normalizeQuery(t.intent), t);
  }
  const out: LeakViolation[] = [];
  for (const inst of test) {
    const sameId = byId.get(inst.id) ?? [];
    const sameQuery = byQuery.get(normalizeQuery(inst.query)) ?? [];
    for (const t of sameId)
      out.push({ kind: "id-leak", testId: inst.id, traceId: t.id, detail: "test instance id is a training trace id" });
    for (const t of sameQuery)
      out.push({
        kind: "query-leak",
        testId: inst.id,
        traceId: t.id,
        detail: `query "${inst.query.slice(0, 60)}" is a training intent`,
      });
    const same = new Set([...sameId, ...sameQuery]);
    if (same.size === 0) continue;
    const gold = new Set(inst.edges.map(([i, j]) => `${inst.steps[i]}\u0000${inst.steps[j]}`));
    for (const t of same) {
      for (const p of traceEdgePairs(t)) {
        if (gold.has(p))
          out.push({
            kind: "edge-leak",
            testId: inst.id,
            traceId: t.id,
            detail: `gold edge ${p.replace("\u0000", " -> ")} is in the trace`,
          });
      }
    }
  }
  return out;
}

/** Throws a `LeakError` listing every leak; otherwise returns what was checked. */
export function assertNoLeak(train: readonly TraceRecord[], test: readonly Instance[]): LeakReport {
  const violations = findLeaks(train, test);
  if (violations.length > 0) throw new LeakError(violations);
  let checkedEdges = 0;
  for (const inst of test) checkedEdges += inst.edges.length;
  return { trainTraces: train.length, testInstances: test.length, checkedEdges };
}
