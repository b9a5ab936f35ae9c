/**
 * Syncing one upstream MCP server's tools into the catalog (src/jobs/server-sync.ts, migration
 * 2026-11-24-018): upsert of the listed tools, the server's unlisted tools marked unavailable (kept), other
 * servers untouched, invalid candidates rejected one by one with the field, and the migration's down step.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { retireUnavailableTools, syncServerTools } from "../../src/jobs/server-sync.ts";
import type { Connection } from "../../src/store/connection.ts";
import { MIGRATION_NAMES, migrateDown, migrateToLatest } from "../../src/store/migrate.ts";
import { countProject, loadTools } from "../../src/store/reads.ts";
import { backends, connectionPerSuite, freshProject } from "../helpers/backends.ts";

const t = (server: string, name: string, extra: Record<string, unknown> = {}) => ({
  id: `${server}.${name}`,
  server,
  description: `${name} things`,
  ...extra,
});

for (const backend of backends()) {
  describe(`server tool sync on ${backend.name}`, () => {
    let conn: Connection;
    connectionPerSuite(backend, (c) => {
      conn = c;
    });

    it("upserts listed tools, marks the server's unlisted ones unavailable, leaves other servers alone", async () => {
      const p = freshProject();
      const r1 = await syncServerTools(conn.db, p, "fs", [
        t("fs", "read"),
        t("fs", "write", { safetyTags: ["destructive"] }),
      ]);
      expect(r1).toMatchObject({
        server: "fs",
        tools: { inserted: 2, updated: 0, unchanged: 0 },
        unavailable: [],
        rejected: [],
      });
      await syncServerTools(conn.db, p, "mem", [t("mem", "read")]);
      const r2 = await syncServerTools(conn.db, p, "fs", [t("fs", "read")]);
      expect(r2.unavailable).toEqual(["fs.write"]);
      expect(r2.graphVersion).toBe(r1.graphVersion + 2);
      const rows = await loadTools(conn.db, p);
      expect(rows.map((x) => [x.id, x.available, x.safetyTags])).toEqual([
        ["fs.read", true, []],
        ["fs.write", false, ["destructive"]],
        ["mem.read", true, []],
      ]);
      // Listed again: available again; a second sync with the same list marks nothing.
      const r3 = await syncServerTools(conn.db, p, "fs", [t("fs", "read"), t("fs", "write")]);
      expect(r3.unavailable).toEqual([]);
      expect((await loadTools(conn.db, p)).every((x) => x.available)).toBe(true);
    });

    it("marks a large server's unlisted tools unavailable in chunks, and counts upserts by their text", async () => {
      const p = freshProject();
      const all = Array.from({ length: 1_203 }, (_, i) => t("big", `t${String(i).padStart(4, "0")}`));
      const r1 = await syncServerTools(conn.db, p, "big", all);
      expect(r1.tools).toEqual({ inserted: 1_203, updated: 0, unchanged: 0 });
      // Every third tool stays listed (401), one of them with a new description; 802 unlisted (two chunks and more).
      const kept = all.filter((_, i) => i % 3 === 0);
      kept[0] = { ...kept[0]!, description: "changed" };
      const r2 = await syncServerTools(conn.db, p, "big", kept);
      expect(r2.tools).toEqual({ inserted: 0, updated: 1, unchanged: 400 });
      const gone = all.filter((_, i) => i % 3 !== 0).map((x) => x.id);
      expect(r2.unavailable).toEqual(gone);
      const rows = await loadTools(conn.db, p);
      expect(rows.filter((x) => !x.available).map((x) => x.id)).toEqual(gone);
      expect(rows.filter((x) => x.available)).toHaveLength(401);
    });

    it("retires tools unavailable past the grace period: out of the read model, counted by stats, back when listed", async () => {
      const p = freshProject();
      await syncServerTools(conn.db, p, "fs", [t("fs", "read"), t("fs", "old_name")]);
      await syncServerTools(conn.db, p, "mem", [t("mem", "gone")]);
      // Renamed: old_name is unavailable from now; a grace period of an hour keeps it in the read model.
      const r1 = await syncServerTools(conn.db, p, "fs", [t("fs", "read"), t("fs", "new_name")], {
        retireAfterMs: 3_600_000,
      });
      expect([r1.unavailable, r1.retired]).toEqual([["fs.old_name"], []]);
      expect((await loadTools(conn.db, p)).map((x) => x.id)).toEqual([
        "fs.new_name",
        "fs.old_name",
        "fs.read",
        "mem.gone",
      ]);
      // Past a grace period of 0 ms: retired by the next sync of its server, other servers untouched.
      await syncServerTools(conn.db, p, "mem", []);
      const r2 = await syncServerTools(conn.db, p, "fs", [t("fs", "read"), t("fs", "new_name")], { retireAfterMs: 0 });
      expect([r2.unavailable, r2.retired]).toEqual([[], ["fs.old_name"]]);
      expect((await loadTools(conn.db, p)).map((x) => x.id)).toEqual(["fs.new_name", "fs.read", "mem.gone"]);
      // The sweep retires the rest and bumps the version once; nothing left: no bump.
      const v = (await countProject(conn.db, p)).graphVersion;
      expect(await retireUnavailableTools(conn.db, p, 0)).toEqual(["mem.gone"]);
      expect(await retireUnavailableTools(conn.db, p, 0)).toEqual([]);
      const c = await countProject(conn.db, p);
      expect([c.tools, c.unavailableTools, c.retiredTools, c.graphVersion]).toEqual([4, 2, 2, v + 1]);
      // Listed again: back in the read model, neither unavailable nor retired.
      await syncServerTools(conn.db, p, "fs", [t("fs", "read"), t("fs", "new_name"), t("fs", "old_name")], {
        retireAfterMs: 0,
      });
      expect((await loadTools(conn.db, p)).map((x) => x.id)).toEqual(["fs.new_name", "fs.old_name", "fs.read"]);
      const c2 = await countProject(conn.db, p);
      expect([c2.tools, c2.unavailableTools, c2.retiredTools]).toEqual([4, 1, 1]);
    });

    it("rejects invalid candidates one by one, naming the field, and stores the rest", async () => {
      const p = freshProject();
      const r = await syncServerTools(conn.db, p, "up", [
        t("up", "ok"),
        { id: "up.bad\u0001id", server: "up" },
        t("up", "huge", { description: "x".repeat(40_000) }),
        t("other", "wrong-server"),
        "not an object",
      ]);
      expect(r.rejected).toEqual([
        {
          tool: "up.bad\u0001id",
          problem: "id: must not contain control, format or line-separator characters (found U+0001 at index 6)",
        },
        { tool: "up.huge", problem: "description: must be at most 32768 characters" },
        { tool: "other.wrong-server", problem: 'server: must be "up"' },
        { tool: "up[4]", problem: "(record): Invalid input: expected object, received string" },
      ]);
      expect((await loadTools(conn.db, p)).map((x) => x.id)).toEqual(["up.ok"]);
    });

    it("migration 018's down step drops only the availability column", async () => {
      const cols = async () =>
        Number(
          (
            await sql<{ n: string }>`select count(*) as n from information_schema.columns
            where table_name = 'tools' and column_name = 'available' and table_schema = current_schema()`.execute(
              conn.db,
            )
          ).rows[0]!.n,
        );
      expect(await cols()).toBe(1);
      // Down to just before 018 (the migrations after it first), then 018's down step.
      const later = MIGRATION_NAMES.length - 1 - MIGRATION_NAMES.indexOf("2026-11-24-018-tool-availability");
      for (let i = 0; i < later; i++) await migrateDown(conn.db);
      expect(await cols()).toBe(1);
      await migrateDown(conn.db);
      expect(await cols()).toBe(0);
      await migrateToLatest(conn.db);
      expect(await cols()).toBe(1);
    });
  });
}
