/**
 * The durable writer keeps what it cannot write and retries it until stored. The store here is a function
 * that fails while "down" (a fake of the database's availability, as the real one is exercised end to end in
 * durable-recording.test.ts); the spool is real files in a temporary directory.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolgraphError } from "../../src/contract/errors.ts";
import { DurableWriter } from "../../src/store/durable-writer.ts";

interface Item {
  id: string;
}

/** A store that refuses writes while `down`, keeps ids (idempotent: a second write of an id is a no-op). */
function fakeStore() {
  const stored: string[] = [];
  const store = {
    down: false,
    attempts: 0,
    stored,
    write: async (x: Item) => {
      store.attempts++;
      await new Promise((r) => setImmediate(r));
      if (store.down) throw new ToolgraphError("database-unreachable", "the database is not there");
      if (x.id.startsWith("bad")) throw new ToolgraphError("invalid-input", `${x.id} refused`);
      if (x.id.startsWith("poison")) throw new Error("unexpected failure");
      if (!stored.includes(x.id)) stored.push(x.id);
    },
  };
  return store;
}

const classify = (err: unknown) => {
  const code = err instanceof ToolgraphError ? err.code : undefined;
  return code === "database-unreachable" ? "retry" : code === "invalid-input" ? "reject" : "unknown";
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tg-spool-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const until = async (f: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 2));
  }
};

describe("DurableWriter", () => {
  it("writes in order while the store is up, and nothing touches the disk", async () => {
    const store = fakeStore();
    const w = new DurableWriter<Item>({ write: store.write, classify, spoolDir: join(dir, "spool") });
    for (let i = 0; i < 5; i++) w.submit({ id: `e${i}` });
    await w.drained();
    expect(store.stored).toEqual(["e0", "e1", "e2", "e3", "e4"]);
    expect(w.status()).toMatchObject({ written: 5, backlog: 0, failedAttempts: 0, retrying: false });
    expect(existsSync(join(dir, "spool"))).toBe(false);
    await w.close();
  });

  it("during an outage keeps every item on disk, retries with backoff, and stores each once when it ends", async () => {
    const store = fakeStore();
    const w = new DurableWriter<Item>({
      write: store.write,
      classify,
      spoolDir: dir,
      minBackoffMs: 2,
      maxBackoffMs: 8,
      segmentItems: 3,
    });
    store.down = true;
    for (let i = 0; i < 10; i++) w.submit({ id: `e${i}` });
    await until(() => w.status().failedAttempts >= 4);
    const st = w.status();
    expect(st).toMatchObject({ written: 0, backlog: 10, retrying: true, lastError: "the database is not there" });
    // The head item is retried from memory; the other 9 are in segments of at most 3 items.
    expect(st.spooled).toBe(9);
    expect(readdirSync(dir).length).toBe(3);
    store.down = false;
    await w.drained();
    expect(store.stored).toEqual(["e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"]);
    expect(w.status()).toMatchObject({ written: 10, backlog: 0, spooled: 0, retrying: false });
    expect(readdirSync(dir)).toEqual([]); // segments removed once stored
    await w.close();
  });

  it("the backoff doubles from the minimum to the maximum, and resets after a success", async () => {
    const store = fakeStore();
    const delays: number[] = [];
    const w = new DurableWriter<Item>({
      write: store.write,
      classify,
      minBackoffMs: 20,
      maxBackoffMs: 80,
      setTimer: (fn, ms) => {
        delays.push(ms);
        return setTimeout(fn, 0); // the clock is ours: retry at once
      },
    });
    store.down = true;
    w.submit({ id: "a" });
    await until(() => delays.length >= 5);
    store.down = false;
    await w.drained();
    expect(delays.slice(0, 5)).toEqual([20, 40, 80, 80, 80]);
    store.down = true;
    const before = delays.length;
    w.submit({ id: "b" });
    await until(() => delays.length > before);
    expect(delays[before]).toBe(20);
    store.down = false;
    await w.drained();
    expect(store.stored).toEqual(["a", "b"]);
    await w.close();
  });

  it("close() during an outage leaves the backlog in the spool; a new writer on the directory stores it", async () => {
    const store = fakeStore();
    store.down = true;
    const w1 = new DurableWriter<Item>({
      write: store.write,
      classify,
      spoolDir: dir,
      minBackoffMs: 2,
      maxBackoffMs: 4,
    });
    for (let i = 0; i < 7; i++) w1.submit({ id: `e${i}` });
    await until(() => w1.status().failedAttempts >= 1);
    await w1.close(0);
    expect(store.stored).toEqual([]);
    store.down = false;
    const logs: string[] = [];
    const w2 = new DurableWriter<Item>({ write: store.write, classify, spoolDir: dir, log: (l) => logs.push(l) });
    expect(w2.status()).toMatchObject({ backlog: 7, spooled: 7 });
    expect(logs[0]).toContain("7 spooled item(s) from an earlier run");
    w2.resume();
    await w2.drained();
    expect([...store.stored].sort()).toEqual(["e0", "e1", "e2", "e3", "e4", "e5", "e6"]);
    expect(readdirSync(dir)).toEqual([]);
    await w2.close();
  });

  it("an open segment of a dead process is adopted; one of a live process is not", async () => {
    writeFileSync(join(dir, "open-0000000000001-00000000-999999999-ab.jsonl"), `${JSON.stringify({ id: "orphan" })}\n`);
    writeFileSync(
      join(dir, `open-0000000000001-00000001-${process.pid}-cd.jsonl`),
      `${JSON.stringify({ id: "mine" })}\n`,
    );
    const store = fakeStore();
    const w = new DurableWriter<Item>({ write: store.write, classify, spoolDir: dir });
    w.resume();
    await w.drained();
    expect(store.stored).toEqual(["orphan"]);
    await w.close();
  });

  it("an item the store refuses is dropped and counted; a poison item is dropped after maxAttempts; the rest go on", async () => {
    const store = fakeStore();
    const logs: string[] = [];
    const w = new DurableWriter<Item>({
      write: store.write,
      classify,
      minBackoffMs: 1,
      maxAttempts: 3,
      log: (l) => logs.push(l),
    });
    for (const id of ["a", "bad1", "b", "poison1", "c"]) w.submit({ id });
    await w.drained();
    expect(store.stored).toEqual(["a", "b", "c"]);
    expect(w.status()).toMatchObject({ written: 3, rejected: 2, failedAttempts: 1 + 3 });
    expect(logs.filter((l) => l.includes("dropped after"))).toHaveLength(2);
    await w.close();
  });

  it("a full spool drops new items and counts them", async () => {
    const store = fakeStore();
    store.down = true;
    const line = Buffer.byteLength(`${JSON.stringify({ id: "e0" })}\n`);
    const w = new DurableWriter<Item>({
      write: store.write,
      classify,
      spoolDir: dir,
      minBackoffMs: 1000,
      maxSpoolBytes: 3 * line,
    });
    w.submit({ id: "e0" });
    await until(() => w.status().failedAttempts >= 1);
    for (let i = 1; i <= 5; i++) w.submit({ id: `e${i}` });
    expect(w.status()).toMatchObject({ spooled: 3, dropped: 2 });
    await w.close(0);
  });

  it("property: whatever the outages and restarts, every submitted item is stored exactly once in the end", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constant("submit"),
            fc.constant("down"),
            fc.constant("up"),
            fc.constant("restart"),
            fc.constant("tick"),
          ),
          {
            minLength: 1,
            maxLength: 40,
          },
        ),
        fc.integer({ min: 1, max: 4 }),
        async (ops, segmentItems) => {
          const spool = mkdtempSync(join(dir, "p-"));
          const store = fakeStore();
          const make = () =>
            new DurableWriter<Item>({
              write: store.write,
              classify,
              spoolDir: spool,
              minBackoffMs: 1,
              maxBackoffMs: 2,
              segmentItems,
              maxInMemory: 2,
            });
          let w = make();
          const submitted: string[] = [];
          for (const op of ops) {
            if (op === "submit") {
              const id = `e${submitted.length}`;
              submitted.push(id);
              w.submit({ id });
            } else if (op === "down") store.down = true;
            else if (op === "up") store.down = false;
            else if (op === "restart") {
              await w.close(0);
              w = make();
              w.resume();
            } else await new Promise((r) => setTimeout(r, 1));
          }
          store.down = false;
          w.resume();
          await w.drained();
          await w.close();
          expect([...store.stored].sort()).toEqual([...submitted].sort());
          expect(readdirSync(spool)).toEqual([]);
        },
      ),
      { numRuns: 100 },
    );
  });
});
