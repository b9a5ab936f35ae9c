/**
 * The embedding seam: one narrow interface that every text-embedding backend implements.
 *
 * A provider turns texts into vectors of a fixed length `dimensions`, L2-normalised (‖v‖₂ = 1), so that
 * cosine similarity is a plain dot product. One exception, the same in every provider: a blank text
 * (empty or whitespace only, `text.trim() === ""`) has no content and embeds to the zero vector; it is
 * never sent to a model (USE-lite drops a trailing empty text's row, OpenAI rejects empty inputs).
 *
 * `model` names the model and its version; it is the second half of the persistence key
 * (text hash, model), so two providers with the same `model` must return the same vectors.
 */

export interface EmbedOptions {
  /** Called after each batch with the number of texts done so far and the total. Default: none. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Aborts between batches (and in-flight HTTP requests); the call rejects with code "aborted". Default: none. */
  readonly signal?: AbortSignal;
}

export interface EmbeddingProvider {
  /** Model identifier, stable across processes: part of the persistence key (text hash, model). */
  readonly model: string;
  /** Vector length. 0 only for a remote provider whose length is not yet known (before its first call). */
  readonly dimensions: number;
  /** One L2-normalised vector per text, in input order (blank text → zero vector). */
  embed(texts: readonly string[], opts?: EmbedOptions): Promise<Float32Array[]>;
  /** Releases resources (connections, model handles). Optional. */
  close?(): Promise<void>;
}

/** The one error family of src/embeddings; `code` is stable, the message names the offending value. */
export class EmbeddingError extends Error {
  readonly code: EmbeddingErrorCode;
  constructor(code: EmbeddingErrorCode, message: string, options?: { cause?: unknown }) {
    super(`embeddings: ${message}`, options);
    this.code = code;
    this.name = "EmbeddingError";
  }
}

export type EmbeddingErrorCode =
  | "bad-spec" // createEmbeddingProvider got a spec it does not understand
  | "bad-option" // an option is out of range (batch size, dimensions, capacity...)
  | "model-load" // the local model could not be loaded
  | "http-status" // the remote endpoint answered with a non-2xx status (after retries, if retryable)
  | "network" // the remote endpoint could not be reached (after retries)
  | "timeout" // a request took longer than its timeout
  | "bad-response" // the remote answer is not a well-formed embeddings response
  | "dimension-mismatch" // a vector's length differs from the expected dimensions
  | "aborted" // the caller's AbortSignal fired, or the provider was closed
  | "worker"; // an embedding worker thread died twice on one batch (worker-pool.ts)

/** True for a blank text: it embeds to the zero vector and is never sent to a model. */
export function isBlank(text: string): boolean {
  return text.trim() === "";
}

/** Throws EmbeddingError("aborted") when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined, where: string): void {
  if (signal?.aborted) {
    throw new EmbeddingError("aborted", `${where} aborted`, { cause: signal.reason });
  }
}

/** Validates a positive-integer option, naming the module and the value on failure. */
export function positiveInt(value: number, name: string, where: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new EmbeddingError("bad-option", `${where}: ${name} must be a positive integer, got ${value}`);
  }
  return value;
}
