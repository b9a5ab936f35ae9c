/**
 * The recommendation log's writer: every answer of a recommending job (search, next, capabilities,
 * discover, dag, plan, alternatives) gets an id (`recommendationId`, returned in the answer) and a row
 * (job, request summary, ranked items with scores and gate decisions, user, session, graph version).
 * Feedback and recorded executions that follow an answer are stored as outcomes and joined to it by that
 * id or by the session (src/store/recommendations.ts).
 *
 * Written off the request path: rows go into an in-memory queue that a background flush writes in batches
 * (every `flushMs`, or at once when `batchSize` rows wait); `close()` flushes what is left.
 * The batch-size flush starts inside the request that filled the batch, on purpose: a caller awaiting one
 * call after another never lets the event loop turn (every await resolves as a microtask on the embedded
 * database), so a flush left to a timer or setImmediate would not run and the queue would fill to `maxQueue`.
 * Its write still waits until the microtask queue drains once (node-postgres hands out a pooled connection on
 * process.nextTick): at the caller's next await of real I/O, at the latest the engine's version check (every
 * `versionCheckMs`); meanwhile answers queue behind it and it writes them before it ends. A failed write
 * is logged and dropped (bounded: at most `maxQueue` rows wait), never failing the request.
 *
 * Retention (defaults): the newest 100,000 answers and the newest 100,000 outcomes per project, none older
 * than 30 days, applied to a project once 10,000 rows (answers or outcomes) were written to it since its last
 * pruning, after every 50th flush that wrote to it, and on close; in the background (a flush does not wait for
 * it), a turn of the event loop after each of its statements. Between prunings a table holds at most
 * `pruneEveryRows` rows plus one flush over its bound, once the event loop turns. Why these numbers: docs/decisions/log-retention.md.
 * The bounds can be set per process with TOOLGRAPH_RECOMMENDATION_LOG_MAX_ANSWERS / _MAX_OUTCOMES.
 */
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { ToolgraphError } from "../contract/errors.ts";
import {
  countRecommendations,
  insertOutcomes,
  insertRecommendations,
  type JoinedRecommendation,
  joinedRecommendations,
  type OutcomeRow,
  pruneRecommendations,
  type RecommendationItem,
  type RecommendationRow,
} from "../store/recommendations.ts";
import type { Database } from "../store/schema.ts";

export const RECOMMENDATION_LOG_DEFAULTS = {
  enabled: true,
  batchSize: 200,
  flushMs: 500,
  maxQueue: 50_000,
  maxPerProject: 100_000,
  maxOutcomesPerProject: 100_000,
  maxAgeDays: 30,
  pruneEveryFlushes: 50,
  pruneEveryRows: 10_000,
  maxItems: 20,
} as const;

export interface RecommendationLogOptions {
  /** Log answers at all. Default true (env TOOLGRAPH_RECOMMENDATION_LOG=0 turns it off). */
  enabled?: boolean | undefined;
  /** Rows that trigger an immediate flush. Default 200. */
  batchSize?: number | undefined;
  /** Longest a row waits before it is written (ms). Default 500. */
  flushMs?: number | undefined;
  /** Rows kept waiting at most; beyond that new rows are dropped (and counted). Default 50,000. */
  maxQueue?: number | undefined;
  /** Retention: newest answers kept per project. Default 100,000 (env TOOLGRAPH_RECOMMENDATION_LOG_MAX_ANSWERS). */
  maxPerProject?: number | undefined;
  /** Retention: newest outcomes (feedback, recorded executions) kept per project. Default 100,000 (env TOOLGRAPH_RECOMMENDATION_LOG_MAX_OUTCOMES). */
  maxOutcomesPerProject?: number | undefined;
  /** Retention: days an answer or outcome is kept. Default 30. */
  maxAgeDays?: number | undefined;
  /** Apply retention to a project after this many flushes that wrote to it. Default 50. */
  pruneEveryFlushes?: number | undefined;
  /** Apply retention to a project once this many rows (answers and outcomes) were written to it since the last time. Default 10,000. */
  pruneEveryRows?: number | undefined;
  /** Ranked items stored per answer. Default 20. */
  maxItems?: number | undefined;
  /** Where write errors go. Default: a line on stderr. */
  onError?: ((message: string, err: unknown) => void) | undefined;
  /** The clock (ms). Default Date.now. */
  now?: (() => number) | undefined;
}

/** The job name of each facade operation. */
export const JOB_OF_OPERATION: Record<string, string> = {
  runSearch: "search",
  runSuggest: "next",
  runMatchCapabilities: "capabilities",
  runDiscoverCapabilities: "discover",
  runBuildDag: "dag",
  runPlan: "plan",
  runAlternatives: "alternatives",
};

export interface AnswerSummary {
  items: RecommendationItem[];
  /** The answer's gate decision: accepted, accepted-with-caution or abstained; "none" when it has no gate. */
  decision: string;
  topScore: number | null;
}

type Obj = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const decisionOf = (v: unknown): string | null => str((v as Obj | undefined)?.decision);

/**
 * The ranked items of an answer, in the shape every job returns (results, suggestions, DAG nodes, plan tools):
 * the first `maxItems` (a count; below 0 counts as 0), each as id, score and gate decision.
 */
export function summarizeAnswer(
  job: string,
  result: unknown,
  maxItems: number = RECOMMENDATION_LOG_DEFAULTS.maxItems,
): AnswerSummary {
  const r = (result ?? {}) as Obj;
  const items: RecommendationItem[] = [];
  // One loop over the kept items (every answer passes here, on the request path).
  const list = (Array.isArray(r.results) ? r.results : Array.isArray(r.suggestions) ? r.suggestions : undefined) as
    | Obj[]
    | undefined;
  if (list) {
    const end = keptItems(list.length, maxItems);
    for (let i = 0; i < end; i++) {
      const x = list[i]!;
      items.push({
        id: str(x.tool) ?? str(x.capability) ?? str(x.id) ?? "?",
        score: num(x.score),
        decision: decisionOf(x.gate),
      });
    }
  } else if (job === "plan" || job === "dag") {
    const overall = decisionOf(r.gate);
    const tools = (Array.isArray(r.tools) ? r.tools : Array.isArray(r.nodes) ? r.nodes : []) as Obj[];
    const end = keptItems(tools.length, maxItems);
    for (let i = 0; i < end; i++) items.push({ id: str(tools[i]!.tool) ?? "?", score: null, decision: overall });
  }
  let decision = decisionOf(r.gate);
  if (decision === null && list) decision = bestDecision(items);
  const topScore =
    items.length > 0 && items[0]!.score !== null
      ? items[0]!.score
      : (num(r.confidence) ?? num((r.confidence as Obj | undefined)?.score));
  return { items, decision: decision ?? "none", topScore };
}

/** How many of `length` items a summary keeps: at most `maxItems`, a count (fractions cut, below 0 is 0). */
function keptItems(length: number, maxItems: number): number {
  return maxItems > 0 ? Math.min(length, Math.trunc(maxItems)) : 0;
}

/** An answer's decision from its items': accepted if any is, else with caution if any is, else abstained if all are. */
function bestDecision(items: readonly RecommendationItem[]): string | null {
  let caution = false;
  let abstained = 0;
  for (const i of items) {
    if (i.decision === "accepted") return "accepted";
    if (i.decision === "accepted-with-caution") caution = true;
    else if (i.decision === "abstained") abstained++;
  }
  return caution ? "accepted-with-caution" : items.length > 0 && abstained === items.length ? "abstained" : null;
}

const REQUEST_FIELDS = new Set([
  "intent",
  "context",
  "tools",
  "tool",
  "limit",
  "mode",
  "routing",
  "graph",
  "exclude",
  "only",
  "urgency",
  "environment",
]);

/** The request fields worth keeping (lists cut to 20 entries, texts to 500 characters). */
export function summarizeRequest(req: unknown): Record<string, unknown> {
  const r = (req ?? {}) as Obj;
  const out: Record<string, unknown> = {};
  // The request's own keys (a request has a few; the kept fields are a dozen).
  for (const k of Object.keys(r)) {
    if (!REQUEST_FIELDS.has(k)) continue;
    const v = r[k];
    if (v === undefined) continue;
    if (typeof v === "string") out[k] = v.slice(0, 500);
    else if (Array.isArray(v)) out[k] = v.slice(0, 20);
    else out[k] = v;
  }
  return out;
}

/** Random bytes drawn 3 KiB at a time, as hex (one system call and one encoding per 512 ids, not one per id as crypto.randomUUID does). */
let entropy = "";
let entropyAt = 0;
/** The last time stamp and its base-36 text (answers of the same millisecond share it). */
let stampAt = Number.NaN;
let stamp = "";

/** A new answer id: time-ordered (base-36 ms) plus 48 random bits. */
export function newRecommendationId(now: number): string {
  if (entropyAt + 12 > entropy.length) {
    entropy = randomBytes(6 * 512).toString("hex");
    entropyAt = 0;
  }
  const bits = entropy.slice(entropyAt, entropyAt + 12);
  entropyAt += 12;
  if (now !== stampAt) {
    stampAt = now;
    stamp = now.toString(36);
  }
  return `rec_${stamp}${bits}`;
}

const RETENTION_ENV = {
  maxPerProject: "TOOLGRAPH_RECOMMENDATION_LOG_MAX_ANSWERS",
  maxOutcomesPerProject: "TOOLGRAPH_RECOMMENDATION_LOG_MAX_OUTCOMES",
} as const;

/**
 * The count bounds set in the environment (TOOLGRAPH_RECOMMENDATION_LOG_MAX_ANSWERS / _MAX_OUTCOMES), each a
 * whole number ≥ 0; throws "invalid-input" naming the variable otherwise. Options given in code win.
 */
export function retentionFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Pick<RecommendationLogOptions, "maxPerProject" | "maxOutcomesPerProject"> {
  const out: Pick<RecommendationLogOptions, "maxPerProject" | "maxOutcomesPerProject"> = {};
  for (const [key, name] of Object.entries(RETENTION_ENV) as [keyof typeof RETENTION_ENV, string][]) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") continue;
    if (!/^\d+$/.test(raw.trim()))
      throw new ToolgraphError(
        "invalid-input",
        `${name}: must be a whole number ≥ 0 (got ${JSON.stringify(raw).slice(0, 40)})`,
        { field: name },
      );
    out[key] = Number(raw.trim());
  }
  return out;
}

export class RecommendationLog {
  readonly enabled: boolean;
  private readonly o: Required<Omit<RecommendationLogOptions, "onError" | "now" | "enabled">>;
  private readonly onError: (message: string, err: unknown) => void;
  private readonly now: () => number;
  private answers: RecommendationRow[] = [];
  private outcomes: OutcomeRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly flushesSincePrune = new Map<string, number>();
  private readonly rowsSincePrune = new Map<string, number>();
  /** Projects whose retention is due, and the background pass applying it (never awaited by a flush). */
  private readonly due = new Set<string>();
  private pruning: Promise<void> | undefined;
  private closed = false;
  /** Rows dropped because the queue was full or a write failed. */
  dropped = 0;
  /** Rows written so far. */
  written = 0;
  /** Retention passes started so far. */
  prunes = 0;

  constructor(
    private readonly db: Kysely<Database>,
    options: RecommendationLogOptions = {},
  ) {
    const d = RECOMMENDATION_LOG_DEFAULTS;
    this.enabled = options.enabled ?? (process.env.TOOLGRAPH_RECOMMENDATION_LOG === "0" ? false : d.enabled);
    const env = retentionFromEnv();
    this.o = {
      batchSize: options.batchSize ?? d.batchSize,
      flushMs: options.flushMs ?? d.flushMs,
      maxQueue: options.maxQueue ?? d.maxQueue,
      maxPerProject: options.maxPerProject ?? env.maxPerProject ?? d.maxPerProject,
      maxOutcomesPerProject: options.maxOutcomesPerProject ?? env.maxOutcomesPerProject ?? d.maxOutcomesPerProject,
      maxAgeDays: options.maxAgeDays ?? d.maxAgeDays,
      pruneEveryFlushes: options.pruneEveryFlushes ?? d.pruneEveryFlushes,
      pruneEveryRows: options.pruneEveryRows ?? d.pruneEveryRows,
      maxItems: options.maxItems ?? d.maxItems,
    };
    this.onError =
      options.onError ??
      ((m, err) =>
        process.stderr.write(`toolgraph: recommendation log: ${m}: ${(err as Error)?.message ?? String(err)}\n`));
    this.now = options.now ?? Date.now;
  }

  /**
   * Logs an answer and returns it with its `recommendationId`: added to `result` itself when the caller owns it
   * (`owned`: computed for this call only), else on a shallow copy (cached answers stay untouched).
   */
  answer<T>(
    operation: string,
    project: string,
    request: unknown,
    graphVersion: number,
    result: T,
    latencyMs: number | null,
    owned = false,
  ): T & { recommendationId?: string } {
    if (!this.enabled || this.closed || result === null || typeof result !== "object")
      return result as T & { recommendationId?: string };
    const job = JOB_OF_OPERATION[operation] ?? operation;
    const at = this.now();
    const id = newRecommendationId(at);
    const s = summarizeAnswer(job, result, this.o.maxItems);
    const req = (request ?? {}) as Obj;
    this.push("answers", {
      project,
      id,
      job,
      createdAt: new Date(at),
      user: str(req.user),
      session: str(req.session),
      graphVersion,
      request: summarizeRequest(request),
      items: s.items,
      decision: s.decision,
      topScore: s.topScore,
      latencyMs,
    });
    if (owned) {
      (result as Obj).recommendationId = id;
      return result as T & { recommendationId?: string };
    }
    return { ...result, recommendationId: id };
  }

  /** Logs an outcome (feedback or a recorded execution) that follows an answer. */
  outcome(row: Omit<OutcomeRow, "at"> & { at?: Date }): void {
    if (!this.enabled || this.closed) return;
    if (row.recommendationId === null && row.session === null) return;
    this.push("outcomes", { ...row, at: row.at ?? new Date(this.now()) });
  }

  private push(kind: "answers", row: RecommendationRow): void;
  private push(kind: "outcomes", row: OutcomeRow): void;
  private push(kind: "answers" | "outcomes", row: RecommendationRow | OutcomeRow): void {
    if (this.answers.length + this.outcomes.length >= this.o.maxQueue) {
      this.dropped++;
      return;
    }
    if (kind === "answers") this.answers.push(row as RecommendationRow);
    else this.outcomes.push(row as OutcomeRow);
    if (this.answers.length + this.outcomes.length >= this.o.batchSize) {
      // One flush at a time: a flush under way writes what queued meanwhile before it ends. (Starting one per
      // row while it runs left a waiter per row on it, all woken at its end.)
      if (!this.flushing) void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, this.o.flushMs);
      this.timer.unref();
    }
  }

  /** The stored answers of a project joined with their outcomes, oldest first (the console's dashboard). */
  joined(project: string, opts: { since?: Date; limit?: number; job?: string } = {}): Promise<JoinedRecommendation[]> {
    return joinedRecommendations(this.db, project, opts);
  }

  /** How many answers and outcomes of a project the log holds now (rows written; what waits is not counted). */
  counts(project: string): Promise<{ recommendations: number; outcomes: number }> {
    return countRecommendations(this.db, project);
  }

  /** Writes what waits (one flush at a time); resolves when the queue is empty. Never rejects. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.answers.length === 0 && this.outcomes.length === 0) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const answers = this.answers;
    const outcomes = this.outcomes;
    this.answers = [];
    this.outcomes = [];
    this.flushing = (async () => {
      try {
        // Answers first: an outcome of the same batch joins an answer that is already there.
        await insertRecommendations(this.db, answers);
        await insertOutcomes(this.db, outcomes);
        this.written += answers.length + outcomes.length;
      } catch (err) {
        this.dropped += answers.length + outcomes.length;
        this.onError(`could not write ${answers.length} answer(s) and ${outcomes.length} outcome(s)`, err);
        return;
      }
      // Outcomes count as much as answers: a project that only records executions grows its outcomes too.
      const rows = new Map<string, number>();
      for (const r of answers) rows.set(r.project, (rows.get(r.project) ?? 0) + 1);
      for (const r of outcomes) rows.set(r.project, (rows.get(r.project) ?? 0) + 1);
      for (const [project, k] of rows) {
        const n = (this.flushesSincePrune.get(project) ?? 0) + 1;
        const written = (this.rowsSincePrune.get(project) ?? 0) + k;
        this.flushesSincePrune.set(project, n);
        this.rowsSincePrune.set(project, written);
        if (n >= this.o.pruneEveryFlushes || written >= this.o.pruneEveryRows) this.due.add(project);
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
    this.startPruning();
    if (this.answers.length + this.outcomes.length > 0) await this.flush();
  }

  /** Applies the retention bounds to a project now. Never rejects (errors are reported). */
  async prune(project: string): Promise<{ recommendations: number; outcomes: number }> {
    this.flushesSincePrune.set(project, 0);
    this.rowsSincePrune.set(project, 0);
    this.prunes++;
    try {
      return await pruneRecommendations(this.db, project, {
        maxPerProject: this.o.maxPerProject,
        maxOutcomesPerProject: this.o.maxOutcomesPerProject,
        maxAgeDays: this.o.maxAgeDays,
        now: this.now(),
        // A turn of the event loop between statements: on the embedded database they run on this thread.
        pause: () => new Promise<void>((resolve) => setImmediate(resolve)),
      });
    } catch (err) {
      this.onError(`could not apply retention to project ${JSON.stringify(project)}`, err);
      return { recommendations: 0, outcomes: 0 };
    }
  }

  /**
   * Applies retention to the projects due, in the background: a flush never waits for it. Its statements pause
   * for a turn of the event loop, which a caller that never lets the loop turn does not give; written rows must
   * not wait behind that (they would fill the queue), so the bound is applied late there rather than rows lost.
   */
  private startPruning(): void {
    if (this.pruning || this.due.size === 0) return;
    this.pruning = (async () => {
      for (const project of this.due) {
        this.due.delete(project);
        await this.prune(project);
      }
    })().finally(() => {
      this.pruning = undefined;
    });
  }

  /** Resolves once what waits is written and the retention due is applied. Never rejects. */
  async idle(): Promise<void> {
    await this.flush();
    while (this.pruning) await this.pruning;
  }

  /** Flushes what waits and applies retention to the projects written since the last pruning; later rows are ignored. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    for (const [project, n] of this.flushesSincePrune) if (n > 0) this.due.add(project);
    this.startPruning();
    while (this.pruning) await this.pruning;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
