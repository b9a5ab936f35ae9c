import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import fc from "fast-check";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { edgeQuality, type SourceLevel } from "../../algorithms/graph/edge-quality.ts";
import { ImportError } from "../../src/formats/parse.ts";
import { importCatalog, importDeclaredEdges, importTraces } from "../../src/jobs/import.ts";
import type { Connection } from "../../src/store/connection.ts";
import { openConnection } from "../../src/store/connection.ts";
import { acquireDataDirLock } from "../../src/store/data-dir-lock.ts";
import { MIGRATION_NAMES, migrateDown, migrateToLatest } from "../../src/store/migrate.ts";
import { countProject, loadEdges } from "../../src/store/reads.ts";
import { backends, connectionPerSuite, freshProject } from "../helpers/backends.ts";

const okPattern = () => undefined;

const catalog = JSON.stringify({
  tools: [
    { id: "a", name: "Alpha", description: "first tool" },
    { id: "b", name: "Beta", description: "second tool" },
    { id: "c", name: "Gamma", description: "third tool" },
  ],
  capabilities: [{ id: "cap1", name: "Cap one", tools: ["a", "b"] }],
});

const t = (id: string, steps: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, startedAt: "2026-01-01T00:00:00Z", success: true, steps, ...extra });

for (const backend of backends()) {
  describe(`store and import on ${backend.name}`, () => {
    let conn: Connection;
    connectionPerSuite(backend, (c) => {
      conn = c;
    });

    it("migrates down and up again", async () => {
      for (const _ of MIGRATION_NAMES) await migrateDown(conn.db);
      const gone = await sql<{
        n: string;
      }>`select count(*) as n from information_schema.tables where table_name = 'tools' and table_schema = current_schema()`.execute(
        conn.db,
      );
      expect(Number(gone.rows[0]!.n)).toBe(0);
      await migrateToLatest(conn.db);
      const back = await sql<{
        n: string;
      }>`select count(*) as n from information_schema.tables where table_name = 'tools' and table_schema = current_schema()`.execute(
        conn.db,
      );
      expect(Number(back.rows[0]!.n)).toBe(1);
    });

    it("learns edge types, weights and promotion at 3 observations (hand-computed)", async () => {
      const p = freshProject();
      await importCatalog(conn.db, p, catalog, "catalog.json", { validatePattern: okPattern });
      const traces = [
        // E1: a, b, c top level; c depends on a → seq a→b, seq b→c, dep a→c
        t("e1", [{ tool: "a" }, { tool: "b" }, { tool: "c", dependsOn: [0] }]),
        // E2: a contains b and c → con a→b, con a→c, seq b→c (siblings under a)
        t("e2", [{ tool: "a" }, { tool: "b", parent: 0 }, { tool: "c", parent: 0 }]),
        // E3: a, b, c → seq a→b, seq b→c
        t("e3", [{ tool: "a" }, { tool: "b" }, { tool: "c" }]),
      ].join("\n");
      const r = await importTraces(conn.db, p, traces, "t.jsonl");
      expect(r.inserted).toBe(3);
      expect(r.steps).toBe(9);
      let edges = new Map((await loadEdges(conn.db, p)).map((e) => [`${e.from}>${e.to}`, e]));
      // a→b: seq 2 (inferred 0.5×0.7=0.35), con 1 (inferred 0.8×0.7=0.56) → contains, 0.56
      expect(edges.get("a>b")).toMatchObject({
        type: "contains",
        source: "inferred",
        counts: { sequence: 2, contains: 1, dependency: 0 },
      });
      expect(edges.get("a>b")!.weight).toBeCloseTo(0.56, 12);
      // b→c: seq 3 → observed 0.5×1.0 = 0.5
      expect(edges.get("b>c")).toMatchObject({ type: "sequence", source: "observed", counts: { sequence: 3 } });
      expect(edges.get("b>c")!.weight).toBeCloseTo(0.5, 12);
      // a→c: dep 1 (inferred 0.7), con 1 (0.56) → dependency 0.7; a later sequence observation never overwrites it
      expect(edges.get("a>c")!.weight).toBeCloseTo(0.7, 12);
      expect(edges.get("a>c")!.type).toBe("dependency");
      const more = [
        t("e4", [{ tool: "a" }, { tool: "c", dependsOn: [0] }]),
        t("e5", [{ tool: "a" }, { tool: "c", dependsOn: [0] }]),
      ].join("\n");
      await importTraces(conn.db, p, more, "t2.jsonl");
      edges = new Map((await loadEdges(conn.db, p)).map((e) => [`${e.from}>${e.to}`, e]));
      // a→c: dep 3 → observed 1.0; seq 2
      expect(edges.get("a>c")).toMatchObject({
        type: "dependency",
        source: "observed",
        counts: { dependency: 3, sequence: 2, contains: 1 },
      });
      expect(edges.get("a>c")!.weight).toBeCloseTo(1.0, 12);
      // Declared template: b→a sequence template = 0.5 × 0.5 = 0.25
      await importDeclaredEdges(
        conn.db,
        p,
        JSON.stringify({ from: "b", to: "a", type: "sequence", source: "template" }),
        "e.jsonl",
      );
      edges = new Map((await loadEdges(conn.db, p)).map((e) => [`${e.from}>${e.to}`, e]));
      expect(edges.get("b>a")).toMatchObject({ type: "sequence", source: "template" });
      expect(edges.get("b>a")!.weight).toBeCloseTo(0.25, 12);
    });

    it("generated edge columns agree with algorithms/graph/edge-quality.ts", async () => {
      const p = freshProject();
      const level = fc.integer({ min: 0, max: 3 });
      const count = fc.integer({ min: 0, max: 4 });
      const samples = fc.sample(fc.tuple(count, count, count, count, level, level, level, level), {
        numRuns: 120,
        seed: 7,
      });
      const rows = samples.map((s, i) => ({
        project: p,
        from_tool: `f${i}`,
        to_tool: `t${i}`,
        dep_count: s[0],
        con_count: s[1],
        prov_count: s[2],
        seq_count: s[3],
        dep_declared: s[4],
        con_declared: s[5],
        prov_declared: s[6],
        seq_declared: s[7],
      }));
      await conn.db.insertInto("edges").values(rows).execute();
      const stored = await conn.db
        .selectFrom("edges")
        .select(["from_tool", "weight", "type", "source"])
        .where("project", "=", p)
        .execute();
      const byFrom = new Map(stored.map((r) => [r.from_tool, r]));
      samples.forEach((s, i) => {
        const ev = (c: number, d: number) => ({ count: c, declared: d as SourceLevel });
        const q = edgeQuality({
          dependency: ev(s[0], s[4]),
          contains: ev(s[1], s[5]),
          provides: ev(s[2], s[6]),
          sequence: ev(s[3], s[7]),
        });
        const row = byFrom.get(`f${i}`)!;
        expect(row.weight).toBeCloseTo(q.weight, 12);
        expect(row.type).toBe(q.type ?? "none");
        expect(row.source).toBe(q.source ?? "none");
      });
    });

    it("re-importing the same traces is idempotent", async () => {
      const p = freshProject();
      await importCatalog(conn.db, p, catalog, "catalog.json", { validatePattern: okPattern });
      const traces = [t("x1", [{ tool: "a" }, { tool: "b" }]), t("x2", [{ tool: "b" }, { tool: "c" }])].join("\n");
      await importTraces(conn.db, p, traces, "t.jsonl");
      const before = await countProject(conn.db, p);
      const edgesBefore = await loadEdges(conn.db, p);
      const again = await importTraces(conn.db, p, traces, "t.jsonl");
      expect(again.inserted).toBe(0);
      expect(again.skippedExisting).toBe(2);
      const after = await countProject(conn.db, p);
      expect({ ...after, graphVersion: 0 }).toEqual({ ...before, graphVersion: 0 });
      expect(await loadEdges(conn.db, p)).toEqual(edgesBefore);
    });

    it("keeps projects apart", async () => {
      const p1 = freshProject();
      const p2 = freshProject();
      await importCatalog(conn.db, p1, catalog, "catalog.json", { validatePattern: okPattern });
      await importTraces(conn.db, p1, t("y1", [{ tool: "a" }, { tool: "b" }]), "t.jsonl");
      expect((await countProject(conn.db, p2)).tools).toBe(0);
      expect(await loadEdges(conn.db, p2)).toEqual([]);
      // The same execution id in another project is a different execution; unknown tools there are rejected.
      await expect(importTraces(conn.db, p2, t("y1", [{ tool: "a" }, { tool: "b" }]), "t.jsonl")).rejects.toThrow(
        /unknown tool "a"/,
      );
      expect((await countProject(conn.db, p1)).executions).toBe(1);
    });

    describe("bad input leaves the database exactly as before", () => {
      let p: string;
      let snapshot: () => Promise<unknown>;
      beforeAll(async () => {
        p = freshProject();
        await importCatalog(conn.db, p, catalog, "catalog.json", { validatePattern: okPattern });
        await importTraces(conn.db, p, t("z1", [{ tool: "a" }, { tool: "b" }]), "t.jsonl");
        snapshot = async () => ({
          counts: { ...(await countProject(conn.db, p)) },
          edges: await loadEdges(conn.db, p),
          tools: await conn.db
            .selectFrom("tools")
            .select(["id", "description"])
            .where("project", "=", p)
            .orderBy("id")
            .execute(),
        });
      });
      const cases: [string, () => Promise<unknown>, RegExp][] = [
        [
          "malformed JSON",
          () => importTraces(conn.db, p, `${t("ok1", [{ tool: "a" }])}\n{"id": "bad",`, "bad.jsonl"),
          /bad\.jsonl:2: malformed JSON/,
        ],
        [
          "missing field",
          () =>
            importTraces(
              conn.db,
              p,
              `${t("ok2", [{ tool: "a" }])}\n${JSON.stringify({ id: "m", success: true, steps: [{ tool: "a" }] })}`,
              "bad.jsonl",
            ),
          /bad\.jsonl:2: startedAt: /,
        ],
        [
          "unknown tool",
          () => importTraces(conn.db, p, `${t("ok3", [{ tool: "a" }])}\n${t("u", [{ tool: "nope" }])}`, "bad.jsonl"),
          /bad\.jsonl:2: steps\[0\]\.tool: unknown tool "nope"/,
        ],
        [
          "duplicate ids in one file",
          () => importTraces(conn.db, p, `${t("d", [{ tool: "a" }])}\n${t("d", [{ tool: "b" }])}`, "bad.jsonl"),
          /bad\.jsonl:2: id: duplicate id "d"/,
        ],
        [
          "wrong types",
          () => importTraces(conn.db, p, t("w", [{ tool: "a", durationMs: "slow" }]), "bad.jsonl"),
          /bad\.jsonl:1: steps\[0\]\.durationMs: /,
        ],
        [
          "a 10 MB description",
          () =>
            importCatalog(
              conn.db,
              p,
              JSON.stringify({
                tools: [
                  { id: "a", description: "changed" },
                  { id: "huge", description: "x".repeat(10 * 1024 * 1024) },
                ],
              }),
              "cat.json",
              { validatePattern: okPattern },
            ),
          /cat\.json:\d+: tools\[1\]\.description: must be at most 32768 characters/,
        ],
        [
          "duplicate tool ids in a catalog",
          () =>
            importCatalog(conn.db, p, JSON.stringify({ tools: [{ id: "a" }, { id: "a" }] }), "cat.json", {
              validatePattern: okPattern,
            }),
          /duplicate id "a"/,
        ],
        [
          "capability naming an unknown tool",
          () =>
            importCatalog(
              conn.db,
              p,
              JSON.stringify({
                tools: [{ id: "a", description: "changed" }],
                capabilities: [{ id: "k", tools: ["ghost"] }],
              }),
              "cat.json",
              { validatePattern: okPattern },
            ),
          /capabilities\[0\]\.tools\[0\]: unknown tool "ghost"/,
        ],
        [
          "edge naming an unknown tool",
          () =>
            importDeclaredEdges(conn.db, p, JSON.stringify({ from: "a", to: "ghost", type: "dependency" }), "e.jsonl"),
          /e\.jsonl:1: to: unknown tool "ghost"/,
        ],
        [
          "a step depending on a later step",
          () => importTraces(conn.db, p, t("fwd", [{ tool: "a", dependsOn: [1] }, { tool: "b" }]), "bad.jsonl"),
          /steps\[0\]\.dependsOn\[0\]: must point to an earlier step/,
        ],
      ];
      for (const [name, run, message] of cases) {
        it(name, async () => {
          const before = await snapshot();
          const err = await run().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err).toBeInstanceOf(ImportError);
          expect((err as Error).message).toMatch(message);
          expect(await snapshot()).toEqual(before);
        });
      }

      it("--skip-invalid skips and reports bad records, keeps the good ones", async () => {
        const r = await importTraces(
          conn.db,
          p,
          `${t("s1", [{ tool: "a" }, { tool: "c" }])}\nnot json\n${t("s2", [{ tool: "ghost" }])}`,
          "mixed.jsonl",
          { skipInvalid: true },
        );
        expect(r.inserted).toBe(1);
        expect(r.invalid.map((e) => e.line).sort()).toEqual([2, 3]);
      });

      it("--auto-register adds unknown tools", async () => {
        const r = await importTraces(conn.db, p, t("ar1", [{ tool: "a" }, { tool: "newtool" }]), "ar.jsonl", {
          autoRegister: true,
        });
        expect(r.autoRegistered).toEqual(["newtool"]);
        const row = await conn.db
          .selectFrom("tools")
          .select(["id", "auto_registered"])
          .where("project", "=", p)
          .where("id", "=", "newtool")
          .executeTakeFirst();
        expect(row).toEqual({ id: "newtool", auto_registered: true });
      });
    });
  });
}

describe("embedded data directory lock", () => {
  // The holder is the lock itself (the one openConnection takes before it starts PGlite), not a whole embedded
  // database: an initdb costs tens of seconds on a busy machine and proves nothing more here. Staleness (a dead
  // pid, a reused pid) is test/store/data-dir-lock.test.ts; release on close is the CLI's embedded test (init,
  // demo and stats open the same directory one after another).
  it("openConnection refuses a locked directory before starting PGlite, naming the holder", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-lock-"));
    const lock = await acquireDataDirLock(dir);
    try {
      await expect(openConnection({ home: dir, database: "" })).rejects.toMatchObject({
        code: "database-locked",
        message: expect.stringContaining(`in use by process ${process.pid}`),
      });
      expect(existsSync(join(dir, "PG_VERSION"))).toBe(false);
    } finally {
      lock.release();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a second process fails at once naming the holder's pid", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-lock-"));
    const lock = await acquireDataDirLock(dir);
    try {
      const script = `import { openConnection } from ${JSON.stringify(join(process.cwd(), "src/store/connection.ts"))};
        try { const c = await openConnection({ home: ${JSON.stringify(dir)}, database: "" }); await c.close(); console.log("OPENED"); }
        catch (e) { console.log("ERR " + e.message); }`;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", script],
        { encoding: "utf8", env: { ...process.env, DATABASE_URL: "" } },
      );
      expect(stdout).toContain(`in use by process ${process.pid}`);
      expect(existsSync(join(dir, "PG_VERSION"))).toBe(false);
    } finally {
      lock.release();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the Seal-Tools catalog (4,076 tools) on both backends", () => {
  for (const backend of backends()) {
    it(`imports with counts checked, and re-imports without change or re-embedding on ${backend.name}`, async () => {
      const { convertSealTools } = await import("../../bench/convert/seal-tools.ts");
      const { openToolgraph } = await import("../../src/library/toolgraph.ts");
      const ds = convertSealTools({ limit: 1 });
      const tg = await openToolgraph({
        ...(await backend.options()),
        project: freshProject("seal"),
        embeddings: "hash:64",
      });
      try {
        const first = await tg.importCatalog(ds.catalog);
        expect(first.tools).toEqual({ inserted: 4076, updated: 0, unchanged: 0 });
        expect(first.embeddedNow).toBe(4076);
        const s = await tg.stats();
        expect(s.tools).toBe(4076);
        expect(s.embeddings).toBe(4076);
        const again = await tg.importCatalog(ds.catalog);
        expect(again.tools).toEqual({ inserted: 0, updated: 0, unchanged: 4076 });
        expect(again.embeddedNow).toBe(0);
        expect((await tg.stats()).embeddings).toBe(4076);
      } finally {
        await tg.close();
      }
    }, 180_000);
  }
});
