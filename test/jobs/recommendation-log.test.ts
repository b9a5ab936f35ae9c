import fc from "fast-check";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { demoCatalog } from "../../src/demo/catalog.ts";
import { demoTraces } from "../../src/demo/traces.ts";
import { liveMetrics } from "../../src/jobs/live-metrics.ts";
import {
  newRecommendationId,
  RECOMMENDATION_LOG_DEFAULTS,
  RecommendationLog,
  retentionFromEnv,
  summarizeAnswer,
  summarizeRequest,
} from "../../src/jobs/recommendation-log.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { countRecommendations, joinedRecommendations } from "../../src/store/recommendations.ts";
import type { Database } from "../../src/store/schema.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
let tg: Toolgraph;
/**
 * The same database engine on the caller's own thread (TOOLGRAPH_PGLITE_THREAD=main): there a query resolves
 * without a turn of the event loop, which is the premise of the tight-loop tests below. On the default worker
 * thread (and on a server) every reply arrives as an event, so the loop turns anyway.
 */
let onMainThread: Toolgraph;

beforeAll(async () => {
  const saved = process.env.TOOLGRAPH_PGLITE_THREAD;
  process.env.TOOLGRAPH_PGLITE_THREAD = "main";
  try {
    onMainThread = await openToolgraph({ home: "memory://", database: "", project: "demo", embeddings: "hash:64" });
  } finally {
    if (saved === undefined) delete process.env.TOOLGRAPH_PGLITE_THREAD;
    else process.env.TOOLGRAPH_PGLITE_THREAD = saved;
  }
  // flushMs large: the test decides when the log is written (flush), so nothing races.
  tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: "demo",
    embeddings: "hash:256",
    recommendationLog: { flushMs: 60_000 },
  });
  await tg.importCatalog(demoCatalog());
  await tg.importTraces(demoTraces(300, 42, NOW));
});

afterAll(async () => {
  await onMainThread?.close();
  await tg?.close();
});

describe("recommendation log through the facade", () => {
  it("every job's answer carries a fresh recommendationId and is stored with its items, decision and graph version", async () => {
    const s = await tg.search({
      intent: "open a pull request with my changes",
      limit: 3,
      session: "wf-search",
      user: "ann",
    });
    const hits = tg.results.stats().hits;
    const again = await tg.search({
      intent: "open a pull request with my changes",
      limit: 3,
      session: "wf-other",
      user: "ann",
    });
    const n = await tg.suggestNext({ context: ["git.status"], limit: 2 });
    const c = await tg.matchCapabilities({ intent: "roll back the production deploy", limit: 2 });
    const d = await tg.discoverCapabilities({ context: ["monitor.get_alerts"], limit: 2 });
    const g = await tg.buildDag({ tools: ["git.commit", "git.push"] });
    const p = await tg.plan({ intent: "open a pull request with my changes", limit: 4 });
    const a = await tg.alternatives({ tool: "git.push", limit: 2 });
    const ids = [s, again, n, c, d, g, p, a].map((x) => x.recommendationId);
    for (const id of ids) expect(id).toMatch(/^rec_[0-9a-z]+[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // The second search came from the result cache (the session is not part of the key) yet got its own id.
    expect(tg.results.stats().hits).toBe(hits + 1);
    expect(again.results).toEqual(s.results);
    await tg.recommendations.flush();
    const rows = await joinedRecommendations(engineOf(tg).db, "demo");
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(rows.map((r) => r.job).sort()).toEqual(
      ["alternatives", "capabilities", "dag", "discover", "next", "plan", "search", "search"].sort(),
    );
    const logged = byId.get(s.recommendationId!)!;
    const version = (await engineOf(tg).snapshot("demo")).version;
    expect(logged).toMatchObject({
      job: "search",
      user: "ann",
      session: "wf-search",
      graphVersion: version,
      request: { intent: "open a pull request with my changes", limit: 3 },
    });
    expect(logged.items).toEqual(s.results.map((r) => ({ id: r.tool, score: r.score, decision: r.gate.decision })));
    expect(logged.topScore).toBe(s.results[0]!.score);
    expect(byId.get(p.recommendationId!)!.items.map((i) => i.id)).toEqual(p.tools.map((t: { tool: string }) => t.tool));
    expect(byId.get(p.recommendationId!)!.decision).toBe(p.gate.decision);
  });

  it("an execution of the session and feedback naming the id are joined; precision counts them", async () => {
    const s = await tg.search({ intent: "roll back the production deploy", limit: 3, session: "wf-roll" });
    const top = s.results[0]!.tool;
    await tg.recordExecution({
      id: "wf-roll",
      startedAt: "2026-11-01T12:00:00Z",
      success: true,
      steps: [{ tool: top }, { tool: "slack.post_message" }],
    });
    const n = await tg.suggestNext({ context: ["git.status"], limit: 1 });
    await tg.feedback({
      intent: "after git.status",
      decision: "accepted",
      success: false,
      recommendationId: n.recommendationId,
    });
    await tg.recommendations.flush();
    const rows = await joinedRecommendations(engineOf(tg).db, "demo");
    const rs = rows.find((r) => r.id === s.recommendationId)!;
    const rn = rows.find((r) => r.id === n.recommendationId)!;
    expect(rs.outcome).toMatchObject({ kind: "execution", success: true, tools: [top, "slack.post_message"] });
    expect(rn.outcome).toMatchObject({ kind: "feedback", success: false, followed: true });
    const m = liveMetrics(rows);
    expect(m.judged).toBe(2);
  });

  it("a write error is reported, counted and never fails the request", async () => {
    // A real driver error: a PostgreSQL pool pointed at a port nothing listens on.
    const errors: string[] = [];
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:1/none", connectionTimeoutMillis: 2000 }),
      }),
    });
    try {
      const log = new RecommendationLog(db, { onError: (m) => errors.push(m), flushMs: 60_000 });
      const out = log.answer("runSearch", "x", { intent: "q" }, 1, { results: [] }, 1);
      expect(out.recommendationId).toMatch(/^rec_/);
      await log.flush();
      expect(errors).toEqual(["could not write 1 answer(s) and 0 outcome(s)"]);
      expect(log.dropped).toBe(1);
      expect(log.written).toBe(0);
    } finally {
      await db.destroy();
    }
  });

  it("adds the id in place to an owned answer and to a copy of a shared one (a cached answer stays untouched)", async () => {
    const project = "owned-test";
    const log = new RecommendationLog(engineOf(tg).db, { flushMs: 60_000 });
    const mine = { results: [{ tool: "a", score: 0.5 }] };
    const shared = { results: [{ tool: "b", score: 0.4 }] };
    const a = log.answer("runSearch", project, { intent: "x" }, 1, mine, 1, true);
    const b = log.answer("runSearch", project, { intent: "y" }, 1, shared, 1);
    expect(a).toBe(mine);
    expect(mine).toHaveProperty("recommendationId", a.recommendationId);
    expect(Object.keys(a)).toEqual(["results", "recommendationId"]);
    expect(b).not.toBe(shared);
    expect(shared).not.toHaveProperty("recommendationId");
    expect(Object.keys(b)).toEqual(["results", "recommendationId"]);
    expect(a.recommendationId).not.toBe(b.recommendationId);
    await log.close();
    // Through the facade with the result cache on: a repeated request gets the cached answer under a new id,
    // unchanged by what the caller did to the first answer object.
    const first = await tg.search({ intent: "read a file" });
    const expected = structuredClone(first.results);
    const hitsBefore = tg.results.stats().hits;
    first.results.length = 0;
    const again = await tg.search({ intent: "read a file" });
    expect(tg.results.stats().hits).toBe(hitsBefore + 1);
    expect(again.recommendationId).not.toBe(first.recommendationId);
    expect(again.results).toEqual(expected);
  });

  it("close() flushes what waits; later answers are not logged", async () => {
    const project = "close-test";
    const log = new RecommendationLog(engineOf(tg).db, { flushMs: 60_000 });
    log.answer("runSearch", project, { intent: "read a file" }, 1, { results: [] }, 1);
    log.answer("runSuggest", project, { context: ["a"] }, 1, { suggestions: [] }, 1);
    expect(await countRecommendations(engineOf(tg).db, project)).toEqual({ recommendations: 0, outcomes: 0 });
    expect(await log.counts(project)).toEqual({ recommendations: 0, outcomes: 0 }); // what waits is not counted
    await log.close();
    expect(await countRecommendations(engineOf(tg).db, project)).toEqual({ recommendations: 2, outcomes: 0 });
    expect(await log.counts(project)).toEqual({ recommendations: 2, outcomes: 0 });
    expect(
      log.answer("runSearch", project, { intent: "late" }, 1, { results: [] }, 1).recommendationId,
    ).toBeUndefined();
    await log.flush();
    expect((await countRecommendations(engineOf(tg).db, project)).recommendations).toBe(2);
  });

  it("a caller that never lets the event loop turn still gets its answers written in batches, none dropped", async () => {
    const project = "tight-loop";
    // A full batch starts its flush at once: a flush left to a timer or setImmediate would never run in this
    // loop (each request's query on the embedded database resolves without a turn of the event loop), and the
    // queue would hit maxQueue and drop rows.
    const log = new RecommendationLog(engineOf(onMainThread).db, { flushMs: 60_000, batchSize: 10, maxQueue: 30 });
    let turns = 0;
    const tick = setImmediate(() => turns++);
    for (let k = 0; k < 100; k++) {
      await sql`select 1`.execute(engineOf(onMainThread).db); // the request's own read
      log.answer("runSearch", project, { intent: `q${k}` }, 1, { results: [] }, 1);
    }
    clearImmediate(tick);
    expect(turns).toBe(0); // the premise: the loop never let the event loop turn
    expect(log.dropped).toBe(0);
    await log.close();
    expect(log.written).toBe(100);
    expect((await countRecommendations(engineOf(onMainThread).db, project)).recommendations).toBe(100);
  });

  it("starts one flush for a full batch, not one per row queued while that flush is under way", async () => {
    const project = "one-flush";
    const log = new RecommendationLog(engineOf(tg).db, { flushMs: 60_000, batchSize: 10 });
    const flush = vi.spyOn(log, "flush");
    // No await between the answers: the first batch's write cannot end meanwhile, so rows 11..100 queue behind it.
    for (let k = 0; k < 100; k++) log.answer("runSuggest", project, { context: [`t${k}`] }, 1, { suggestions: [] }, 1);
    expect(flush).toHaveBeenCalledTimes(1);
    await log.close();
    expect(log.dropped).toBe(0);
    expect(log.written).toBe(100);
    expect((await countRecommendations(engineOf(tg).db, project)).recommendations).toBe(100);
  });

  it("outcomes alone are count-bounded: a project that only records executions is pruned to the newest N", async () => {
    const project = "outcomes-only";
    const bound = { maxOutcomesPerProject: 50, pruneEveryRows: 20 };
    const log = new RecommendationLog(engineOf(tg).db, { flushMs: 60_000, batchSize: 10, ...bound });
    let most = 0;
    for (let k = 0; k < 300; k++) {
      // One outcome per recorded execution (its id is the session), as recordExecution logs it.
      log.outcome({
        project,
        recommendationId: null,
        session: `run-${k}`,
        kind: "execution",
        success: true,
        followed: null,
        executionId: `run-${k}`,
        tools: ["a"],
      });
      if (k % 10 === 9) {
        await log.idle();
        most = Math.max(most, (await countRecommendations(engineOf(tg).db, project)).outcomes);
      }
    }
    // Between prunings at most pruneEveryRows rows over the bound (each flush here writes 10).
    expect(most).toBeLessThanOrEqual(bound.maxOutcomesPerProject + bound.pruneEveryRows);
    expect(log.prunes).toBeGreaterThanOrEqual(300 / bound.pruneEveryRows - 1);
    await log.close();
    expect(log.written).toBe(300);
    const left = await engineOf(tg)
      .db.selectFrom("recommendation_outcomes")
      .select("execution_id")
      .where("project", "=", project)
      .orderBy("id")
      .execute();
    expect(left.map((r) => r.execution_id)).toEqual(Array.from({ length: 50 }, (_, i) => `run-${250 + i}`));
  });

  it("a flush never waits for the pruning: a caller that never lets the event loop turn loses no row to it", async () => {
    const project = "prune-tight-loop";
    // Pruning due every 10 rows; its statements wait for a turn of the event loop that this loop never gives.
    const log = new RecommendationLog(engineOf(onMainThread).db, {
      flushMs: 60_000,
      batchSize: 10,
      maxQueue: 30,
      pruneEveryRows: 10,
      maxOutcomesPerProject: 5,
    });
    let turns = 0;
    const tick = setImmediate(() => turns++);
    for (let k = 0; k < 200; k++) {
      await sql`select 1`.execute(engineOf(onMainThread).db);
      log.outcome({
        project,
        recommendationId: null,
        session: `t-${k}`,
        kind: "execution",
        success: true,
        followed: null,
        executionId: `t-${k}`,
        tools: [],
      });
    }
    clearImmediate(tick);
    expect(turns).toBe(0);
    expect(log.dropped).toBe(0);
    await log.close();
    expect(log.written).toBe(200);
    expect((await countRecommendations(engineOf(onMainThread).db, project)).outcomes).toBe(5);
  });

  it("retention bounds come from the environment when not given in code; a bad value names the variable", () => {
    expect(retentionFromEnv({})).toEqual({});
    expect(
      retentionFromEnv({
        TOOLGRAPH_RECOMMENDATION_LOG_MAX_ANSWERS: "5000",
        TOOLGRAPH_RECOMMENDATION_LOG_MAX_OUTCOMES: " 0 ",
      }),
    ).toEqual({ maxPerProject: 5000, maxOutcomesPerProject: 0 });
    expect(() => retentionFromEnv({ TOOLGRAPH_RECOMMENDATION_LOG_MAX_OUTCOMES: "1e5" })).toThrow(
      /^TOOLGRAPH_RECOMMENDATION_LOG_MAX_OUTCOMES: must be a whole number ≥ 0 \(got "1e5"\)$/,
    );
    expect(() => retentionFromEnv({ TOOLGRAPH_RECOMMENDATION_LOG_MAX_ANSWERS: "-1" })).toThrow(/MAX_ANSWERS/);
    expect(RECOMMENDATION_LOG_DEFAULTS).toMatchObject({
      maxPerProject: 100_000,
      maxOutcomesPerProject: 100_000,
      pruneEveryRows: 10_000,
    });
  });

  it("summarizeAnswer: a list answer without an overall gate takes the best item decision", () => {
    const r = {
      results: [
        { tool: "a", score: 0.4, gate: { decision: "abstained" } },
        { tool: "b", score: 0.3, gate: { decision: "accepted-with-caution" } },
      ],
    };
    expect(summarizeAnswer("search", r)).toEqual({
      items: [
        { id: "a", score: 0.4, decision: "abstained" },
        { id: "b", score: 0.3, decision: "accepted-with-caution" },
      ],
      decision: "accepted-with-caution",
      topScore: 0.4,
    });
    expect(summarizeAnswer("search", { results: [] })).toEqual({ items: [], decision: "none", topScore: null });
  });

  it("newRecommendationId: time-ordered prefix, 48 random bits, distinct across entropy refills", () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => newRecommendationId(NOW + (i < 1_000 ? 0 : 1)));
    expect(new Set(ids).size).toBe(2_000);
    for (const id of ids.slice(0, 1_000)) expect(id).toMatch(new RegExp(`^rec_${NOW.toString(36)}[0-9a-f]{12}$`));
    for (const id of ids.slice(1_000)) expect(id.startsWith(`rec_${(NOW + 1).toString(36)}`)).toBe(true);
  });

  it("summarizeRequest keeps the known fields only, lists cut to 20 entries and texts to 500 characters", () => {
    const context = Array.from({ length: 30 }, (_, i) => `t${i}`);
    const r = summarizeRequest({
      intent: "x".repeat(600),
      context,
      limit: 3,
      user: "ann",
      session: "s",
      explain: true,
      environment: { production: true },
      exclude: undefined,
    });
    expect(r).toEqual({
      intent: "x".repeat(500),
      context: context.slice(0, 20),
      limit: 3,
      environment: { production: true },
    });
    expect(summarizeRequest(undefined)).toEqual({});
  });

  it("summarizeAnswer equals its plain reading (map every item, keep the first maxItems, decide over them) on random answers", () => {
    const decision = fc.constantFrom("accepted", "accepted-with-caution", "abstained", undefined, 3);
    const item = fc.record(
      {
        tool: fc.option(fc.constantFrom("a", "b", "c"), { nil: undefined }),
        capability: fc.option(fc.constant("cap"), { nil: undefined }),
        id: fc.option(fc.constant("x"), { nil: undefined }),
        score: fc.oneof(fc.double(), fc.constant(undefined), fc.constant("0.5")),
        gate: fc.option(fc.record({ decision }), { nil: undefined }),
      },
      { requiredKeys: [] },
    );
    const answer = fc.record(
      {
        results: fc.array(item, { maxLength: 25 }),
        suggestions: fc.array(item, { maxLength: 25 }),
        tools: fc.array(item, { maxLength: 25 }),
        nodes: fc.array(item, { maxLength: 25 }),
        gate: fc.record({ decision }),
        confidence: fc.oneof(fc.double(), fc.record({ score: fc.double() })),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.constantFrom("search", "next", "dag", "plan", "capabilities"),
        answer,
        fc.integer({ min: 0, max: 30 }),
        (job, r, maxItems) => {
          expect(summarizeAnswer(job, r, maxItems)).toEqual(plainSummary(job, r, maxItems));
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** The summary read plainly: every item mapped, the first maxItems kept, the decision over the kept ones. */
function plainSummary(job: string, result: unknown, maxItems: number) {
  type Obj = Record<string, unknown>;
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  const decisionOf = (v: unknown) => str((v as Obj | undefined)?.decision);
  const r = (result ?? {}) as Obj;
  let items: { id: string; score: number | null; decision: string | null }[] = [];
  const list = (Array.isArray(r.results) ? r.results : Array.isArray(r.suggestions) ? r.suggestions : undefined) as
    | Obj[]
    | undefined;
  if (list)
    items = list.map((x) => ({
      id: str(x.tool) ?? str(x.capability) ?? str(x.id) ?? "?",
      score: num(x.score),
      decision: decisionOf(x.gate),
    }));
  else if (job === "plan" || job === "dag") {
    const tools = (Array.isArray(r.tools) ? r.tools : Array.isArray(r.nodes) ? r.nodes : []) as Obj[];
    items = tools.map((x) => ({ id: str(x.tool) ?? "?", score: null, decision: decisionOf(r.gate) }));
  }
  items = items.slice(0, maxItems);
  let decision = decisionOf(r.gate);
  if (decision === null && list) {
    const ds = items.map((i) => i.decision);
    decision = ds.includes("accepted")
      ? "accepted"
      : ds.includes("accepted-with-caution")
        ? "accepted-with-caution"
        : ds.length > 0 && ds.every((d) => d === "abstained")
          ? "abstained"
          : null;
  }
  const topScore =
    items.length > 0 && items[0]!.score !== null
      ? items[0]!.score
      : (num(r.confidence) ?? num((r.confidence as Obj | undefined)?.score));
  return { items, decision: decision ?? "none", topScore };
}
