/**
 * `toolgraph/embeddings` — the embedding providers: the provider seam, its implementations (hashing, use-lite,
 * OpenAI-compatible), the factory, the query cache and the worker pool that runs use-lite off the event loop; any
 * of them can be passed to `openToolgraph({ embeddings })`.
 */
export { CachedEmbeddingProvider, type CachedEmbeddingProviderOptions, type EmbeddingCacheStats } from "./cached.ts";
export {
  type CreateEmbeddingProviderOptions,
  createEmbeddingProvider,
  DEFAULT_EMBEDDING_SPEC,
  type EmbeddingSpec,
  parseEmbeddingSpec,
} from "./create.ts";
export { HashingEmbedder, type HashingEmbedderOptions } from "./hashing.ts";
export { type OpenAiCompatibleOptions, OpenAiCompatibleProvider } from "./openai-compatible.ts";
export {
  EmbeddingError,
  type EmbeddingErrorCode,
  type EmbeddingProvider,
  type EmbedOptions,
  isBlank,
} from "./provider.ts";
export { textHash } from "./text-hash.ts";
export { loadUseLiteModel, USE_LITE_DIMENSIONS, type UseLiteOptions, UseLiteProvider } from "./use-lite.ts";
export { dot, l2Norm, l2Normalised } from "./vector.ts";
export { EmbeddingWorkerPool, type EmbeddingWorkerPoolOptions } from "./worker-pool.ts";
