/** The session recorder: executions from calls, and the bound on what it keeps indexed for data flow. */
import { describe, expect, it } from "vitest";
import { stepOutput } from "../../algorithms/strings/data-flow.ts";
import { outputBytes } from "../../algorithms/strings/step-output-bytes.ts";
import type { CallRecord, RecordedExecution } from "../../src/gateway/recorded-execution.ts";
import { SessionRecorder } from "../../src/gateway/recorder.ts";

const call = (tool: string, args: Record<string, unknown>, text: string): CallRecord => ({
  tool,
  args,
  result: { content: [{ type: "text", text }] },
  success: true,
  durationMs: 1,
  at: new Date("2026-01-01T00:00:00Z"),
});

describe("SessionRecorder", () => {
  it("links a step to the earlier step whose output it used (worked by hand)", () => {
    const written: RecordedExecution[] = [];
    const r = new SessionRecorder({ sessionId: "s", write: (e) => written.push(e) });
    r.setIntent("triage the bug");
    r.step(call("gh.list_issues", {}, "open issues: 4521 crash on start, 4522 typo"));
    r.step(call("gh.get_issue", { number: 4521 }, "crash on start: stack trace …"));
    r.end();
    expect(written).toHaveLength(1);
    expect(written[0]!.steps.map((s) => s.dependsOn)).toEqual([[], [0]]);
    expect(r.unindexedSteps).toBe(0);
  });

  it("stops indexing outputs once the execution's index budget is spent, and counts the steps it skipped", () => {
    const first = call("gh.list_issues", {}, "open issues: 4521 crash on start");
    const budget = outputBytes(stepOutput(first.args, first.result)); // exactly the first output
    const written: RecordedExecution[] = [];
    const r = new SessionRecorder({ sessionId: "s", write: (e) => written.push(e), maxIndexBytes: budget });
    r.step(first);
    r.step(call("gh.list_comments", {}, "comments on 9999: none")); // over budget: not indexed
    r.step(call("gh.get_issue", { number: 4521 }, "…")); // still finds step 0 (indexed)
    r.step(call("gh.get_comment", { id: 9999 }, "…")); // step 1 was not indexed: no edge
    r.end();
    expect(written[0]!.steps.map((s) => s.dependsOn)).toEqual([[], [], [0], []]);
    expect(r.unindexedSteps).toBe(3);
  });

  it("a new execution starts with a fresh budget", () => {
    const first = call("a.x", {}, "token 123456");
    const written: RecordedExecution[] = [];
    const r = new SessionRecorder({
      sessionId: "s",
      write: (e) => written.push(e),
      maxIndexBytes: outputBytes(stepOutput(first.args, first.result)),
    });
    r.setIntent("one");
    r.step(first);
    r.setIntent("two");
    r.step(call("a.x", {}, "token 654321"));
    r.step(call("a.y", { t: 654321 }, "ok"));
    r.end();
    expect(written.map((e) => e.steps.map((s) => s.dependsOn))).toEqual([[[]], [[], [0]]]);
  });

  it("indexes a long result after the call's turn, in order: the write waits for it, and finds the same edges", async () => {
    const written: RecordedExecution[] = [];
    const r = new SessionRecorder({ sessionId: "s", write: (e) => written.push(e) });
    r.setIntent("echo and reuse");
    // A 65,000-character result: indexed in slices, so the write may come turns later (when is not asserted,
    // only the order and the answers).
    const long = `Echo: ${"lorem ipsum ".repeat(5_400)}ticket-8812 end`;
    r.step(call("e.echo", { message: "hello there" }, long));
    r.step(call("t.get", { id: "ticket-8812" }, "found"));
    r.step(call("t.other", { id: "ticket-9999" }, "nothing"));
    r.setIntent("next task"); // closes the execution: written once its steps' dependencies are in
    r.step(call("x.y", { id: "found" }, "ok"));
    while (written.length < 1) await new Promise((done) => setImmediate(done));
    expect(written[0]!.steps.map((s) => s.dependsOn)).toEqual([[], [0], []]);
    r.end(); // the rest is finished now: the second execution is written before end() returns
    expect(written.map((e) => e.steps.length)).toEqual([3, 1]);
    expect(written[1]!.steps[0]!.dependsOn).toEqual([]);
  });

  it("ending a session writes its execution at once even while a long result is being indexed", () => {
    const written: RecordedExecution[] = [];
    const r = new SessionRecorder({ sessionId: "s", write: (e) => written.push(e) });
    r.step(call("e.echo", {}, "word ".repeat(13_000)));
    r.step(call("e.use", { w: "word" }, "ok"));
    r.end();
    expect(written.map((e) => e.steps.map((s) => s.dependsOn))).toEqual([[[], [0]]]);
  });
});
