import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { embeddingsUrl, OpenAiCompatibleProvider } from "../../src/embeddings/openai-compatible.ts";
import { EmbeddingError } from "../../src/embeddings/provider.ts";

// A fake of the remote API on 127.0.0.1 (ephemeral port): the narrow seam the provider talks to.
// By default it answers each input t with the unnormalised vector [t.length, 4, 0], so "abc" → [3, 4, 0]
// whose unit vector is [0.6, 0.8, 0] (‖(3,4,0)‖ = 5).

interface Seen {
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: { model: string; input: string[] };
}
type Handler = (req: Seen, res: ServerResponse) => void;

const seen: Seen[] = [];
let handlers: Handler[] = []; // one per request, in order; the last one repeats
let server: Server;
let base: string;

function ok(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const vectors: Handler = (req, res) =>
  ok(res, {
    object: "list",
    model: req.body.model,
    data: req.body.input.map((t, index) => ({ object: "embedding", index, embedding: [t.length, 4, 0] })),
  });

function status(code: number, body: string, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(code, { "content-type": "application/json", ...headers });
    res.end(body);
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      raw += chunk;
    });
    req.on("end", () => {
      const s: Seen = { url: req.url ?? "", headers: req.headers, body: JSON.parse(raw) };
      seen.push(s);
      const h = handlers[Math.min(seen.length - 1, handlers.length - 1)] ?? vectors;
      h(s, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
  handlers = [vectors];
});

function provider(extra: Partial<ConstructorParameters<typeof OpenAiCompatibleProvider>[0]> = {}) {
  return new OpenAiCompatibleProvider({ baseUrl: base, model: "test-embed", retryBaseMs: 1, ...extra });
}

async function rejection(p: Promise<unknown>): Promise<EmbeddingError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(EmbeddingError);
    return err as EmbeddingError;
  }
  throw new Error("expected a rejection");
}

describe("embeddingsUrl", () => {
  it("appends /embeddings to the API root", () => {
    expect(embeddingsUrl("http://127.0.0.1:11434/v1")).toBe("http://127.0.0.1:11434/v1/embeddings");
    expect(embeddingsUrl("http://127.0.0.1:11434/v1/")).toBe("http://127.0.0.1:11434/v1/embeddings");
  });

  it("keeps a URL that already ends in /embeddings", () => {
    expect(embeddingsUrl("https://example.test/v1/embeddings")).toBe("https://example.test/v1/embeddings");
  });

  it("rejects a non-URL and a non-http scheme with bad-option", () => {
    expect(() => embeddingsUrl("not a url")).toThrow(/baseUrl "not a url" is not a URL/);
    expect(() => embeddingsUrl("ftp://x/v1")).toThrow(/must be http or https/);
  });
});

describe("OpenAiCompatibleProvider", () => {
  it("posts {model, input} and returns L2-normalised vectors in order; learns dimensions", async () => {
    const p = provider({ apiKey: "sk-test" });
    expect(p.dimensions).toBe(0);
    const [a, b] = await p.embed(["abc", "hello world!"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe("/v1/embeddings");
    expect(seen[0]!.body).toEqual({ model: "test-embed", input: ["abc", "hello world!"] });
    expect(seen[0]!.headers.authorization).toBe("Bearer sk-test");
    expect(seen[0]!.headers["content-type"]).toBe("application/json");
    expect(Array.from(a!)).toEqual([0.6, 0.8, 0].map(Math.fround));
    // "hello world!" → [12, 4, 0], ‖·‖ = √160 → [12/√160, 4/√160, 0]
    expect(b![0]).toBeCloseTo(12 / Math.sqrt(160), 6);
    expect(b![1]).toBeCloseTo(4 / Math.sqrt(160), 6);
    expect(p.dimensions).toBe(3);
    expect(p.model).toBe("test-embed");
  });

  it("sends no Authorization header without an API key", async () => {
    await provider().embed(["abc"]);
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it("places rows by their index when the server reorders them", async () => {
    handlers = [
      (req, res) =>
        ok(res, {
          data: req.body.input.map((t, index) => ({ index, embedding: [t.length, 4, 0] })).reverse(),
        }),
    ];
    const [a, b] = await provider().embed(["abc", "abcdefghijkl"]);
    expect(a![0]).toBeCloseTo(0.6, 6);
    expect(b![0]).toBeCloseTo(12 / Math.sqrt(160), 6);
  });

  it("decodes base64 float32 embeddings", async () => {
    handlers = [
      (req, res) =>
        ok(res, {
          data: req.body.input.map((_t, index) => ({
            index,
            embedding: Buffer.from(new Float32Array([3, 0, 4]).buffer).toString("base64"),
          })),
        }),
    ];
    const [v] = await provider().embed(["x"]);
    expect(Array.from(v!)).toEqual([0.6, 0, 0.8].map(Math.fround));
  });

  it("splits texts into batches of batchSize and reports progress per batch", async () => {
    const progress: number[][] = [];
    const out = await provider({ batchSize: 2 }).embed(["a", "bb", "ccc", "dddd", "eeeee"], {
      onProgress: (d, t) => progress.push([d, t]),
    });
    expect(seen.map((s) => s.body.input)).toEqual([["a", "bb"], ["ccc", "dddd"], ["eeeee"]]);
    expect(progress).toEqual([
      [2, 5],
      [4, 5],
      [5, 5],
    ]);
    // "dddd" → [4, 4, 0] → [1/√2, 1/√2, 0]
    expect(out[3]![0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(out).toHaveLength(5);
  });

  it("retries a 500 and then succeeds", async () => {
    handlers = [status(500, '{"error":"boom"}'), vectors];
    const [v] = await provider().embed(["abc"]);
    expect(seen).toHaveLength(2);
    expect(v![0]).toBeCloseTo(0.6, 6);
  });

  it("retries a 429, honouring Retry-After", async () => {
    handlers = [status(429, '{"error":"slow down"}', { "retry-after": "0" }), vectors];
    await provider({ retryBaseMs: 60_000 }).embed(["abc"]); // the 60 s backoff would time the test out
    expect(seen).toHaveLength(2);
  });

  it("gives up after maxRetries, naming the URL and the status", async () => {
    handlers = [status(503, "overloaded")];
    const err = await rejection(provider({ maxRetries: 2 }).embed(["abc"]));
    expect(seen).toHaveLength(3); // 1 try + 2 retries
    expect(err.code).toBe("http-status");
    expect(err.message).toContain(`${base}/embeddings`);
    expect(err.message).toContain("HTTP 503");
    expect(err.message).toContain("overloaded");
  });

  it("fails at once on a 400 with a message naming URL, status and server error, never the key", async () => {
    handlers = [status(400, '{"error":{"message":"model \\"nope\\" not found"}}')];
    const err = await rejection(provider({ apiKey: "sk-secret" }).embed(["abc"]));
    expect(seen).toHaveLength(1);
    expect(err.code).toBe("http-status");
    expect(err.message).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings answered HTTP 400 Bad Request/);
    expect(err.message).toContain('model \\"nope\\" not found');
    expect(err.message).not.toContain("sk-secret");
  });

  it("rejects a response whose length differs from the configured dimensions", async () => {
    const err = await rejection(provider({ dimensions: 4 }).embed(["abc"]));
    expect(err.code).toBe("dimension-mismatch");
    expect(err.message).toMatch(/3-d embedding .* expected 4/);
  });

  it("rejects a later response whose length differs from the learnt dimensions", async () => {
    const p = provider();
    await p.embed(["abc"]);
    handlers = [
      (req, res) => ok(res, { data: req.body.input.map((_t, index) => ({ index, embedding: [1, 2, 3, 4, 5] })) }),
    ];
    const err = await rejection(p.embed(["abc"]));
    expect(err.code).toBe("dimension-mismatch");
    expect(p.dimensions).toBe(3);
  });

  it("rejects rows of different lengths within one response", async () => {
    handlers = [
      (_req, res) =>
        ok(res, {
          data: [
            { index: 0, embedding: [1, 2] },
            { index: 1, embedding: [1, 2, 3] },
          ],
        }),
    ];
    const p = provider();
    const err = await rejection(p.embed(["a", "b"]));
    expect(err.code).toBe("dimension-mismatch");
    expect(p.dimensions).toBe(0); // a bad response teaches nothing
  });

  it("rejects a non-JSON body and a wrong row count with bad-response", async () => {
    handlers = [(_req, res) => res.end("<html>proxy error</html>")];
    expect((await rejection(provider().embed(["a"]))).message).toMatch(/not JSON: <html>proxy error/);
    handlers = [(_req, res) => ok(res, { data: [{ index: 0, embedding: [1] }] })];
    const err = await rejection(provider().embed(["a", "b"]));
    expect(err.code).toBe("bad-response");
    expect(err.message).toContain("1 embeddings for 2 inputs");
  });

  it("rejects duplicate or out-of-range indexes", async () => {
    handlers = [
      (_req, res) =>
        ok(res, {
          data: [
            { index: 1, embedding: [1] },
            { index: 1, embedding: [2] },
          ],
        }),
    ];
    expect((await rejection(provider().embed(["a", "b"]))).code).toBe("bad-response");
  });

  it("sends no blank text: blanks are zero vectors", async () => {
    const out = await provider().embed(["", "abc", "  "]);
    expect(seen[0]!.body.input).toEqual(["abc"]);
    expect(Array.from(out[0]!)).toEqual([0, 0, 0]);
    expect(out[1]![0]).toBeCloseTo(0.6, 6);
    expect(Array.from(out[2]!)).toEqual([0, 0, 0]);
  });

  it("all-blank input with unknown dimensions probes once, then returns zero vectors", async () => {
    const p = provider();
    const out = await p.embed(["", " "]);
    expect(seen).toHaveLength(1);
    expect(out.map((v) => v.length)).toEqual([3, 3]);
    await p.embed([""]);
    expect(seen).toHaveLength(1); // dimensions known now: no second probe
  });

  it("empty input makes no request", async () => {
    expect(await provider().embed([])).toEqual([]);
    expect(seen).toHaveLength(0);
  });

  it("times out a slow server with code timeout (not retried)", async () => {
    handlers = [(req, res) => setTimeout(() => vectors(req, res), 2_000).unref()];
    const err = await rejection(provider({ timeoutMs: 50 }).embed(["abc"]));
    expect(err.code).toBe("timeout");
    expect(err.message).toContain("timed out after 50 ms");
    expect(seen).toHaveLength(1);
  });

  it("a refused connection is a network error after bounded retries", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const p = new OpenAiCompatibleProvider({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: "m",
      maxRetries: 1,
      retryBaseMs: 1,
    });
    const err = await rejection(p.embed(["abc"]));
    expect(err.code).toBe("network");
    expect(err.message).toContain(`http://127.0.0.1:${port}/v1/embeddings`);
  });

  it("an already-aborted signal rejects with aborted and sends nothing", async () => {
    const ac = new AbortController();
    ac.abort();
    expect((await rejection(provider().embed(["abc"], { signal: ac.signal }))).code).toBe("aborted");
    expect(seen).toHaveLength(0);
  });

  it("aborting during a request rejects with aborted", async () => {
    const ac = new AbortController();
    handlers = [
      (req, res) => {
        ac.abort();
        setTimeout(() => vectors(req, res), 1_000).unref();
      },
    ];
    expect((await rejection(provider().embed(["abc"], { signal: ac.signal }))).code).toBe("aborted");
  });

  it("aborting during a retry wait rejects with aborted", async () => {
    const ac = new AbortController();
    handlers = [
      (req, res) => {
        status(503, "busy")(req, res);
        setTimeout(() => ac.abort(), 20).unref();
      },
    ];
    const err = await rejection(provider({ retryBaseMs: 5_000, maxRetries: 5 }).embed(["abc"], { signal: ac.signal }));
    expect(err.code).toBe("aborted");
    expect(seen).toHaveLength(1);
  });

  it("rejects bad options with bad-option", () => {
    expect(() => provider({ model: "" })).toThrow(/model must be a non-empty string/);
    expect(() => provider({ batchSize: 0 })).toThrow(/batchSize must be a positive integer, got 0/);
    expect(() => provider({ dimensions: -3 })).toThrow(/dimensions must be a positive integer, got -3/);
    expect(() => provider({ maxRetries: -1 })).toThrow(/maxRetries must be a non-negative integer, got -1/);
  });
});
