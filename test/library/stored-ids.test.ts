/**
 * bench/lib/stored-ids.ts: which execution ids a project holds, asked through the public write path (recording is
 * idempotent by id). The bench's fault and race checks rest on it: a stored id reads stored, a missing one
 * missing, and the question stores the missing one (a second question finds it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedAmong } from "../../bench/lib/stored-ids.ts";
import { openToolgraph, type Toolgraph } from "../../src/index.ts";

describe("storedAmong", () => {
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({ home: "memory://", project: "ids", embeddings: "hash:16" });
    await tg.importCatalog({ tools: [{ id: "a.one", description: "open the file" }] });
    for (const id of ["e1", "e2"])
      await tg.recordExecution({
        id,
        startedAt: "2026-01-01T00:00:00.000Z",
        success: true,
        steps: [{ tool: "a.one" }, { tool: "a.one" }],
      });
  });
  afterAll(async () => {
    await tg?.close();
  });

  it("names the stored ids among those asked, and stores the missing ones", async () => {
    expect([...(await storedAmong(tg, ["e1", "e3", "e2", "e1"], { tool: "a.one" }))].sort()).toEqual(["e1", "e2"]);
    expect((await tg.stats()).executions).toBe(3);
    expect([...(await storedAmong(tg, ["e3", "e4"], { tool: "a.one" }))]).toEqual(["e3"]);
    expect(await storedAmong(tg, [], { tool: "a.one" })).toEqual(new Set());
  });
});
