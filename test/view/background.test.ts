import { describe, expect, it } from "vitest";
import { startOnce, yieldToEventLoop } from "../../src/view/background.ts";
import type { Engine } from "../../src/view/engine.ts";

describe("startOnce", () => {
  it("runs a job once per (engine, name, project), after the current turn, and again only after a failure", async () => {
    const engine = { startedJobs: new Set<string>() } as unknown as Engine;
    const runs: string[] = [];
    startOnce(engine, "fit", "p", async () => runs.push("p1"));
    startOnce(engine, "fit", "p", async () => runs.push("p2"));
    startOnce(engine, "fit", "q", async () => runs.push("q1"));
    startOnce(engine, "other", "p", async () => runs.push("o1"));
    expect(runs).toEqual([]); // not inside the caller's turn
    await yieldToEventLoop();
    expect(runs).toEqual(["p1", "q1", "o1"]);
    startOnce(engine, "fail", "p", async () => {
      runs.push("f1");
      throw new Error("boom");
    });
    await yieldToEventLoop();
    await yieldToEventLoop();
    startOnce(engine, "fail", "p", async () => runs.push("f2"));
    await yieldToEventLoop();
    expect(runs).toEqual(["p1", "q1", "o1", "f1", "f2"]);
    startOnce({ startedJobs: new Set<string>() } as unknown as Engine, "fit", "p", async () =>
      runs.push("other engine"),
    );
    await yieldToEventLoop();
    expect(runs.at(-1)).toBe("other engine");
  });

  it("starts nothing on an engine opened with backgroundFits false (a one-shot CLI call)", async () => {
    const engine = { startedJobs: new Set<string>(), backgroundFits: false } as unknown as Engine;
    const runs: string[] = [];
    startOnce(engine, "fit", "p", async () => runs.push("p1"));
    await yieldToEventLoop();
    await yieldToEventLoop();
    expect(runs).toEqual([]);
    expect(engine.startedJobs.size).toBe(0);
  });
});
