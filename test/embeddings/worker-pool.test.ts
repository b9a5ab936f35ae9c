import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HashingEmbedder } from "../../src/embeddings/hashing.ts";
import { OpenAiCompatibleProvider } from "../../src/embeddings/openai-compatible.ts";
import { EmbeddingError } from "../../src/embeddings/provider.ts";
import { UseLiteProvider } from "../../src/embeddings/use-lite.ts";
import { batchPlan, EmbeddingWorkerPool, errorFromWorker } from "../../src/embeddings/worker-pool.ts";
import { engineOf } from "../../src/library/toolgraph.ts";

// Real worker threads running the real providers (USE-lite from its package files). Bit-identity is checked
// on the float32 bytes; a worker's death is produced by terminating its thread while it holds a batch.

const bytes = (vs: readonly Float32Array[]) =>
  Buffer.concat(vs.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)));

/** Waits (yielding to the event loop) until `ready` holds; fails after 30 s so a regression cannot hang the file. */
async function until(ready: () => boolean): Promise<void> {
  const end = Date.now() + 30_000;
  while (!ready()) {
    if (Date.now() > end) throw new Error("condition not reached within 30 s");
    await new Promise((r) => setTimeout(r, 5));
  }
}

// 23 texts, 4 of them blank (one leading, one trailing), lengths from 1 to ~20 words; with batchSize 4 the
// call is cut into 5 batches of 4, 4, 4, 4 and 3 non-blank texts (the in-process provider's model calls).
const TEXTS = [
  " ",
  "send an email",
  "compose and deliver a mail message to a list of recipients with attachments",
  "compute the square root of a number",
  "",
  "list files in a directory",
  "fetch the weather forecast for a city and return temperature, wind and precipitation for the next five days",
  "translate text",
  "resize an image to a given width and height keeping the aspect ratio",
  "\t",
  "create a calendar event",
  "search the web",
  "convert currency amounts between euros, dollars and yen at today's rate",
  "read a CSV file",
  "summarise a long document into three bullet points",
  "post a message to a chat channel",
  "look up a stock price",
  "géocoder une adresse postale",
  "run a SQL query against the analytics database and return the rows as JSON",
  "delete a file",
  "book a table at a restaurant for two people tonight",
  "a",
  "  ",
];

describe("EmbeddingWorkerPool with USE-lite", () => {
  const spec = { kind: "use-lite", batchSize: 4 } as const;
  const pool = new EmbeddingWorkerPool(spec, { workers: 2 });
  afterAll(() => pool.close());

  it("returns bit-identical float32 vectors to the in-process provider, in input order", async () => {
    const progress: [number, number][] = [];
    const [pooled, local] = await Promise.all([
      pool.embed(TEXTS, { onProgress: (d, t) => progress.push([d, t]) }),
      new UseLiteProvider({ batchSize: 4 }).embed(TEXTS),
    ]);
    expect(pooled).toHaveLength(TEXTS.length);
    expect(pooled.every((v) => v instanceof Float32Array && v.length === 512)).toBe(true);
    expect(bytes(pooled).equals(bytes(local))).toBe(true);
    // Blank texts are zero vectors, as in process.
    expect(pooled[0]!.every((x) => x === 0)).toBe(true);
    expect(pooled[22]!.every((x) => x === 0)).toBe(true);
    // One progress report per batch: 5 batches, done strictly increasing to the total.
    expect(progress).toHaveLength(5);
    expect(progress.at(-1)).toEqual([TEXTS.length, TEXTS.length]);
    for (let i = 1; i < progress.length; i++) expect(progress[i]![0]).toBeGreaterThan(progress[i - 1]![0]);
    expect(pool.model).toBe(new UseLiteProvider().model);
    expect(pool.dimensions).toBe(512);
    expect(pool.stats()).toMatchObject({ crashes: 0, busy: 0, queued: 0 });
    expect(pool.stats().running).toBeLessThanOrEqual(2);
  });

  it("replaces a worker that dies while it holds a batch, and the call still answers the same vectors", async () => {
    const before = pool.stats();
    const single = new EmbeddingWorkerPool(spec, { workers: 1 });
    try {
      const call = single.embed(TEXTS.slice(0, 6));
      // embed posts the first batch synchronously: the only worker holds it now.
      expect(single.stats().busy).toBe(1);
      await single.threads()[0]!.terminate();
      const vectors = await call;
      const local = await new UseLiteProvider({ batchSize: 4 }).embed(TEXTS.slice(0, 6));
      expect(bytes(vectors).equals(bytes(local))).toBe(true);
      expect(single.stats()).toMatchObject({ started: 2, crashes: 1, running: 1 });
    } finally {
      await single.close();
    }
    expect(pool.stats().crashes).toBe(before.crashes);
  });
});

describe("batchPlan (the batches a call is cut into)", () => {
  const texts = ["hello", "", "ab", "world", "   ", "z"];
  it("USE-lite: length-sorted groups of non-blank texts, the blank ones riding with the last", () => {
    expect(batchPlan({ kind: "use-lite" }, texts, 2)).toEqual([
      [5, 2],
      [0, 3, 1, 4],
    ]);
    expect(batchPlan({ kind: "use-lite" }, ["", " "], 2)).toEqual([[0, 1]]);
  });
  it("other providers: runs in input order of batchSize non-blank texts, blanks where they stand", () => {
    expect(batchPlan({ kind: "hash" }, texts, 2)).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    expect(batchPlan({ kind: "hash" }, [...texts, ""], 2)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  });
});

describe("EmbeddingWorkerPool with the hash provider (cheap, same code path)", () => {
  it("matches the in-process HashingEmbedder bit for bit over 600 texts (3 batches of 256)", async () => {
    const texts = Array.from({ length: 600 }, (_, i) =>
      i % 50 === 0 ? "" : `tool ${i} reads ${i % 7} files and writes ${i % 3} reports`,
    );
    const pool = new EmbeddingWorkerPool("hash:64", { workers: 2 });
    try {
      const progress: number[] = [];
      const pooled = await pool.embed(texts, { onProgress: (d) => progress.push(d) });
      const local = await new HashingEmbedder({ dimensions: 64 }).embed(texts);
      expect(bytes(pooled).equals(bytes(local))).toBe(true);
      expect(progress).toHaveLength(3);
      expect(progress.at(-1)).toBe(600);
      expect(await pool.embed([])).toEqual([]);
    } finally {
      await pool.close();
    }
  });

  it("fails a call whose batch kills two workers with EmbeddingError('worker'), then serves the next call", async () => {
    const pool = new EmbeddingWorkerPool("hash:8", { workers: 1 });
    try {
      const call = pool.embed(["x", "y"]);
      const failed = call.then(
        () => undefined,
        (e: unknown) => e,
      );
      await pool.threads()[0]!.terminate();
      await until(() => pool.stats().started === 2 && pool.stats().busy === 1);
      await pool.threads()[0]!.terminate();
      const err = await failed;
      expect(err).toBeInstanceOf(EmbeddingError);
      expect((err as EmbeddingError).code).toBe("worker");
      expect((err as Error).message).toMatch(/died twice on one batch/);
      const again = await pool.embed(["x"]);
      expect(bytes(again).equals(bytes(await new HashingEmbedder({ dimensions: 8 }).embed(["x"])))).toBe(true);
      expect(pool.stats()).toMatchObject({ started: 3, crashes: 2 });
    } finally {
      await pool.close();
    }
  });

  it("answers a one-batch call (a query) before the queued batches of a bulk call (an import)", async () => {
    const pool = new EmbeddingWorkerPool("hash:8", { workers: 1 });
    try {
      // 10 batches of 256: the first goes to the only worker at once, nine wait.
      const bulkTexts = Array.from({ length: 2560 }, (_, i) => `bulk ${i}`);
      let bulkDone = 0;
      const bulk = pool.embed(bulkTexts, { onProgress: (d) => (bulkDone = d) });
      const seen: number[] = [];
      const query = pool.embed(["one query"]).then((v) => {
        seen.push(bulkDone);
        return v;
      });
      const [q, b] = await Promise.all([query, bulk]);
      // The query ran right after the bulk call's first batch: one batch of 256 done when it answered.
      expect(seen).toEqual([256]);
      expect(bytes(q).equals(bytes(await new HashingEmbedder({ dimensions: 8 }).embed(["one query"])))).toBe(true);
      expect(bytes(b).equals(bytes(await new HashingEmbedder({ dimensions: 8 }).embed(bulkTexts)))).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it("rejects an aborted call with code 'aborted', and any call after close", async () => {
    const pool = new EmbeddingWorkerPool("hash:8", { workers: 1 });
    const ac = new AbortController();
    const call = pool.embed(
      Array.from({ length: 1000 }, (_, i) => `t${i}`),
      { signal: ac.signal },
    );
    ac.abort(new Error("user pressed ctrl-c"));
    await expect(call).rejects.toMatchObject({ code: "aborted" });
    expect(pool.stats().queued).toBe(0);
    const pending = pool.embed(["a"]).catch((e: unknown) => e);
    await pool.close();
    expect(await pending).toMatchObject({ code: "aborted", message: "embeddings: embedding pool (hash): closed" });
    await expect(pool.embed(["a"])).rejects.toMatchObject({ code: "aborted" });
    expect(pool.stats().running).toBe(0);
  });

  it("refuses a bad worker count, naming the option", () => {
    expect(() => new EmbeddingWorkerPool("hash", { workers: 0 })).toThrow(/workers must be a positive integer, got 0/);
    expect(() => new EmbeddingWorkerPool("nope")).toThrow(EmbeddingError);
  });
});

describe("errors thrown in the worker", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "input too long" } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("surface as the same EmbeddingError (class, code, message) as in process", async () => {
    const spec = { kind: "openai", baseUrl: base, model: "m", maxRetries: 0 } as const;
    const local = (await new OpenAiCompatibleProvider(spec)
      .embed(["hello"])
      .catch((e: unknown) => e)) as EmbeddingError;
    const pool = new EmbeddingWorkerPool(spec, { workers: 1 });
    try {
      const pooled = (await pool.embed(["hello"]).catch((e: unknown) => e)) as EmbeddingError;
      expect(local).toBeInstanceOf(EmbeddingError);
      expect(local.code).toBe("http-status");
      expect(pooled).toBeInstanceOf(EmbeddingError);
      expect(pooled.code).toBe(local.code);
      expect(pooled.message).toBe(local.message);
      expect(pooled.name).toBe("EmbeddingError");
      expect(pool.stats().crashes).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it("errorFromWorker keeps a plain error's name and message", () => {
    const e = errorFromWorker({ name: "RangeError", message: "bad length" });
    expect(e).not.toBeInstanceOf(EmbeddingError);
    expect([e.name, e.message]).toEqual(["RangeError", "bad length"]);
    const ee = errorFromWorker({
      name: "EmbeddingError",
      code: "model-load",
      message: "embeddings: use-lite: could not load",
    });
    expect(ee).toBeInstanceOf(EmbeddingError);
    expect([(ee as EmbeddingError).code, ee.message]).toEqual(["model-load", "embeddings: use-lite: could not load"]);
  });
});

describe("process exit", () => {
  // A script that embeds through a pool and then returns from its top level: the process must end by itself,
  // with or without close() (an idle worker is unreferenced), and print the vector's length first.
  const script = (close: boolean) => `
    import { EmbeddingWorkerPool } from ${JSON.stringify(new URL("../../src/embeddings/worker-pool.ts", import.meta.url).href)};
    const pool = new EmbeddingWorkerPool("hash:16", { workers: 1 });
    const [v] = await pool.embed(["hello world"]);
    console.log("dims", v.length);
    ${close ? "await pool.close();" : ""}
  `;
  for (const close of [true, false]) {
    it(`a script that embeds in a worker exits on its own (${close ? "with" : "without"} close)`, () => {
      const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script(close)], {
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(r.error).toBeUndefined();
      expect(r.stderr).toBe("");
      expect(r.stdout.trim()).toBe("dims 16");
      expect(r.status).toBe(0);
    });
  }
});

describe("the engine's embedder", () => {
  const catalog = {
    tools: [
      { id: "mail.send", description: "send an email to a recipient" },
      { id: "fs.read", description: "read a file from disk" },
      { id: "fs.write", description: "write text to a file" },
      { id: "math.sqrt", description: "compute the square root of a number" },
      { id: "web.search", description: "search the web for pages" },
    ],
  };

  it("runs USE-lite in a worker pool by default and answers a search exactly as in process (workers 0)", async () => {
    const { openToolgraph } = await import("../../src/library/toolgraph.ts");
    const answers: unknown[] = [];
    const kinds: string[] = [];
    for (const embeddingWorkers of [undefined, 0]) {
      const tg = await openToolgraph({
        home: "memory://",
        project: "p",
        embeddings: "use-lite",
        embeddingWorkers,
        now: () => 1_700_000_000_000,
        resultCacheSize: 0,
        recommendationLog: { enabled: false },
      });
      try {
        kinds.push(engineOf(tg).embedder.constructor.name);
        const r = await tg.importCatalog(catalog);
        expect(r.embeddedNow).toBe(5);
        const s = await tg.search({ intent: "deliver a mail message", limit: 5 });
        answers.push(s.results.map((x) => [x.tool, x.score]));
      } finally {
        await tg.close();
      }
    }
    expect(kinds).toEqual(["EmbeddingWorkerPool", "UseLiteProvider"]);
    expect(answers[0]).toEqual(answers[1]);
    expect((answers[0] as [string, number][])[0]![0]).toBe("mail.send");
  });

  it("refuses a bad TOOLGRAPH_EMBEDDING_WORKERS, naming the variable", async () => {
    const { Engine } = await import("../../src/view/engine.ts");
    const before = process.env.TOOLGRAPH_EMBEDDING_WORKERS;
    process.env.TOOLGRAPH_EMBEDDING_WORKERS = "two";
    try {
      await expect(Engine.open({ home: "memory://", embeddings: "use-lite" })).rejects.toThrow(
        /TOOLGRAPH_EMBEDDING_WORKERS must be a non-negative integer, got "two"/,
      );
    } finally {
      if (before === undefined) delete process.env.TOOLGRAPH_EMBEDDING_WORKERS;
      else process.env.TOOLGRAPH_EMBEDDING_WORKERS = before;
    }
  });
});
