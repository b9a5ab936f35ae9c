/**
 * The two write paths of executions on both backends: one recorded execution (`checkExecution` +
 * the single CTE statement of `insertExecution`, taken by `importExecutions` for one record) and the
 * batch path (`insertExecutions`). They must store exactly the same rows; re-recording an id changes
 * nothing; an unknown tool fails naming the field and writes nothing; the user's history and the graph
 * version move exactly once per execution inserted — also with two connections writing at once.
 */
import fc from "fast-check";
import { type Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { learnEdges, learnSuccessions } from "../../algorithms/graph/edge-learning.ts";
import { emptyUserHistory, type UserHistory, updateUserHistory } from "../../algorithms/thresholds/user-history.ts";
import { ImportError } from "../../src/formats/parse.ts";
import type { ExecutionInput } from "../../src/formats/schemas.ts";
import { importCatalog, importExecutions, type UserHistoryUpdate, validateExecution } from "../../src/jobs/import.ts";
import { sha256 } from "../../src/store/catalog.ts";
import type { Connection } from "../../src/store/connection.ts";
import { type EdgesOf, insertExecution, insertExecutions } from "../../src/store/executions.ts";
import { bumpGraphVersion, graphVersion } from "../../src/store/projects.ts";
import { loadEdges } from "../../src/store/reads.ts";
import type { Database } from "../../src/store/schema.ts";
import { backends, connectionPerSuite, freshProject } from "../helpers/backends.ts";

const edgesOf: EdgesOf = (e) => ({ edges: learnEdges(e.steps), successions: learnSuccessions(e.steps) });

const catalog = JSON.stringify({
  tools: ["a", "b", "c", "d"].map((id) => ({ id, description: `tool ${id}` })),
  capabilities: [{ id: "cap1", name: "Cap one", tools: ["a", "b"] }],
});

/** A user-history step without context detection: outcomes folded in start order (as the service does). */
const history: UserHistoryUpdate = (stored, inserted) => {
  const byUser = new Map<string, ExecutionInput[]>();
  for (const e of inserted) if (e.user) byUser.set(e.user, [...(byUser.get(e.user) ?? []), e]);
  return [...byUser].map(([user, list]) => [
    user,
    list
      .slice()
      .sort((x, y) => x.startedAt.getTime() - y.startedAt.getTime())
      .reduce(
        (h, e) => updateUserHistory(h, { success: e.success, at: e.startedAt.getTime() }),
        stored.get(user) ?? emptyUserHistory(),
      ),
  ]);
};

const exec = (value: object): ExecutionInput => validateExecution(value);
const one = (e: ExecutionInput) => [{ line: 1, value: e }];
const many = (es: readonly ExecutionInput[]) => es.map((value, i) => ({ line: i + 1, value }));

/** Everything an execution writes, per table, without the project key and write-time clocks. */
async function tables(db: Kysely<Database>, project: string) {
  const q = async (text: string) => (await sql<Record<string, unknown>>`${sql.raw(text)}`.execute(db)).rows;
  const p = `'${project.replace(/'/g, "''")}'`;
  return {
    executions: await q(
      `SELECT id, user_id, intent, intent_hash, capability_id, started_at, success, duration_ms, step_count FROM executions WHERE project = ${p} ORDER BY id`,
    ),
    steps: await q(
      `SELECT execution_id, idx, tool_id, parent_idx, depends_on, success, duration_ms, at FROM execution_steps WHERE project = ${p} ORDER BY execution_id, idx`,
    ),
    edges: await q(
      `SELECT from_tool, to_tool, dep_count, con_count, prov_count, seq_count, dep_declared, con_declared, prov_declared, seq_declared, weight, type, source, first_seen, last_seen FROM edges WHERE project = ${p} ORDER BY from_tool, to_tool`,
    ),
    toolStats: await q(
      `SELECT tool_id, executions, successes, total_duration_ms, last_used_at FROM tool_stats WHERE project = ${p} ORDER BY tool_id`,
    ),
    capabilityTools: await q(
      `SELECT capability_id, tool_id, declared, observations FROM capability_tools WHERE project = ${p} ORDER BY capability_id, tool_id`,
    ),
    userHistory: await q(`SELECT user_id, history FROM user_history WHERE project = ${p} ORDER BY user_id`),
    tools: await q(`SELECT id, auto_registered FROM tools WHERE project = ${p} ORDER BY id`),
    capabilities: await q(`SELECT id FROM capabilities WHERE project = ${p} ORDER BY id`),
  };
}

async function userHistoryOf(db: Kysely<Database>, project: string, user: string): Promise<UserHistory | undefined> {
  const row = await db
    .selectFrom("user_history")
    .select("history")
    .where("project", "=", project)
    .where("user_id", "=", user)
    .executeTakeFirst();
  return row?.history as UserHistory | undefined;
}

const T = "2026-03-01T10:00:00.000Z";
/** Hand-checked: a contains b; a, c, a top-level siblings; c depends on a. */
const sample = () =>
  exec({
    id: "r1",
    user: "u1",
    intent: "deploy the service",
    capability: "cap1",
    startedAt: T,
    success: false,
    steps: [
      { tool: "a", durationMs: 10, at: "2026-03-01T10:00:01.000Z" },
      { tool: "b", parent: 0, durationMs: 5, success: false, at: "2026-03-01T10:00:02.000Z" },
      { tool: "c", dependsOn: [0], durationMs: 2 },
      { tool: "a", durationMs: 1, at: "2026-03-01T10:00:03.000Z" },
    ],
  });

for (const backend of backends()) {
  describe(`recording one execution on ${backend.name}`, () => {
    let conn: Connection;
    const project = async () => {
      const p = freshProject("rec");
      await importCatalog(conn.db, p, catalog, "catalog.json", { validatePattern: () => undefined });
      return p;
    };
    connectionPerSuite(backend, (c) => {
      conn = c;
    });

    it("the single statement stores exactly what the batch path stores (hand-checked rows)", async () => {
      const [pa, pb] = [await project(), await project()];
      const e = sample();
      const batch = await conn.db.transaction().execute(async (trx) => {
        const r = await insertExecutions(trx, pa, [e], sha256, edgesOf);
        await bumpGraphVersion(trx, pa);
        return r;
      });
      const single = await conn.db.transaction().execute((trx) => insertExecution(trx, pb, e, sha256, edgesOf));
      expect(batch).toEqual({ inserted: ["r1"], skipped: [], steps: 4, edgesTouched: 3 });
      expect(single).toEqual({ inserted: true, steps: 4, edgesTouched: 3, graphVersion: 2 });
      const [a, b] = [await tables(conn.db, pa), await tables(conn.db, pb)];
      expect(b).toEqual(a);
      expect(await graphVersion(conn.db, pb)).toBe(await graphVersion(conn.db, pa));
      // By hand: a→b contains, a→c sequence + dependency, c→a sequence; seen at the latest step time.
      const seen = new Date("2026-03-01T10:00:03.000Z");
      expect(b.edges.map((x) => [x.from_tool, x.to_tool, x.dep_count, x.con_count, x.seq_count])).toEqual([
        ["a", "b", 0, 1, 0],
        ["a", "c", 1, 0, 1],
        ["c", "a", 0, 0, 1],
      ]);
      expect(
        b.edges.every(
          (x) =>
            (x.first_seen as Date).getTime() === seen.getTime() && (x.last_seen as Date).getTime() === seen.getTime(),
        ),
      ).toBe(true);
      expect(b.toolStats.map((x) => [x.tool_id, x.executions, x.successes, Number(x.total_duration_ms)])).toEqual([
        ["a", 2, 2, 11],
        ["b", 1, 0, 5],
        ["c", 1, 1, 2],
      ]);
      expect((b.toolStats[2]!.last_used_at as Date).toISOString()).toBe(T); // c has no `at`: the start time
      expect(b.capabilityTools.map((x) => [x.tool_id, x.declared, x.observations])).toEqual([
        ["a", true, 1],
        ["b", true, 1],
        ["c", false, 1],
      ]);
      expect(b.executions).toEqual([
        expect.objectContaining({
          id: "r1",
          user_id: "u1",
          capability_id: "cap1",
          success: false,
          duration_ms: 18,
          step_count: 4,
        }),
      ]);
      expect(b.executions[0]!.intent_hash).toBe(sha256("deploy the service"));
      expect(b.steps.map((x) => [x.idx, x.tool_id, x.parent_idx, x.depends_on, x.success])).toEqual([
        [0, "a", null, [], true],
        [1, "b", 0, [], false],
        [2, "c", null, [0], true],
        [3, "a", null, [], true],
      ]);
    });

    it("an execution without edges or capability writes only what applies (empty parts skipped)", async () => {
      const p = await project();
      const r = await importExecutions(
        conn.db,
        p,
        one(exec({ id: "solo", startedAt: T, success: true, steps: [{ tool: "d" }] })),
        "x",
        {},
      );
      expect(r).toMatchObject({
        inserted: 1,
        skippedExisting: 0,
        steps: 1,
        edgesTouched: 0,
        graphVersion: 2,
        insertedIds: ["solo"],
      });
      const t = await tables(conn.db, p);
      expect(t.edges).toEqual([]);
      expect(t.toolStats.map((x) => [x.tool_id, x.executions])).toEqual([["d", 1]]);
      expect(t.capabilityTools.every((x) => x.observations === 0)).toBe(true);
    });

    it("the first write of a project creates its row at version 1", async () => {
      const p = freshProject("rec-new");
      const r = await importExecutions(
        conn.db,
        p,
        one(exec({ id: "x", startedAt: T, success: true, steps: [{ tool: "a" }] })),
        "x",
        { autoRegister: true },
      );
      expect(r).toMatchObject({ inserted: 1, autoRegistered: ["a"], graphVersion: 1 });
      expect(await graphVersion(conn.db, p)).toBe(1);
    });

    it("re-recording the same id changes nothing (single and batch paths), even with another payload", async () => {
      const p = await project();
      const first = await importExecutions(conn.db, p, one(sample()), "x", { userHistory: history });
      expect(first).toMatchObject({ inserted: 1, skippedExisting: 0, graphVersion: 2 });
      const before = await tables(conn.db, p);
      const other = exec({ id: "r1", user: "u2", startedAt: T, success: true, steps: [{ tool: "c" }, { tool: "d" }] });
      for (const e of [sample(), other]) {
        const again = await importExecutions(conn.db, p, one(e), "x", { userHistory: history });
        expect(again).toMatchObject({
          inserted: 0,
          skippedExisting: 1,
          steps: 0,
          edgesTouched: 0,
          graphVersion: 2,
          insertedIds: [],
        });
        expect(await tables(conn.db, p)).toEqual(before); // u2 (a new user) got no history row either
      }
      const viaBatch = await importExecutions(conn.db, p, many([sample(), { ...other, id: "r1-batch-twin" }]), "x", {
        userHistory: history,
      });
      expect(viaBatch).toMatchObject({ inserted: 1, skippedExisting: 1, insertedIds: ["r1-batch-twin"] });
      const after = await tables(conn.db, p);
      expect(after.executions.map((x) => x.id)).toEqual(["r1", "r1-batch-twin"]);
      expect(after.toolStats.map((x) => [x.tool_id, x.executions])).toEqual([
        ["a", 2],
        ["b", 1],
        ["c", 2],
        ["d", 1],
      ]); // the twin counted, r1 once
      expect(before.toolStats.map((x) => [x.tool_id, x.executions])).toEqual([
        ["a", 2],
        ["b", 1],
        ["c", 1],
      ]);
      const onlyR1 = await importExecutions(conn.db, p, one(sample()), "x", { userHistory: history });
      expect(onlyR1.inserted).toBe(0);
      expect(await tables(conn.db, p)).toEqual(after);
      expect((await userHistoryOf(conn.db, p, "u1"))!.taskCount).toBe(1);
    });

    it("a batch of already-stored executions naming a new user changes nothing (no history row left)", async () => {
      const p = await project();
      const stored = [sample(), exec({ id: "r2", user: "u1", startedAt: T, success: true, steps: [{ tool: "b" }] })];
      for (const e of stored) await importExecutions(conn.db, p, one(e), "x", { userHistory: history });
      const before = await tables(conn.db, p);
      const r = await importExecutions(conn.db, p, many(stored.map((e) => ({ ...e, user: "newbie" }))), "x", {
        userHistory: history,
      });
      expect(r).toMatchObject({ inserted: 0, skippedExisting: 2, graphVersion: 3 });
      expect(await tables(conn.db, p)).toEqual(before);
    });

    describe("bad references fail naming the field and write nothing", () => {
      const cases: [string, object, string, RegExp][] = [
        [
          "an unknown tool",
          { id: "bad", user: "u1", startedAt: T, success: true, steps: [{ tool: "a" }, { tool: "zzz" }] },
          "steps[1].tool",
          /unknown tool "zzz"/,
        ],
        [
          "an unknown capability",
          { id: "bad", user: "u1", capability: "nope", startedAt: T, success: true, steps: [{ tool: "a" }] },
          "capability",
          /unknown capability "nope"/,
        ],
      ];
      for (const [name, value, field, message] of cases) {
        it(name, async () => {
          const p = await project();
          await importExecutions(conn.db, p, one(sample()), "x", { userHistory: history });
          const before = await tables(conn.db, p);
          const version = await graphVersion(conn.db, p);
          const err = await importExecutions(conn.db, p, one(exec(value)), "execution", { userHistory: history }).catch(
            (x: unknown) => x,
          );
          expect(err).toBeInstanceOf(ImportError);
          // The advice travels as data too: each door spells it (test/library/door-advice.test.ts).
          expect((err as ImportError).errors).toEqual([
            {
              file: "execution",
              line: 1,
              field,
              message: expect.stringMatching(message),
              advice: { kind: "auto-register" },
            },
          ]);
          expect(await tables(conn.db, p)).toEqual(before);
          expect(await graphVersion(conn.db, p)).toBe(version);
          // skipInvalid reports it instead, still writing nothing
          const skipped = await importExecutions(conn.db, p, one(exec(value)), "execution", {
            userHistory: history,
            skipInvalid: true,
          });
          expect(skipped).toMatchObject({ inserted: 0, graphVersion: version, invalid: [{ field }] });
          expect(await tables(conn.db, p)).toEqual(before);
        });
      }

      it("with autoRegister the tool and capability are registered and the version bumps once", async () => {
        const p = await project();
        const v = await graphVersion(conn.db, p);
        const value = exec({
          id: "auto",
          capability: "newcap",
          startedAt: T,
          success: true,
          steps: [{ tool: "a" }, { tool: "zzz" }],
        });
        const r = await importExecutions(conn.db, p, one(value), "x", { autoRegister: true });
        expect(r).toMatchObject({ inserted: 1, autoRegistered: ["zzz"], graphVersion: v + 1 });
        const t = await tables(conn.db, p);
        expect(t.tools).toContainEqual({ id: "zzz", auto_registered: true });
        expect(t.capabilities.map((x) => x.id)).toContain("newcap");
        expect(
          t.capabilityTools.filter((x) => x.capability_id === "newcap").map((x) => [x.tool_id, x.observations]),
        ).toEqual([
          ["a", 1],
          ["zzz", 1],
        ]);
      });
    });

    it("updates the user's history and the graph version once per execution inserted", async () => {
      const p = await project();
      const v = await graphVersion(conn.db, p);
      const e1 = exec({
        id: "h1",
        user: "ana",
        startedAt: "2026-03-01T10:00:00Z",
        success: true,
        steps: [{ tool: "a" }],
      });
      const e2 = exec({
        id: "h2",
        user: "ana",
        startedAt: "2026-03-01T11:00:00Z",
        success: false,
        steps: [{ tool: "b" }],
      });
      expect((await importExecutions(conn.db, p, one(e1), "x", { userHistory: history })).graphVersion).toBe(v + 1);
      expect(await userHistoryOf(conn.db, p, "ana")).toEqual(
        JSON.parse(
          JSON.stringify(updateUserHistory(emptyUserHistory(), { success: true, at: e1.startedAt.getTime() })),
        ),
      );
      expect((await importExecutions(conn.db, p, one(e1), "x", { userHistory: history })).graphVersion).toBe(v + 1);
      expect((await importExecutions(conn.db, p, one(e2), "x", { userHistory: history })).graphVersion).toBe(v + 2);
      const h = (await userHistoryOf(conn.db, p, "ana"))!;
      expect([h.taskCount, h.successCount, h.errorCount, h.recent, h.lastTaskAt]).toEqual([
        2,
        1,
        1,
        [true, false],
        e2.startedAt.getTime(),
      ]);
      expect(await graphVersion(conn.db, p)).toBe(v + 2);
      // withinTransaction still runs, inside the transaction, only for an execution inserted
      const seen: string[] = [];
      const within = async (_trx: unknown, inserted: ExecutionInput[]) => {
        seen.push(...inserted.map((x) => x.id));
      };
      await importExecutions(conn.db, p, one(e2), "x", { withinTransaction: within });
      await importExecutions(conn.db, p, one({ ...e2, id: "h3" }), "x", { withinTransaction: within });
      expect(seen).toEqual(["h3"]);
    });

    it("a batch whose edges span several statements stores what batches of a hundred store", async () => {
      const wide = JSON.stringify({ tools: Array.from({ length: 120 }, (_, i) => ({ id: `w${i}` })) });
      const [pa, pb] = [freshProject("wide"), freshProject("wide")];
      for (const p of [pa, pb])
        await importCatalog(conn.db, p, wide, "catalog.json", { validatePattern: () => undefined });
      let seed = 7;
      const next = () => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return (seed >>> 16) % 120;
      };
      const es = Array.from({ length: 2000 }, (_, k) =>
        exec({
          id: `x${k}`,
          startedAt: new Date(Date.UTC(2026, 2, 1) + k * 1000).toISOString(),
          success: true,
          steps: [0, 1, 2, 3, 4].map((i) => ({ tool: `w${next()}`, dependsOn: i > 0 ? [i - 1] : [] })),
        }),
      );
      await importExecutions(conn.db, pa, many(es), "x", {});
      for (let k = 0; k < es.length; k += 100) await importExecutions(conn.db, pb, many(es.slice(k, k + 100)), "x", {});
      const [a, b] = [await tables(conn.db, pa), await tables(conn.db, pb)];
      // Over 5,000 distinct edges: the one batch wrote them in three statements or more.
      expect(a.edges.length).toBeGreaterThan(5000);
      expect(a).toEqual(b);
      // loadEdges reads them in pages of 2,500, and lists what one query lists, in its order.
      const paged = await loadEdges(conn.db, pa);
      const once = (
        await sql<{ from_tool: string; to_tool: string; weight: number; seq_count: number }>`
          SELECT from_tool, to_tool, weight, seq_count FROM edges WHERE project = ${pa} AND weight > 0
          ORDER BY from_tool, to_tool`.execute(conn.db)
      ).rows;
      expect(paged.map((e) => [e.from, e.to, e.weight, e.counts.sequence])).toEqual(
        once.map((r) => [r.from_tool, r.to_tool, r.weight, r.seq_count]),
      );
    });

    it("property: N executions recorded one by one store what one batch of them stores", async () => {
      const step = fc.record({
        tool: fc.constantFrom("a", "b", "c", "d"),
        parent: fc.option(fc.nat(), { nil: undefined }),
        dependsOn: fc.array(fc.nat(), { maxLength: 2 }),
        success: fc.boolean(),
        durationMs: fc.option(fc.nat(100), { nil: undefined }),
        at: fc.option(fc.nat(600), { nil: undefined }),
      });
      const execution = fc.record({
        user: fc.constantFrom(undefined, "u1", "u2"),
        capability: fc.constantFrom(undefined, "cap1"),
        intent: fc.constantFrom(undefined, "ship it", "send the report"),
        start: fc.nat(5),
        success: fc.boolean(),
        steps: fc.array(step, { minLength: 1, maxLength: 4 }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(execution, { minLength: 1, maxLength: 5 }), async (raw) => {
          const es = raw.map((x, k) => {
            const start = Date.UTC(2026, 2, 1, 10, x.start);
            return exec({
              id: `e${k}`,
              ...(x.user ? { user: x.user } : {}),
              ...(x.capability ? { capability: x.capability } : {}),
              ...(x.intent ? { intent: x.intent } : {}),
              startedAt: new Date(start).toISOString(),
              success: x.success,
              steps: x.steps.map((s, i) => ({
                tool: s.tool,
                ...(i > 0 && s.parent !== undefined ? { parent: s.parent % i } : {}),
                dependsOn: i > 0 ? [...new Set(s.dependsOn.map((d) => d % i))] : [],
                success: s.success,
                ...(s.durationMs !== undefined ? { durationMs: s.durationMs } : {}),
                ...(s.at !== undefined ? { at: new Date(start + s.at * 1000).toISOString() } : {}),
              })),
            });
          });
          const [pa, pb] = [await project(), await project()];
          const [va, vb] = [await graphVersion(conn.db, pa), await graphVersion(conn.db, pb)];
          const batch = await importExecutions(conn.db, pa, many(es), "x", { userHistory: history });
          expect(batch.inserted).toBe(es.length);
          // one by one, in start order (the order a batch applies user histories in)
          const ordered = es.slice().sort((x, y) => x.startedAt.getTime() - y.startedAt.getTime());
          for (const e of ordered)
            expect((await importExecutions(conn.db, pb, one(e), "x", { userHistory: history })).inserted).toBe(1);
          expect(await tables(conn.db, pb)).toEqual(await tables(conn.db, pa));
          expect(await graphVersion(conn.db, pa)).toBe(va + 1);
          expect(await graphVersion(conn.db, pb)).toBe(vb + es.length);
        }),
        { numRuns: 12, seed: 20261122 },
      );
    });

    it.skipIf(backend.name === "pglite")(
      "two connections at once: one id counted once; one new user's history gets every execution",
      async () => {
        const other = await backend.open({ migrate: false });
        try {
          const p = await project();
          const v = await graphVersion(conn.db, p);
          for (let round = 0; round < 4; round++) {
            const e = exec({
              id: `same-${round}`,
              user: "racer",
              startedAt: T,
              success: true,
              steps: [{ tool: "a" }, { tool: "b" }],
            });
            const rs = await Promise.all(
              [conn.db, other.db, conn.db, other.db].map((db) =>
                importExecutions(db, p, one(e), "x", { userHistory: history }),
              ),
            );
            expect(rs.map((r) => r.inserted).reduce((s, x) => s + x, 0)).toBe(1);
          }
          const fresh = Array.from({ length: 8 }, (_, k) =>
            exec({
              id: `new-${k}`,
              user: "newcomer",
              startedAt: `2026-03-01T10:0${k}:00Z`,
              success: k % 2 === 0,
              steps: [{ tool: "c" }, { tool: "a" }],
            }),
          );
          const rs = await Promise.all(
            fresh.map((e, k) => importExecutions(k % 2 ? other.db : conn.db, p, one(e), "x", { userHistory: history })),
          );
          expect(rs.every((r) => r.inserted === 1)).toBe(true);
          expect(new Set(rs.map((r) => r.graphVersion)).size).toBe(8); // each bump seen exactly once
          const t = await tables(conn.db, p);
          expect(t.toolStats.map((x) => [x.tool_id, x.executions])).toEqual([
            ["a", 12],
            ["b", 4],
            ["c", 8],
          ]);
          expect((await userHistoryOf(conn.db, p, "racer"))!.taskCount).toBe(4);
          expect((await userHistoryOf(conn.db, p, "newcomer"))!.taskCount).toBe(8);
          expect(await graphVersion(conn.db, p)).toBe(v + 12);
        } finally {
          await other.close();
        }
      },
    );
  });
}
