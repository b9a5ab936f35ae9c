import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { PREPARE_MARK } from "../../src/store/prepared.ts";
import { backends } from "../helpers/backends.ts";

for (const backend of backends()) {
  describe(`named prepared statements on ${backend.name}`, () => {
    afterAll(() => backend.dispose());

    it("a marked statement is prepared once per connection under a stable name; an unmarked one is not", async () => {
      const conn = await backend.open();
      try {
        await conn.db.connection().execute(async (db) => {
          const marked = sql<{ n: number }>`${sql.raw(PREPARE_MARK)} SELECT ${41}::int + 1 AS n`;
          expect((await marked.execute(db)).rows[0]!.n).toBe(42);
          expect(
            (await sql<{ n: number }>`${sql.raw(PREPARE_MARK)} SELECT ${1}::int + 1 AS n`.execute(db)).rows[0]!.n,
          ).toBe(2);
          await sql`SELECT ${7}::int AS unmarked`.execute(db);
          const prepared = (
            await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(
              db,
            )
          ).rows;
          const ours = prepared.filter((p) => p.name.startsWith("tg_"));
          expect(ours.length).toBe(1);
          expect(ours[0]!.name).toMatch(/^tg_[0-9a-f]{24}$/);
          expect(ours[0]!.statement).toContain("SELECT $1::int + 1 AS n");
          expect(prepared.some((p) => p.statement.includes("unmarked"))).toBe(false);
        });
      } finally {
        await conn.close();
      }
    });

    it("TG_NO_PREPARE=1 at open sends marked statements unnamed", async () => {
      process.env.TG_NO_PREPARE = "1";
      const conn = await backend.open().finally(() => {
        delete process.env.TG_NO_PREPARE;
      });
      try {
        await conn.db.connection().execute(async (db) => {
          expect(
            (await sql<{ n: number }>`${sql.raw(PREPARE_MARK)} SELECT ${2}::int * 3 AS n`.execute(db)).rows[0]!.n,
          ).toBe(6);
          const prepared = (await sql<{ name: string }>`SELECT name FROM pg_prepared_statements`.execute(db)).rows;
          expect(prepared.filter((p) => p.name.startsWith("tg_"))).toEqual([]);
        });
      } finally {
        await conn.close();
      }
    });
  });
}
