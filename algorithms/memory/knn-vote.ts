/**
 * Intent memory vote: k-nearest past executions vote for the tools (and capabilities) they used.
 *
 *   vote(t) = Σ_{e ∈ neighbours using t} sim(e) · outcome(e, t) · decay(e)
 *   decay(e) = exp(−ln 2 · max(0, now − startedAt(e)) / halfLife)            (half-life, default 30 days)
 *   outcome(e, t) = max over e's steps with tool t of:
 *                   1    step succeeded in a successful execution
 *                   0.5  step succeeded in a failed execution (`failedExecutionStepFactor`)
 *                   0    step failed (a failing step never votes)
 *   normalised vote(t) = vote(t) / max_t' vote(t')  ∈ (0, 1]    (best tool = 1; tools with vote 0 are dropped)
 *
 * Each execution votes at most once per tool (its best step), so a tool repeated in one execution is
 * not counted twice. Each result carries its executions: "used in 7 similar past requests, 6 succeeded".
 *
 * Variants:
 * - capabilities: executions labelled with a capability vote for it with sim · decay · (1 if the
 *   execution succeeded else `failedExecutionCapabilityFactor`, default 0).
 * - nextAfter(prefix): each neighbour is aligned on an occurrence of the last prefix tool — the one
 *   whose preceding steps match the longest suffix of the prefix (ties → earliest occurrence) — and its
 *   following step votes with the step outcome above. Empty prefix → each neighbour's first step votes.
 * - similarSuccessRate = Σ sim·decay·[success] / Σ sim·decay (the gate's `similar_task_success`).
 * - memory(t) = normalised vote(t) × max similarity (`memoryScore`): weak neighbours cannot cast
 *   full-strength votes.
 *
 * The caller computes the fused similarity (see fuse-similarity.ts) and passes the top-k neighbours.
 * Source: distance-weighted k-NN voting (Dudani, IEEE SMC 1976) with exponential time decay of case
 * relevance (case-based reasoning "recency" weighting).
 */
import { MemoryError } from "./memory-error.ts";

const MODULE = "knn-vote";
const DAY_MS = 24 * 60 * 60 * 1000;

export type Key = string | number;

export interface PastStep<T extends Key = string> {
  readonly tool: T;
  readonly success: boolean;
}

export interface PastExecution<T extends Key = string, C extends Key = string> {
  readonly executionId: string;
  /** Fused similarity of the query to this execution, in [0, 1]. */
  readonly similarity: number;
  readonly success: boolean;
  /** Start time, epoch ms. */
  readonly startedAt: number;
  /** Steps in execution order. */
  readonly steps: readonly PastStep<T>[];
  readonly capability?: C;
  readonly user?: string;
}

export interface KnnVoteOptions {
  /** Half-life of the recency decay, ms (Infinity disables decay). Default 30 days. */
  readonly halfLifeMs?: number;
  /** Outcome factor of a successful step in a failed execution. Default 0.5. */
  readonly failedExecutionStepFactor?: number;
  /** Outcome factor of a failed execution's capability vote. Default 0. */
  readonly failedExecutionCapabilityFactor?: number;
  /** Number of results returned. Default 10. */
  readonly limit?: number;
}

export const DEFAULTS = {
  halfLifeMs: 30 * DAY_MS,
  failedExecutionStepFactor: 0.5,
  failedExecutionCapabilityFactor: 0,
  limit: 10,
} as const;

export interface Vote<K extends Key> {
  readonly key: K;
  /** Normalised vote: raw / max raw, in (0, 1]. */
  readonly vote: number;
  /** Σ sim · outcome · decay. */
  readonly rawVote: number;
  /** Distinct neighbour executions that used it (including those whose vote was 0). */
  readonly executions: number;
  /** Of those, how many executions succeeded. */
  readonly succeeded: number;
  /** Their ids, in neighbour order. */
  readonly executionIds: string[];
}

export interface VoteResult<K extends Key> {
  /** Best first: vote desc, executions desc, key asc. */
  readonly votes: Vote<K>[];
  /** Number of neighbours considered. */
  readonly neighbours: number;
  readonly reason?: string;
}

export const NO_NEIGHBOURS = "no similar past executions";

interface Resolved {
  readonly halfLife: number;
  readonly stepFactor: number;
  readonly capFactor: number;
  readonly limit: number;
}

function resolve(o: KnnVoteOptions | undefined): Resolved {
  const halfLife = o?.halfLifeMs ?? DEFAULTS.halfLifeMs;
  const stepFactor = o?.failedExecutionStepFactor ?? DEFAULTS.failedExecutionStepFactor;
  const capFactor = o?.failedExecutionCapabilityFactor ?? DEFAULTS.failedExecutionCapabilityFactor;
  const limit = o?.limit ?? DEFAULTS.limit;
  if (!(halfLife > 0)) throw new MemoryError(MODULE, "bad-half-life", `halfLifeMs = ${halfLife} must be > 0`);
  if (!(stepFactor >= 0 && stepFactor <= 1)) {
    throw new MemoryError(MODULE, "bad-option", `failedExecutionStepFactor = ${stepFactor} (expected [0, 1])`);
  }
  if (!(capFactor >= 0 && capFactor <= 1)) {
    throw new MemoryError(MODULE, "bad-option", `failedExecutionCapabilityFactor = ${capFactor} (expected [0, 1])`);
  }
  if (!Number.isInteger(limit) || limit < 0) throw new MemoryError(MODULE, "bad-option", `limit = ${limit}`);
  return { halfLife, stepFactor, capFactor, limit };
}

function check(neighbours: readonly PastExecution<Key, Key>[], now: number): void {
  if (!Number.isFinite(now)) throw new MemoryError(MODULE, "bad-time", `now = ${now} is not finite`);
  for (const e of neighbours) {
    if (!(e.similarity >= 0 && e.similarity <= 1)) {
      throw new MemoryError(
        MODULE,
        "bad-similarity",
        `execution ${e.executionId} similarity ${e.similarity} outside [0, 1]`,
      );
    }
    if (!Number.isFinite(e.startedAt)) {
      throw new MemoryError(MODULE, "bad-time", `execution ${e.executionId} startedAt ${e.startedAt} is not finite`);
    }
  }
}

/** exp(−ln 2 · max(0, now − startedAt) / halfLife); 1 when halfLife is Infinity. */
export function recencyDecay(startedAt: number, now: number, halfLifeMs: number = DEFAULTS.halfLifeMs): number {
  const dt = Math.max(0, now - startedAt);
  return Math.exp((-Math.LN2 * dt) / halfLifeMs);
}

function stepOutcome(execSuccess: boolean, stepSuccess: boolean, r: Resolved): number {
  if (!stepSuccess) return 0;
  return execSuccess ? 1 : r.stepFactor;
}

interface Acc {
  raw: number;
  executions: number;
  succeeded: number;
  ids: string[];
}

function addVote<K extends Key>(acc: Map<K, Acc>, key: K, weight: number, exec: PastExecution<Key, Key>): void {
  let a = acc.get(key);
  if (a === undefined) {
    a = { raw: 0, executions: 0, succeeded: 0, ids: [] };
    acc.set(key, a);
  }
  a.raw += weight;
  a.executions++;
  if (exec.success) a.succeeded++;
  a.ids.push(exec.executionId);
}

function finish<K extends Key>(
  acc: Map<K, Acc>,
  neighbours: number,
  limit: number,
  emptyReason: string,
): VoteResult<K> {
  if (neighbours === 0) return { votes: [], neighbours, reason: NO_NEIGHBOURS };
  let max = 0;
  for (const a of acc.values()) max = Math.max(max, a.raw);
  if (!(max > 0)) return { votes: [], neighbours, reason: emptyReason };
  const votes: Vote<K>[] = [];
  for (const [key, a] of acc) {
    if (!(a.raw > 0)) continue;
    votes.push({
      key,
      vote: a.raw / max,
      rawVote: a.raw,
      executions: a.executions,
      succeeded: a.succeeded,
      executionIds: a.ids,
    });
  }
  votes.sort((x, y) => y.vote - x.vote || y.executions - x.executions || compareKeys(x.key, y.key));
  return { votes: votes.slice(0, limit), neighbours };
}

function compareKeys(a: Key, b: Key): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Tools voted by the neighbours (see header). Empty neighbours → empty votes, reason NO_NEIGHBOURS. */
export function voteTools<T extends Key>(
  neighbours: readonly PastExecution<T, Key>[],
  now: number,
  options?: KnnVoteOptions,
): VoteResult<T> {
  const r = resolve(options);
  check(neighbours, now);
  const acc = new Map<T, Acc>();
  for (const e of neighbours) {
    const base = e.similarity * recencyDecay(e.startedAt, now, r.halfLife);
    const steps = e.steps;
    if (steps.length > SHORT_EXECUTION) {
      const best = new Map<T, number>();
      for (const s of steps) {
        const f = stepOutcome(e.success, s.success, r);
        const prev = best.get(s.tool);
        if (prev === undefined || f > prev) best.set(s.tool, f);
      }
      for (const [tool, f] of best) addVote(acc, tool, base * f, e);
      continue;
    }
    // Short executions: each tool's best step by scanning the steps (no Map), tools in order of first use.
    for (let a = 0; a < steps.length; a++) {
      const tool = steps[a]!.tool;
      let seen = false;
      for (let b = 0; b < a && !seen; b++) seen = sameKey(steps[b]!.tool, tool);
      if (seen) continue;
      let f = stepOutcome(e.success, steps[a]!.success, r);
      for (let b = a + 1; b < steps.length; b++) {
        if (!sameKey(steps[b]!.tool, tool)) continue;
        const g = stepOutcome(e.success, steps[b]!.success, r);
        if (g > f) f = g;
      }
      addVote(acc, tool, base * f, e);
    }
  }
  return finish(acc, neighbours.length, r.limit, "no similar execution has a positive vote");
}

/** Executions of at most this many steps find their tools' best steps by a quadratic scan instead of a Map. */
const SHORT_EXECUTION = 16;

/** Map key equality (SameValueZero). */
function sameKey(a: Key, b: Key): boolean {
  return a === b || (typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b));
}

/** Capabilities voted by labelled neighbours. */
export function voteCapabilities<C extends Key>(
  neighbours: readonly PastExecution<Key, C>[],
  now: number,
  options?: KnnVoteOptions,
): VoteResult<C> {
  const r = resolve(options);
  check(neighbours, now);
  const acc = new Map<C, Acc>();
  for (const e of neighbours) {
    if (e.capability === undefined) continue;
    const f = e.success ? 1 : r.capFactor;
    addVote(acc, e.capability, e.similarity * recencyDecay(e.startedAt, now, r.halfLife) * f, e);
  }
  const reason =
    acc.size === 0 ? "no similar execution is labelled with a capability" : "no capability has a positive vote";
  return finish(acc, neighbours.length, r.limit, reason);
}

/** What followed the tools-so-far in the similar executions (alignment rule in the header). */
export function nextAfter<T extends Key>(
  neighbours: readonly PastExecution<T, Key>[],
  prefix: readonly T[],
  now: number,
  options?: KnnVoteOptions,
): VoteResult<T> {
  const r = resolve(options);
  check(neighbours, now);
  const acc = new Map<T, Acc>();
  for (const e of neighbours) {
    const pos = alignPosition(e.steps, prefix);
    if (pos === null) continue;
    const next = e.steps[pos];
    if (next === undefined) continue;
    const f = stepOutcome(e.success, next.success, r);
    addVote(acc, next.tool, e.similarity * recencyDecay(e.startedAt, now, r.halfLife) * f, e);
  }
  const reason =
    acc.size === 0 ? "no similar execution continues after these tools" : "no continuation has a positive vote";
  return finish(acc, neighbours.length, r.limit, reason);
}

/**
 * Index of the step that follows the aligned occurrence of the prefix's last tool, or null when the
 * execution never used it. Empty prefix → 0. Exported for tests and explanations.
 */
export function alignPosition<T extends Key>(steps: readonly PastStep<T>[], prefix: readonly T[]): number | null {
  if (prefix.length === 0) return 0;
  const last = prefix[prefix.length - 1]!;
  let bestPos: number | null = null;
  let bestLen = -1;
  for (let i = 0; i < steps.length; i++) {
    if (steps[i]!.tool !== last) continue;
    let len = 1;
    while (len < prefix.length && i - len >= 0 && steps[i - len]!.tool === prefix[prefix.length - 1 - len]) len++;
    if (len > bestLen) {
      bestLen = len;
      bestPos = i + 1;
    }
  }
  return bestPos;
}

export interface SimilarSuccessRate {
  /** Σ sim·decay·[success] / Σ sim·decay in [0, 1], or null when there is no weight. */
  readonly rate: number | null;
  /** Neighbours considered. */
  readonly neighbours: number;
  /** Σ sim·decay (the evidence mass behind the rate). */
  readonly weight: number;
  readonly reason?: string;
}

/** Similarity- and recency-weighted success rate of the neighbours. */
export function similarSuccessRate(
  neighbours: readonly PastExecution<Key, Key>[],
  now: number,
  options?: KnnVoteOptions,
): SimilarSuccessRate {
  const r = resolve(options);
  check(neighbours, now);
  if (neighbours.length === 0) return { rate: null, neighbours: 0, weight: 0, reason: NO_NEIGHBOURS };
  let num = 0;
  let den = 0;
  for (const e of neighbours) {
    const w = e.similarity * recencyDecay(e.startedAt, now, r.halfLife);
    den += w;
    if (e.success) num += w;
  }
  if (!(den > 0)) {
    return { rate: null, neighbours: neighbours.length, weight: 0, reason: "similar executions have zero weight" };
  }
  return { rate: Math.min(1, num / den), neighbours: neighbours.length, weight: den };
}

/** memory(t) = normalised vote × the best neighbour's similarity (header): ∈ [0,1] when both are. */
export function memoryScore(vote: number, bestSimilarity: number): number {
  return vote * bestSimilarity;
}
