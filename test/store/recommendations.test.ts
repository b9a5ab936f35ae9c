import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { liveMetrics } from "../../src/jobs/live-metrics.ts";
import type { Connection } from "../../src/store/connection.ts";
import {
  countRecommendations,
  insertOutcomes,
  insertRecommendations,
  joinedRecommendations,
  type OutcomeRow,
  pruneRecommendations,
  type RecommendationRow,
} from "../../src/store/recommendations.ts";
import { backends, connectionPerSuite, freshProject } from "../helpers/backends.ts";

const T0 = Date.parse("2026-11-20T10:00:00Z");
const min = 60_000;

function answer(project: string, id: string, at: number, over: Partial<RecommendationRow> = {}): RecommendationRow {
  return {
    project,
    id,
    job: "search",
    createdAt: new Date(at),
    user: null,
    session: null,
    graphVersion: 3,
    request: { intent: `intent ${id}` },
    items: [
      { id: "a", score: 0.9, decision: "accepted" },
      { id: "b", score: 0.5, decision: "abstained" },
    ],
    decision: "accepted",
    topScore: 0.9,
    latencyMs: 2,
    ...over,
  };
}

function outcome(project: string, at: number, over: Partial<OutcomeRow>): OutcomeRow {
  return {
    project,
    recommendationId: null,
    session: null,
    kind: "execution",
    at: new Date(at),
    success: true,
    followed: null,
    executionId: null,
    tools: [],
    ...over,
  };
}

for (const backend of backends()) {
  describe(`recommendation log store on ${backend.name}`, () => {
    let conn: Connection;
    connectionPerSuite(backend, (c) => {
      conn = c;
    });

    it("round-trips an answer: every field comes back as written", async () => {
      const p = freshProject();
      const row = answer(p, "r1", T0, { user: "ann", session: "s1", graphVersion: 17, latencyMs: 1.25 });
      await insertRecommendations(conn.db, [row]);
      const [got] = await joinedRecommendations(conn.db, p);
      expect(got).toEqual({
        id: "r1",
        job: "search",
        createdAt: new Date(T0),
        user: "ann",
        session: "s1",
        graphVersion: 17,
        request: { intent: "intent r1" },
        items: row.items,
        decision: "accepted",
        topScore: 0.9,
        latencyMs: 1.25,
        outcome: null,
      });
    });

    it("round-trips any batch of answers and outcomes field by field (texts with quotes, escapes and any Unicode; extreme numbers; nulls)", async () => {
      // Texts PostgreSQL can store (no NUL), numbers as JSON carries them (finite; -0 is written as 0).
      const text = fc.string({ unit: "grapheme", maxLength: 12 }).filter((x) => !x.includes("\u0000"));
      const num = fc
        .oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.constantFrom(0, 1, 5e-324, 1.7976931348623157e308, 1e21, 0.1 + 0.2),
        )
        .map((x) => (Object.is(x, -0) ? 0 : x));
      const at = fc
        .integer({ min: Date.parse("2000-01-01T00:00:00Z"), max: Date.parse("2099-12-31T23:59:59.999Z") })
        .map((t) => new Date(t));
      const item = fc.record({
        id: text,
        score: fc.option(num, { nil: null }),
        decision: fc.option(text, { nil: null }),
      });
      const row = fc.record({
        job: text,
        createdAt: at,
        user: fc.option(text, { nil: null }),
        session: fc.option(text, { nil: null }),
        graphVersion: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        request: fc.dictionary(text, fc.oneof(text, num, fc.array(text, { maxLength: 3 }))),
        items: fc.array(item, { maxLength: 4 }),
        decision: text,
        topScore: fc.option(num, { nil: null }),
        latencyMs: fc.option(num, { nil: null }),
      });
      const out = fc.record({
        kind: fc.constantFrom("feedback" as const, "execution" as const),
        at,
        success: fc.boolean(),
        followed: fc.option(fc.boolean(), { nil: null }),
        executionId: fc.option(text, { nil: null }),
        tools: fc.array(text, { maxLength: 3 }),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(row, { minLength: 1, maxLength: 6 }),
          fc.array(out, { maxLength: 4 }),
          async (rows, outs) => {
            const p = freshProject();
            // Distinct times so the read order (created_at, id) is the written order; ids distinct, any text.
            const written = rows.map((r, i) => ({
              ...r,
              project: p,
              id: `${i}\u00e9"\\'${r.job}`,
              createdAt: new Date(Date.parse("2026-01-01T00:00:00Z") + i * 1000 + (r.createdAt.getTime() % 1000)),
            }));
            await insertRecommendations(conn.db, written);
            const got = await joinedRecommendations(conn.db, p);
            expect(got.map(({ outcome: _o, ...r }) => r)).toEqual(written.map(({ project: _p, ...r }) => r));
            // Outcomes all name the first answer: the one joined is the latest by time, the later-written on a tie.
            const named = outs.map((o) => ({ ...o, project: p, recommendationId: written[0]!.id, session: null }));
            await insertOutcomes(conn.db, named);
            const [first] = await joinedRecommendations(conn.db, p);
            let latest: (typeof named)[number] | undefined;
            for (const o of named) if (!latest || o.at.getTime() >= latest.at.getTime()) latest = o;
            expect(first!.outcome).toEqual(
              latest
                ? {
                    kind: latest.kind,
                    success: latest.success,
                    followed: latest.followed,
                    tools: latest.tools,
                    at: latest.at,
                  }
                : null,
            );
          },
        ),
        { numRuns: 25, seed: 22 },
      );
    });

    it("joins an outcome by id, or by session when it came after the answer; the latest outcome wins", async () => {
      const p = freshProject();
      await insertRecommendations(conn.db, [
        answer(p, "by-id", T0),
        answer(p, "by-session", T0 + min, { session: "wf-1" }),
        answer(p, "session-later", T0 + 10 * min, { session: "wf-1" }),
        answer(p, "none", T0 + 2 * min),
      ]);
      await insertOutcomes(conn.db, [
        outcome(p, T0 + 3 * min, { recommendationId: "by-id", kind: "feedback", success: false, followed: true }),
        outcome(p, T0 + 4 * min, { recommendationId: "by-id", kind: "feedback", success: true, followed: true }),
        // The session's execution came at +5 min: it follows by-session (+1) but not session-later (+10).
        outcome(p, T0 + 5 * min, { session: "wf-1", executionId: "wf-1", tools: ["a", "c"] }),
      ]);
      const rows = await joinedRecommendations(conn.db, p);
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(rows.map((r) => r.id)).toEqual(["by-id", "by-session", "none", "session-later"]);
      expect(byId.get("by-id")!.outcome).toMatchObject({ kind: "feedback", success: true });
      expect(byId.get("by-session")!.outcome).toMatchObject({ kind: "execution", success: true, tools: ["a", "c"] });
      expect(byId.get("session-later")!.outcome).toBeNull();
      expect(byId.get("none")!.outcome).toBeNull();
      // Another project sees none of it.
      expect(await joinedRecommendations(conn.db, freshProject())).toEqual([]);
    });

    it("retention keeps the newest N and drops what is older than D days", async () => {
      const p = freshProject();
      const day = 86_400_000;
      const now = T0 + 100 * day;
      // 6 answers: two older than 30 days, four recent.
      await insertRecommendations(conn.db, [
        answer(p, "old1", now - 40 * day),
        answer(p, "old2", now - 31 * day),
        answer(p, "n1", now - 4 * day),
        answer(p, "n2", now - 3 * day),
        answer(p, "n3", now - 2 * day),
        answer(p, "n4", now - 1 * day),
      ]);
      await insertOutcomes(conn.db, [
        outcome(p, now - 35 * day, { recommendationId: "old1" }),
        outcome(p, now - day, { recommendationId: "n4" }),
      ]);
      const r = await pruneRecommendations(conn.db, p, {
        maxPerProject: 3,
        maxOutcomesPerProject: 10,
        maxAgeDays: 30,
        now,
      });
      expect(r).toEqual({ recommendations: 3, outcomes: 1 });
      expect((await joinedRecommendations(conn.db, p)).map((x) => x.id)).toEqual(["n2", "n3", "n4"]);
      expect(await countRecommendations(conn.db, p)).toEqual({ recommendations: 3, outcomes: 1 });
    });

    it("property: retention keeps the newest N of each table and nothing past the age bound, whatever the step", async () => {
      const day = 86_400_000;
      const now = T0 + 100 * day;
      // Times from a few values (ties likely), some past the 30-day bound.
      const ages = fc.constantFrom(0, 1, 1, 2, 5, 29, 31, 40).map((d) => now - d * day);
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ id: fc.stringMatching(/^[a-e]{1,3}$/), at: ages }), { maxLength: 12 }),
          fc.array(ages, { maxLength: 12 }),
          fc.nat({ max: 8 }),
          fc.nat({ max: 8 }),
          fc.integer({ min: 1, max: 5 }),
          async (answers, outcomeAts, keep, keepOutcomes, step) => {
            const p = freshProject();
            const unique = [...new Map(answers.map((a) => [a.id, a])).values()];
            await insertRecommendations(
              conn.db,
              unique.map((a) => answer(p, a.id, a.at)),
            );
            await insertOutcomes(
              conn.db,
              outcomeAts.map((at, i) => outcome(p, at, { executionId: `o${i}` })),
            );
            const r = await pruneRecommendations(conn.db, p, {
              maxPerProject: keep,
              maxOutcomesPerProject: keepOutcomes,
              maxAgeDays: 30,
              now,
              step,
            });
            // Independently: drop the old ones, sort newest first by (time, id) / by write order, keep the first N.
            const young = (at: number) => at >= now - 30 * day;
            const keptAnswers = unique
              .filter((a) => young(a.at))
              .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
              .slice(0, keep)
              .map((a) => a.id)
              .sort();
            const keptOutcomes = outcomeAts
              .map((at, i) => ({ at, id: `o${i}`, i }))
              .filter((x) => young(x.at))
              .reverse()
              .slice(0, keepOutcomes)
              .map((x) => x.id)
              .sort();
            const gotAnswers = (await joinedRecommendations(conn.db, p)).map((x) => x.id).sort();
            const gotOutcomes = (
              await conn.db
                .selectFrom("recommendation_outcomes")
                .select("execution_id")
                .where("project", "=", p)
                .execute()
            )
              .map((x) => x.execution_id)
              .sort();
            expect(gotAnswers).toEqual(keptAnswers);
            expect(gotOutcomes).toEqual(keptOutcomes);
            expect(r).toEqual({
              recommendations: unique.length - keptAnswers.length,
              outcomes: outcomeAts.length - keptOutcomes.length,
            });
          },
        ),
        { seed: 27, numRuns: 30 },
      );
    });

    it("retention works in statements of at most `step` rows with a pause between: 10 outcomes, keep 3, step 2", async () => {
      const p = freshProject();
      await insertOutcomes(
        conn.db,
        Array.from({ length: 10 }, (_, i) => outcome(p, T0, { executionId: `o${i}` })),
      );
      let pauses = 0;
      const r = await pruneRecommendations(conn.db, p, {
        maxPerProject: 5,
        maxOutcomesPerProject: 3,
        maxAgeDays: 30,
        now: T0,
        step: 2,
        pause: async () => void pauses++,
      });
      // A pause after each statement. Answers: ANALYZE, an age delete, a rank query finding nothing (3). Outcomes:
      // ANALYZE, an age delete (2), rank 3 found by walking 4 rows in 2 steps (2), 7 rows deleted in statements of
      // 2, 2, 2, 1 (4).
      expect([r.outcomes, pauses]).toEqual([7, 11]);
      const left = await conn.db
        .selectFrom("recommendation_outcomes")
        .select("execution_id")
        .where("project", "=", p)
        .orderBy("id")
        .execute();
      expect(left.map((x) => x.execution_id)).toEqual(["o7", "o8", "o9"]);
    });

    it("retention breaks ties of created_at by id: a frozen clock still keeps exactly N", async () => {
      const p = freshProject();
      await insertRecommendations(
        conn.db,
        ["r3", "r1", "r5", "r2", "r4"].map((id) => answer(p, id, T0)),
      );
      const r = await pruneRecommendations(conn.db, p, {
        maxPerProject: 2,
        maxOutcomesPerProject: 10,
        maxAgeDays: 30,
        now: T0,
      });
      expect(r.recommendations).toBe(3);
      expect((await joinedRecommendations(conn.db, p)).map((x) => x.id)).toEqual(["r4", "r5"]);
    });

    it("retention keeps the newest N outcomes by the order they were written, whatever their time, per project", async () => {
      const p = freshProject();
      const other = freshProject();
      const day = 86_400_000;
      const now = T0 + 100 * day;
      // Seven recent outcomes written in this order (their `at` deliberately not in that order), none tied to an answer.
      const ats = [5, 1, 6, 2, 7, 3, 4].map((h) => now - h * 3_600_000);
      await insertOutcomes(
        conn.db,
        ats.map((at, i) => outcome(p, at, { session: `s${i}`, executionId: `e${i}` })),
      );
      await insertOutcomes(conn.db, [
        outcome(other, now - day, { session: "x" }),
        outcome(other, now - day, { session: "y" }),
      ]);
      const r = await pruneRecommendations(conn.db, p, {
        maxPerProject: 100,
        maxOutcomesPerProject: 3,
        maxAgeDays: 30,
        now,
      });
      expect(r).toEqual({ recommendations: 0, outcomes: 4 });
      const left = await conn.db
        .selectFrom("recommendation_outcomes")
        .select("execution_id")
        .where("project", "=", p)
        .orderBy("id")
        .execute();
      expect(left.map((x) => x.execution_id)).toEqual(["e4", "e5", "e6"]);
      // A second pass has nothing left to do; the other project is untouched; a bound of 0 empties the table.
      expect(
        await pruneRecommendations(conn.db, p, { maxPerProject: 100, maxOutcomesPerProject: 3, maxAgeDays: 30, now }),
      ).toEqual({ recommendations: 0, outcomes: 0 });
      expect((await countRecommendations(conn.db, other)).outcomes).toBe(2);
      expect(
        await pruneRecommendations(conn.db, p, { maxPerProject: 100, maxOutcomesPerProject: 0, maxAgeDays: 30, now }),
      ).toEqual({ recommendations: 0, outcomes: 3 });
    });

    it("live metrics over joined rows: acceptance and precision of accepted answers by hand", async () => {
      const p = freshProject();
      await insertRecommendations(conn.db, [
        answer(p, "acc-right", T0, { session: "w1" }), // accepted; w1 ran a → correct
        answer(p, "acc-wrong", T0 + min, { session: "w2" }), // accepted; w2 ran only b (not accepted) → wrong
        answer(p, "acc-failed", T0 + 2 * min, { session: "w3" }), // accepted; w3 ran a but failed → wrong
        answer(p, "abst", T0 + 3 * min, {
          decision: "abstained",
          topScore: 0.4,
          items: [{ id: "z", score: 0.4, decision: "abstained" }],
        }),
        answer(p, "acc-unjudged", T0 + 4 * min),
        answer(p, "next", T0 + 5 * min, { job: "next", decision: "abstained", topScore: 0.3 }),
      ]);
      await insertOutcomes(conn.db, [
        outcome(p, T0 + 10 * min, { session: "w1", tools: ["x", "a"] }),
        outcome(p, T0 + 10 * min, { session: "w2", tools: ["b"] }),
        outcome(p, T0 + 10 * min, { session: "w3", tools: ["a"], success: false }),
        outcome(p, T0 + 10 * min, { recommendationId: "abst", kind: "feedback", success: true, followed: false }),
      ]);
      const m = liveMetrics(await joinedRecommendations(conn.db, p));
      expect(m.answers).toBe(6);
      expect(m.judged).toBe(4);
      const search = m.perJob.find((j) => j.job === "search")!;
      // search: 5 answers, 4 accepted → acceptance 0.8; 3 accepted judged, 1 correct → precision 1/3.
      expect(search).toMatchObject({ answers: 5, accepted: 4, judged: 4, acceptedJudged: 3, acceptedCorrect: 1 });
      expect(search.acceptance).toBeCloseTo(0.8, 12);
      expect(search.precisionAccepted).toBeCloseTo(1 / 3, 12);
      expect(m.perJob.find((j) => j.job === "next")).toMatchObject({
        answers: 1,
        accepted: 0,
        acceptance: 0,
        precisionAccepted: null,
      });
      // Risk–coverage over the 4 judged answers: scores 0.9 ×3 (1 correct), 0.4 (abstention not followed → wrong).
      expect(m.riskCoverage.map((pt) => [pt.threshold, pt.coverage, pt.precision])).toEqual([
        [0.9, 0.75, 1 / 3],
        [0.4, 1, 0.25],
      ]);
      expect(m.timeline).toHaveLength(1);
      expect(m.timeline[0]).toMatchObject({
        start: "2026-11-20T10:00:00.000Z",
        answers: 6,
        accepted: 4,
        acceptedJudged: 3,
      });
    });
  });
}
