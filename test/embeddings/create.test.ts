import { describe, expect, it } from "vitest";
import { CachedEmbeddingProvider } from "../../src/embeddings/cached.ts";
import { createEmbeddingProvider, DEFAULT_EMBEDDING_SPEC, parseEmbeddingSpec } from "../../src/embeddings/create.ts";
import { HashingEmbedder } from "../../src/embeddings/hashing.ts";
import * as api from "../../src/embeddings/index.ts";
import { OpenAiCompatibleProvider } from "../../src/embeddings/openai-compatible.ts";
import { EmbeddingError } from "../../src/embeddings/provider.ts";
import { UseLiteProvider } from "../../src/embeddings/use-lite.ts";

function badSpec(f: () => unknown): EmbeddingError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(EmbeddingError);
    expect((err as EmbeddingError).code).toBe("bad-spec");
    return err as EmbeddingError;
  }
  throw new Error("expected bad-spec");
}

describe("parseEmbeddingSpec", () => {
  it("parses every string form", () => {
    expect(parseEmbeddingSpec("use-lite")).toEqual({ kind: "use-lite" });
    expect(parseEmbeddingSpec("")).toEqual({ kind: "use-lite" });
    expect(parseEmbeddingSpec("hash")).toEqual({ kind: "hash" });
    expect(parseEmbeddingSpec("hash:384")).toEqual({ kind: "hash", dimensions: 384 });
    expect(parseEmbeddingSpec("openai:http://127.0.0.1:11434/v1#nomic-embed-text")).toEqual({
      kind: "openai",
      baseUrl: "http://127.0.0.1:11434/v1",
      model: "nomic-embed-text",
    });
  });

  it("takes the model after the last # (model names may hold colons and slashes)", () => {
    expect(parseEmbeddingSpec("openai:http://h:8000/v1#BAAI/bge-small-en:v1.5")).toMatchObject({
      baseUrl: "http://h:8000/v1",
      model: "BAAI/bge-small-en:v1.5",
    });
  });

  it("rejects unknown and malformed specs, naming them", () => {
    expect(badSpec(() => parseEmbeddingSpec("bert")).message).toContain('"bert"');
    badSpec(() => parseEmbeddingSpec("hash:0"));
    badSpec(() => parseEmbeddingSpec("hash:abc"));
    badSpec(() => parseEmbeddingSpec("openai:http://h/v1"));
    badSpec(() => parseEmbeddingSpec("openai:http://h/v1#"));
    expect(badSpec(() => parseEmbeddingSpec("openai:nope#m")).message).toContain("baseUrl");
  });
});

describe("createEmbeddingProvider", () => {
  it('defaults to "use-lite" (the model loads only on first embed)', () => {
    expect(DEFAULT_EMBEDDING_SPEC).toBe("use-lite");
    const p = createEmbeddingProvider();
    expect(p).toBeInstanceOf(UseLiteProvider);
    expect(p.dimensions).toBe(512);
  });

  it("builds a hashing embedder from a string or an object", () => {
    const a = createEmbeddingProvider("hash:64");
    expect(a).toBeInstanceOf(HashingEmbedder);
    expect(a.dimensions).toBe(64);
    expect(createEmbeddingProvider("hash").dimensions).toBe(256);
    expect(createEmbeddingProvider({ kind: "hash", dimensions: 8 }).model).toBe("hash-v1-8");
  });

  it("builds an OpenAI-compatible provider; the API key comes from options or the object", () => {
    const p = createEmbeddingProvider("openai:http://127.0.0.1:8000/v1#m", { apiKey: "k" });
    expect(p).toBeInstanceOf(OpenAiCompatibleProvider);
    expect((p as OpenAiCompatibleProvider).url).toBe("http://127.0.0.1:8000/v1/embeddings");
    expect(p.model).toBe("m");
    const q = createEmbeddingProvider({
      kind: "openai",
      baseUrl: "http://127.0.0.1:8000/v1",
      model: "m",
      dimensions: 768,
    });
    expect(q.dimensions).toBe(768);
  });

  it("validates the object form: unknown kind, unknown field, wrong type", () => {
    badSpec(() => createEmbeddingProvider({ kind: "bert" } as never));
    expect(badSpec(() => createEmbeddingProvider({ kind: "hash", dims: 3 } as never)).message).toContain("dims");
    badSpec(() => createEmbeddingProvider({ kind: "hash", dimensions: 1.5 }));
    badSpec(() => createEmbeddingProvider({ kind: "openai", baseUrl: "ftp://x", model: "m" }));
  });

  it("the index re-exports the public surface", () => {
    expect(api.createEmbeddingProvider).toBe(createEmbeddingProvider);
    expect(api.CachedEmbeddingProvider).toBe(CachedEmbeddingProvider);
    expect(typeof api.textHash).toBe("function");
  });
});
