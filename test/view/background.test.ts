import { describe, expect, it } from "vitest";
import { SLICE_MS, SliceQueue, startOnce, yieldToEventLoop } from "../../src/view/background.ts";
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

describe("SliceQueue", () => {
  function* job(log: string[], name: string, steps: number, spinMs = 0): Generator<void, void, void> {
    for (let i = 0; i < steps; i++) {
      const until = performance.now() + spinMs;
      while (performance.now() < until) {}
      yield;
    }
    log.push(name);
  }

  it("runs a short job on the caller's turn, continues a long one in later turns, and keeps the order", async () => {
    const log: string[] = [];
    const q = new SliceQueue();
    q.push(job(log, "short", 3));
    expect(log).toEqual(["short"]);
    expect(q.idle).toBe(true);
    // 20 steps of 2 × SLICE_MS each: far more than one slice, so it continues after this turn.
    q.push(job(log, "long", 20, 2 * SLICE_MS));
    q.push(job(log, "after", 1));
    expect(log).toEqual(["short"]);
    expect(q.idle).toBe(false);
    while (!q.idle) await yieldToEventLoop();
    expect(log).toEqual(["short", "long", "after"]);
  });

  it("a job that throws ends there, its error reported; the next one runs", () => {
    const errors: unknown[] = [];
    const log: string[] = [];
    const q = new SliceQueue((err) => errors.push(err));
    q.push(
      (function* () {
        yield;
        throw new Error("boom");
      })(),
    );
    q.push(job(log, "next", 1));
    expect((errors[0] as Error).message).toBe("boom");
    expect(log).toEqual(["next"]);
  });
});
