/** One mapping of every error to HTTP status, CLI exit code and MCP isError. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PagerankError } from "../../algorithms/centrality/pagerank.ts";
import { AlgorithmError } from "../../algorithms/errors.ts";
import { SearchError } from "../../algorithms/search/search-error.ts";
import { EXIT, errorOutcome, zodProblems } from "../../src/contract/error-mapping.ts";
import { ToolgraphError } from "../../src/contract/errors.ts";
import { ImportError } from "../../src/formats/parse.ts";
import { toHttpError } from "../../src/server/errors.ts";

describe("errorOutcome", () => {
  it("every algorithm error is one family with a module and a code: 422 / exit 3, not a 500", () => {
    const e = new PagerankError("bad-damping", "damping must be in [0, 1), got 2");
    expect(e).toBeInstanceOf(AlgorithmError);
    expect(e.module).toBe("pagerank");
    expect(errorOutcome(e)).toMatchObject({
      status: 422,
      exitCode: EXIT.invalidInput,
      code: "bad-damping",
      internal: false,
    });
    expect(errorOutcome(new SearchError("bm25", "bad-k", "k must be > 0"))).toMatchObject({
      status: 422,
      details: { module: "bm25" },
    });
    expect(toHttpError(e).status).toBe(422);
  });
  it("store errors: bad input 400/3, empty project 404/1, unavailable 503/4; raw driver codes agree", () => {
    expect(errorOutcome(new ToolgraphError("unknown-tool", "no tool x", { field: "context[0]" }))).toMatchObject({
      status: 400,
      exitCode: 3,
      field: "context[0]",
    });
    expect(errorOutcome(new ToolgraphError("empty-project", "no catalog"))).toMatchObject({ status: 404, exitCode: 1 });
    expect(errorOutcome(new ToolgraphError("database-locked", "locked"))).toMatchObject({ status: 503, exitCode: 4 });
    for (const code of ["ECONNREFUSED", "3D000", "28P01"])
      expect(errorOutcome(Object.assign(new Error("x"), { code }))).toMatchObject({ status: 503, exitCode: 4 });
    expect(errorOutcome(new Error("boom"))).toMatchObject({
      status: 500,
      exitCode: 1,
      internal: true,
      code: "internal",
    });
  });
  it("import line errors and zod issues name the field one way: steps[0].tool", () => {
    const ie = new ImportError([{ file: "t", line: 2, field: "steps[0].tool", message: "unknown tool" }]);
    expect(errorOutcome(ie)).toMatchObject({ status: 400, field: "steps[0].tool" });
    const r = z.object({ steps: z.array(z.object({ tool: z.string() })) }).safeParse({ steps: [{ tool: 1 }] });
    expect(zodProblems(r.error!.issues)[0]!.field).toBe("steps[0].tool");
  });
});
