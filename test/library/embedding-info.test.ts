/**
 * `tg.embedding()` says what embeds texts without reaching the engine: a hashing provider embeds in this
 * thread (0 workers); a local model with `embeddingWorkers: 2` runs in a pool of 2 threads, and with 0 in process.
 * Nothing is embedded here (the pool starts its workers and loads the model on the first embedding).
 */
import { afterEach, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/index.ts";

let tg: Toolgraph | undefined;
afterEach(async () => {
  await tg?.close();
  tg = undefined;
});

describe("tg.embedding()", () => {
  it("a hashing provider embeds in this thread", async () => {
    tg = await openToolgraph({ home: "memory://", embeddings: "hash:64", recommendationLog: { enabled: false } });
    expect(tg.embedding().workers).toBe(0);
    expect(tg.embedding().provider).not.toBe("EmbeddingWorkerPool");
  });

  it("a local model runs in the worker pool of the size asked for, or in process with 0 workers", async () => {
    tg = await openToolgraph({ home: "memory://", embeddings: "use-lite", embeddingWorkers: 2 });
    expect(tg.embedding()).toEqual({ provider: "EmbeddingWorkerPool", workers: 2 });
    await tg.close();
    tg = await openToolgraph({ home: "memory://", embeddings: "use-lite", embeddingWorkers: 0 });
    expect(tg.embedding().workers).toBe(0);
    expect(tg.embedding().provider).not.toBe("EmbeddingWorkerPool");
  });
});
