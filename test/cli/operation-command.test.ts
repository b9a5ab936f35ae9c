/**
 * Commands generated from the operation table: flags read by their request field's type, an absent required
 * switch false, and the same answer as the library (feedback, the table's operation without a hand-written
 * command).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands/index.ts";
import { operationCommand, requestFromCommandLine } from "../../src/cli/commands/operation.ts";
import { OPERATION_LIST, OPERATIONS } from "../../src/contract/operations.ts";
import { cli, freshTarget, type Target } from "./harness.ts";

describe("requestFromCommandLine", () => {
  it("fills the positional field and reads each flag by its field's type", async () => {
    const job = await OPERATIONS.feedback.load();
    const req = requestFromCommandLine(OPERATIONS.feedback, job.request, {
      positionals: ["open", "a", "pull", "request"],
      values: { decision: "abstained", followed: true, "recommendation-id": "r-1" },
    });
    // --success absent and required → false; --followed given → true; kebab flags → camelCase fields.
    expect(req).toEqual({
      intent: "open a pull request",
      decision: "abstained",
      followed: true,
      success: false,
      recommendationId: "r-1",
    });
  });

  it("reads numbers, comma lists and JSON where the schema says so", async () => {
    const op = {
      ...OPERATIONS.search,
      cli: {
        command: "s",
        positional: "intent",
        options: { limit: { help: "" }, context: { help: "" }, environment: { help: "" } },
      },
    };
    const job = await OPERATIONS.search.load();
    const req = requestFromCommandLine(op, job.request, {
      positionals: ["x"],
      values: { limit: "4", context: "a, b,,c", environment: '{"production":true}' },
    });
    expect(req).toEqual({ intent: "x", limit: 4, context: ["a", "b", "c"], environment: { production: true } });
    expect(() => requestFromCommandLine(op, job.request, { positionals: [], values: { limit: "four" } })).toThrow(
      /--limit must be a number/,
    );
  });
});

describe("the CLI lists every operation of the table", () => {
  it("one command per operation: written by hand or generated", () => {
    const names = COMMANDS.map((c) => c.name);
    for (const op of OPERATION_LIST) expect(names).toContain(op.cli.command);
    expect(operationCommand(OPERATIONS.feedback).usage).toBe(
      "toolgraph feedback INTENT [--decision DECISION] [--success] [--followed] [--user USER] [--recommendation-id RECOMMENDATION_ID] [--session SESSION]",
    );
  });
});

describe("toolgraph feedback", () => {
  let target: Target;
  beforeAll(async () => {
    target = await freshTarget();
  }, 120_000);
  afterAll(async () => target?.dispose());

  it("moves the learned threshold as the library does: +0.01 per failed accepted answer, −0.01 per followed abstention that worked", async () => {
    const { json, run } = cli(target);
    const a = await json("feedback", "delete an old file", "--decision", "accepted");
    expect(a).toMatchObject({ outcome: "accepted-failed", offset: 0.01 });
    const b = await json("feedback", "delete an old file", "--decision", "abstained", "--followed", "--success");
    expect(b).toMatchObject({ outcome: "abstained-followed-succeeded", offset: 0 });
    expect(b.counts).toMatchObject({ "accepted-failed": 1, "abstained-followed-succeeded": 1 });
    const bad = await run("feedback", "x", "--decision", "maybe");
    expect(bad.code).toBe(3);
    expect(bad.err).toMatch(/decision/);
  }, 120_000);
});
