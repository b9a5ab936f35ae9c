/**
 * The facade's library methods are method tables (library/writes.ts, recording.ts, learning.ts, status.ts,
 * readiness.ts) bound onto Toolgraph.prototype beside the operations of the table. A name in two tables, or a
 * table method named like an operation, would silently replace the other: none is; and each bound method calls
 * its table's method with the facade first.
 */
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/contract/operations.ts";
import { LEARNING } from "../../src/library/learning.ts";
import { READINESS } from "../../src/library/readiness.ts";
import { EXECUTION_WRITES } from "../../src/library/recording.ts";
import { STATUS } from "../../src/library/status.ts";
import { openToolgraph, Toolgraph } from "../../src/library/toolgraph.ts";
import { CATALOG_WRITES } from "../../src/library/writes.ts";

const TABLES = { CATALOG_WRITES, EXECUTION_WRITES, LEARNING, STATUS, READINESS };

describe("the facade's method tables", () => {
  it("no name is in two tables or is an operation's", () => {
    const names = Object.values(TABLES).flatMap((t) => Object.keys(t));
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n) => n in OPERATIONS)).toEqual([]);
  });

  it("every table method and every operation is a method of the prototype, the run and close besides", () => {
    const own = Object.getOwnPropertyNames(Toolgraph.prototype).sort();
    const expected = [
      "constructor",
      "run",
      "close",
      ...Object.keys(OPERATIONS),
      ...Object.values(TABLES).flatMap((t) => Object.keys(t)),
    ].sort();
    expect(own).toEqual(expected);
    for (const n of own) expect(typeof (Toolgraph.prototype as unknown as Record<string, unknown>)[n]).toBe("function");
  });

  it("a bound method answers with the facade's state: its project by default, the one asked otherwise", async () => {
    const tg = await openToolgraph({ home: "memory://", project: "first", embeddings: "hash:16" });
    try {
      await tg.importCatalog({ tools: [{ id: "a.one", description: "open the file" }] });
      await tg.importCatalog(
        {
          tools: [
            { id: "b.one", description: "x" },
            { id: "b.two", description: "y" },
          ],
        },
        { project: "second" },
      );
      expect((await tg.stats()).project).toBe("first");
      expect((await tg.stats()).tools).toBe(1);
      expect((await tg.stats({ project: "second" })).tools).toBe(2);
      expect(tg.database().location).toBe("memory://");
    } finally {
      await tg.close();
    }
  });
});
