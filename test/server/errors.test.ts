/** Error mapping of the HTTP door: which failures are the caller's (4xx, with the field) and which are ours. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolgraphError } from "../../src/contract/errors.ts";
import { searchRequest } from "../../src/contract/requests.ts";
import { ImportError } from "../../src/formats/parse.ts";
import { fieldOf, HttpError, toHttpError, zodProblems } from "../../src/server/errors.ts";
import { bearerMatches } from "../../src/server/http-server.ts";

describe("fieldOf", () => {
  it("joins keys with dots and indices with brackets", () => {
    expect(fieldOf(["steps", 3, "dependsOn", 0])).toBe("steps[3].dependsOn[0]");
  });
  it("is empty for the whole body", () => {
    expect(fieldOf([])).toBe("");
  });
});

describe("zodProblems", () => {
  it("names an unknown key as the field", () => {
    const r = searchRequest.safeParse({ intent: "x", colour: 1 });
    expect(r.success).toBe(false);
    expect(zodProblems(r.error!.issues)).toEqual([
      { field: "colour", message: "unknown field (not part of this request)" },
    ]);
  });
  it("prefixes a field", () => {
    const r = z.string().min(1).safeParse("");
    expect(zodProblems(r.error!.issues, "project")[0]!.field).toBe("project");
  });
});

describe("toHttpError", () => {
  it("zod errors are 400 invalid-input with the first field and all problems", () => {
    const r = searchRequest.safeParse({ limit: 0 });
    const m = toHttpError(r.error);
    expect(m.status).toBe(400);
    expect(m.body.error.code).toBe("invalid-input");
    expect(m.body.error.field).toBe("intent");
    expect(m.body.error.details).toHaveLength(2);
  });

  it("ImportError is 400 with the line errors", () => {
    const m = toHttpError(
      new ImportError([{ file: "traces", line: 3, field: "steps[0].tool", message: "unknown tool" }]),
    );
    expect(m.status).toBe(400);
    expect(m.body.error.field).toBe("steps[0].tool");
    expect(m.body.error.message).toContain("line 3");
    expect(m.body.error.details).toEqual([{ field: "steps[0].tool", message: "unknown tool", line: 3 }]);
  });

  it("unknown-tool is 400 with the field from the details", () => {
    const m = toHttpError(new ToolgraphError("unknown-tool", "context[0]: unknown tool", { field: "context[0]" }));
    expect(m).toMatchObject({
      status: 400,
      internal: false,
      body: { error: { code: "unknown-tool", field: "context[0]" } },
    });
  });

  it("database-locked is 503 with Retry-After", () => {
    const m = toHttpError(new ToolgraphError("database-locked", "locked"));
    expect(m.status).toBe(503);
    expect(m.headers["retry-after"]).toBe("1");
  });

  it("empty-project is 404", () => {
    expect(toHttpError(new ToolgraphError("empty-project", "no tools")).status).toBe(404);
  });

  it("a refused database connection is 503", () => {
    const err = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(toHttpError(err).status).toBe(503);
  });

  it("anything else is a 500 that does not leak the message", () => {
    const m = toHttpError(new TypeError("secret detail"));
    expect(m.status).toBe(500);
    expect(m.internal).toBe(true);
    expect(JSON.stringify(m.body)).not.toContain("secret");
  });

  it("an unknown ToolgraphError code is internal", () => {
    expect(toHttpError(new ToolgraphError("migration-failed", "x")).status).toBe(500);
  });

  it("HttpError keeps its status, field and headers", () => {
    const m = toHttpError(new HttpError(405, "method-not-allowed", "no", { headers: { allow: "GET" } }));
    expect(m).toMatchObject({ status: 405, headers: { allow: "GET" } });
  });
});

describe("bearerMatches", () => {
  it("accepts the exact token", () => {
    expect(bearerMatches("Bearer abc", "abc")).toBe(true);
    expect(bearerMatches("bearer abc", "abc")).toBe(true);
  });
  it("rejects a different, longer, shorter or missing token", () => {
    expect(bearerMatches("Bearer abd", "abc")).toBe(false);
    expect(bearerMatches("Bearer abcd", "abc")).toBe(false);
    expect(bearerMatches("Bearer ab", "abc")).toBe(false);
    expect(bearerMatches(undefined, "abc")).toBe(false);
    expect(bearerMatches("abc", "abc")).toBe(false);
  });
  it("an empty presented token never matches", () => {
    expect(bearerMatches("Bearer ", "")).toBe(false);
  });
});
