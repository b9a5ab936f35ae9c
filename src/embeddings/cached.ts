/**
 * LRU cache in front of a provider, for query embeddings: a query typed twice is embedded once.
 *
 * Keys are (provider.model, textHash(text)): the exact text, by its sha256, so a long text costs a 64-character
 * key, not its length. Capacity counts vectors; when full, the least recently used entry (looked up or stored)
 * is evicted. Hits are returned as copies, so a caller that mutates its vector cannot poison the cache.
 * Within one `embed` call the misses are deduplicated and sent to the inner provider in one call (it batches).
 * Concurrent calls that miss on the same text both go to the inner provider (no in-flight sharing: one
 * caller's abort must not fail another's request).
 * Tool-text embeddings are not meant for this cache: they are persisted by (textHash(text), model).
 *
 * A `store` is a second level behind the LRU, shared by processes (the embedded data directory's cache): a
 * miss of the LRU reads it before the inner provider, and what the provider computes is written to it, so a
 * one-shot CLI call that repeats an earlier query needs no model (docs/decisions/everyday-budget.md).
 */
import { EmbeddingError, type EmbeddingProvider, type EmbedOptions } from "./provider.ts";
import { textHash } from "./text-hash.ts";

export interface CachedEmbeddingProviderOptions {
  /** Maximum number of cached vectors; 0 disables caching. Default: DEFAULTS.capacity (1,000). */
  readonly capacity?: number;
  /** Second level behind the LRU (keys as the LRU's, "model\0textHash"). Default none. */
  readonly store?: QueryVectorStore | undefined;
}

/** Vectors kept beyond one process (get returns undefined on a miss; set never throws). */
export interface QueryVectorStore {
  get(key: string): Float32Array | undefined;
  set(key: string, vector: Float32Array): void;
}

export const DEFAULTS = {
  capacity: 1_000,
} as const;

export interface EmbeddingCacheStats {
  /** Texts answered from the cache since creation (or the last `clear`). */
  readonly hits: number;
  /** Texts sent to the inner provider since creation (or the last `clear`); a text repeated in one call counts once. */
  readonly misses: number;
  /** Vectors held now. */
  readonly size: number;
  readonly capacity: number;
}

export class CachedEmbeddingProvider implements EmbeddingProvider {
  readonly inner: EmbeddingProvider;
  readonly capacity: number;
  readonly #entries = new Map<string, Float32Array>();
  readonly #shared: QueryVectorStore | undefined;
  #hits = 0;
  #misses = 0;

  constructor(inner: EmbeddingProvider, options: CachedEmbeddingProviderOptions = {}) {
    const capacity = options.capacity ?? DEFAULTS.capacity;
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new EmbeddingError("bad-option", `cache: capacity must be a non-negative integer, got ${capacity}`);
    }
    this.inner = inner;
    this.capacity = capacity;
    this.#shared = options.store;
  }

  get model(): string {
    return this.inner.model;
  }

  get dimensions(): number {
    return this.inner.dimensions;
  }

  stats(): EmbeddingCacheStats {
    return { hits: this.#hits, misses: this.#misses, size: this.#entries.size, capacity: this.capacity };
  }

  /** Empties the cache and resets the counters. */
  clear(): void {
    this.#entries.clear();
    this.#hits = 0;
    this.#misses = 0;
  }

  async embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    const model = this.inner.model;
    const out: Array<Float32Array | undefined> = new Array(texts.length).fill(undefined);
    const missing = new Map<string, number[]>(); // text → positions in `texts`
    const keys = texts.map((text) => `${model}\u0000${textHash(text)}`);
    texts.forEach((text, i) => {
      const key = keys[i]!;
      const hit = this.#entries.get(key);
      if (hit !== undefined) {
        this.#entries.delete(key); // re-insert: Map order is recency order
        this.#entries.set(key, hit);
        out[i] = hit.slice();
        this.#hits++;
        return;
      }
      const stored = this.#shared?.get(key);
      if (stored !== undefined && stored.length === this.inner.dimensions) {
        this.#store(key, stored);
        out[i] = stored.slice();
        this.#hits++;
        return;
      }
      const positions = missing.get(text);
      if (positions) positions.push(i);
      else missing.set(text, [i]);
    });
    if (missing.size > 0) {
      const misses = [...missing.keys()];
      this.#misses += misses.length;
      const answered = texts.length - [...missing.values()].reduce((s, p) => s + p.length, 0);
      const onProgress = opts.onProgress;
      const vectors = await this.inner.embed(misses, {
        signal: opts.signal,
        onProgress: onProgress
          ? (done, total) =>
              onProgress(
                Math.min(texts.length, answered + Math.round((done / total) * (texts.length - answered))),
                texts.length,
              )
          : undefined,
      });
      misses.forEach((text, k) => {
        const v = vectors[k]!;
        const positions = missing.get(text)!;
        for (const i of positions) out[i] = v.slice();
        this.#store(keys[positions[0]!]!, v);
        this.#shared?.set(keys[positions[0]!]!, v);
      });
    } else if (texts.length > 0) {
      opts.onProgress?.(texts.length, texts.length);
    }
    return out as Float32Array[];
  }

  async close(): Promise<void> {
    this.#entries.clear();
    await this.inner.close?.();
  }

  #store(key: string, v: Float32Array): void {
    if (this.capacity === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, v.slice());
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}
