/**
 * Provider for any OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, LiteLLM, llama.cpp server...).
 *
 * Request: POST `<baseUrl>/embeddings` with JSON {model, input: string[]} and, when an API key is given,
 * `Authorization: Bearer <key>`. `baseUrl` is the API root including its version segment, as in the OpenAI
 * SDK's `baseURL` (e.g. "https://api.openai.com/v1", "http://127.0.0.1:11434/v1"); a baseUrl that already
 * ends in "/embeddings" is used as is. Response: {data: [{index, embedding}]}, `embedding` a number array
 * or a base64 string of little-endian float32 (encoding_format "base64"); rows are placed by `index`.
 *
 * Texts go in batches of `batchSize`, one request at a time. Each request has a timeout. A 429 or 5xx
 * answer, or a connection failure, is retried up to `maxRetries` times after a delay of
 * min(maxBackoffMs, retryBaseMs · 2^attempt), or the server's Retry-After (seconds) if given, capped by
 * maxBackoffMs; other statuses, a timeout and an abort fail at once. Errors name the URL and the HTTP status, never the key.
 * Dimensions are the configured `dimensions`, else learnt from the first response; every later vector
 * must have that length. Vectors are L2-normalised on arrival (servers differ on whether they do).
 */
import {
  EmbeddingError,
  type EmbeddingProvider,
  type EmbedOptions,
  isBlank,
  positiveInt,
  throwIfAborted,
} from "./provider.ts";
import { l2Normalised } from "./vector.ts";

export interface OpenAiCompatibleOptions {
  /** API root including the version segment, e.g. "http://127.0.0.1:11434/v1". Required. */
  readonly baseUrl: string;
  /** Model name sent as `model`, e.g. "nomic-embed-text". Required. */
  readonly model: string;
  /** Bearer token. Default: none (no Authorization header; Ollama and vLLM need none). */
  readonly apiKey?: string;
  /** Expected vector length; a response of another length is an error. Default: learnt from the first response. */
  readonly dimensions?: number;
  /** Texts per request. Default: DEFAULTS.batchSize (64). */
  readonly batchSize?: number;
  /** Timeout of one request (one attempt), in milliseconds. Default: DEFAULTS.timeoutMs (30,000). */
  readonly timeoutMs?: number;
  /** Retries after a 429/5xx/connection failure, per request. Default: DEFAULTS.maxRetries (3). */
  readonly maxRetries?: number;
  /** First retry delay in ms, doubled per retry. Default: DEFAULTS.retryBaseMs (500). */
  readonly retryBaseMs?: number;
  /** Upper bound of any retry delay (also of Retry-After), in ms. Default: DEFAULTS.maxBackoffMs (8,000). */
  readonly maxBackoffMs?: number;
}

export const DEFAULTS = {
  batchSize: 64,
  timeoutMs: 30_000,
  maxRetries: 3,
  retryBaseMs: 500,
  maxBackoffMs: 8_000,
} as const;

const WHERE = "openai";

/** The embeddings URL for a base URL: `<base>/embeddings`, or the base itself if it already ends so. */
export function embeddingsUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new EmbeddingError("bad-option", `${WHERE}: baseUrl ${JSON.stringify(baseUrl)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new EmbeddingError("bad-option", `${WHERE}: baseUrl ${JSON.stringify(baseUrl)} must be http or https`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path.endsWith("/embeddings") ? path : `${path}/embeddings`;
  return url.toString();
}

function nonNegativeInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new EmbeddingError("bad-option", `${WHERE}: ${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

/** Rejects with EmbeddingError("aborted") if the signal fires first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new EmbeddingError("aborted", `${WHERE} aborted`, { cause: signal.reason }));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new EmbeddingError("aborted", `${WHERE} aborted`, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Decodes a base64 string of little-endian float32 values. */
function decodeBase64Floats(s: string): Float32Array {
  const bytes = Buffer.from(s, "base64");
  if (bytes.length % 4 !== 0) throw new Error(`base64 embedding of ${bytes.length} bytes is not float32`);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
  return out;
}

function snippet(body: string): string {
  const flat = body.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

class RetryableError extends Error {
  constructor(
    readonly error: EmbeddingError,
    readonly retryAfterMs: number | undefined,
  ) {
    super(error.message);
  }
}

export class OpenAiCompatibleProvider implements EmbeddingProvider {
  readonly model: string;
  /** The endpoint every request goes to (`<baseUrl>/embeddings`). */
  readonly url: string;
  readonly #apiKey: string | undefined;
  readonly #batchSize: number;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retryBaseMs: number;
  readonly #maxBackoffMs: number;
  #dimensions: number;

  constructor(options: OpenAiCompatibleOptions) {
    if (typeof options.model !== "string" || options.model.trim() === "") {
      throw new EmbeddingError(
        "bad-option",
        `${WHERE}: model must be a non-empty string, got ${JSON.stringify(options.model)}`,
      );
    }
    this.url = embeddingsUrl(options.baseUrl);
    this.model = options.model;
    this.#apiKey = options.apiKey === "" ? undefined : options.apiKey;
    this.#dimensions = options.dimensions === undefined ? 0 : positiveInt(options.dimensions, "dimensions", WHERE);
    this.#batchSize = positiveInt(options.batchSize ?? DEFAULTS.batchSize, "batchSize", WHERE);
    this.#timeoutMs = positiveInt(options.timeoutMs ?? DEFAULTS.timeoutMs, "timeoutMs", WHERE);
    this.#maxRetries = nonNegativeInt(options.maxRetries ?? DEFAULTS.maxRetries, "maxRetries");
    this.#retryBaseMs = nonNegativeInt(options.retryBaseMs ?? DEFAULTS.retryBaseMs, "retryBaseMs");
    this.#maxBackoffMs = nonNegativeInt(options.maxBackoffMs ?? DEFAULTS.maxBackoffMs, "maxBackoffMs");
  }

  /** Configured or learnt vector length; 0 until the first successful request when not configured. */
  get dimensions(): number {
    return this.#dimensions;
  }

  /** Learns the vector length with one request if it is not known yet; returns it. */
  async discoverDimensions(signal?: AbortSignal): Promise<number> {
    if (this.#dimensions === 0) await this.#request(["dimension probe"], signal);
    return this.#dimensions;
  }

  async embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    throwIfAborted(opts.signal, WHERE);
    if (texts.length === 0) return [];
    const out: Array<Float32Array | undefined> = texts.map(() => undefined);
    const todo: number[] = [];
    texts.forEach((t, i) => {
      if (!isBlank(t)) todo.push(i);
    });
    let done = texts.length - todo.length;
    for (let start = 0; start < todo.length; start += this.#batchSize) {
      throwIfAborted(opts.signal, WHERE);
      const idx = todo.slice(start, start + this.#batchSize);
      const vectors = await this.#request(
        idx.map((i) => texts[i]!),
        opts.signal,
      );
      idx.forEach((i, k) => {
        out[i] = vectors[k]!;
      });
      done += idx.length;
      opts.onProgress?.(done, texts.length);
    }
    // Blank texts: zero vectors of the (now known, or probed) length.
    if (todo.length === 0) {
      const d = await this.discoverDimensions(opts.signal);
      opts.onProgress?.(texts.length, texts.length);
      return texts.map(() => new Float32Array(d));
    }
    return out.map((v) => v ?? new Float32Array(this.#dimensions));
  }

  /** One batch: POST with retries; returns normalised vectors in input order. */
  async #request(input: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#attempt(input, signal);
      } catch (err) {
        if (!(err instanceof RetryableError)) throw err;
        if (attempt >= this.#maxRetries) throw err.error;
        const backoff = Math.min(this.#maxBackoffMs, this.#retryBaseMs * 2 ** attempt);
        await sleep(Math.min(this.#maxBackoffMs, err.retryAfterMs ?? backoff), signal);
      }
    }
  }

  async #attempt(input: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (this.#apiKey !== undefined) headers.authorization = `Bearer ${this.#apiKey}`;
    let res: Response;
    let body: string;
    try {
      res = await fetch(this.url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: this.model, input }),
        signal: combined,
      });
      body = await res.text();
    } catch (err) {
      if (signal?.aborted)
        throw new EmbeddingError("aborted", `${WHERE}: request to ${this.url} aborted`, { cause: signal.reason });
      if (timeout.aborted) {
        throw new EmbeddingError("timeout", `${WHERE}: POST ${this.url} timed out after ${this.#timeoutMs} ms`, {
          cause: err,
        });
      }
      const reason = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
      throw new RetryableError(
        new EmbeddingError("network", `${WHERE}: POST ${this.url} failed: ${reason}`, { cause: err }),
        undefined,
      );
    }
    if (!res.ok) {
      const error = new EmbeddingError(
        "http-status",
        `${WHERE}: POST ${this.url} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}: ${snippet(body)}`,
      );
      if (res.status === 429 || res.status >= 500) {
        const header = res.headers.get("retry-after");
        const seconds = header === null || header.trim() === "" ? Number.NaN : Number(header);
        throw new RetryableError(error, Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined);
      }
      throw error;
    }
    return this.#parse(body, input.length);
  }

  #parse(body: string, expected: number): Float32Array[] {
    const bad = (why: string) => new EmbeddingError("bad-response", `${WHERE}: POST ${this.url}: ${why}`);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw bad(`response is not JSON: ${snippet(body)}`);
    }
    const data = (json as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw bad(`response has no "data" array: ${snippet(body)}`);
    if (data.length !== expected) throw bad(`response has ${data.length} embeddings for ${expected} inputs`);
    const out: Array<Float32Array | undefined> = new Array(expected).fill(undefined);
    // Learnt only once the whole response is valid, so a bad first response teaches nothing.
    let dims = this.#dimensions;
    data.forEach((row: unknown, k: number) => {
      const r = row as { index?: unknown; embedding?: unknown } | null;
      const index = r?.index === undefined ? k : r.index;
      if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= expected || out[index]) {
        throw bad(`data[${k}].index ${JSON.stringify(index)} is not a distinct integer in 0..${expected - 1}`);
      }
      let raw: ArrayLike<number>;
      if (typeof r?.embedding === "string") {
        try {
          raw = decodeBase64Floats(r.embedding);
        } catch (err) {
          throw bad(`data[${k}].embedding: ${String(err)}`);
        }
      } else if (Array.isArray(r?.embedding) && r.embedding.every((x) => typeof x === "number" && Number.isFinite(x))) {
        raw = r.embedding as number[];
      } else {
        throw bad(`data[${k}].embedding is not an array of finite numbers`);
      }
      if (raw.length === 0) throw bad(`data[${k}].embedding is empty`);
      if (dims === 0) dims = raw.length;
      if (raw.length !== dims) {
        throw new EmbeddingError(
          "dimension-mismatch",
          `${WHERE}: POST ${this.url} returned a ${raw.length}-d embedding for model ${JSON.stringify(this.model)}, expected ${dims}`,
        );
      }
      out[index] = l2Normalised(raw);
    });
    this.#dimensions = dims;
    return out as Float32Array[];
  }
}
