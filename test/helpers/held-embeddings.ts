/**
 * An embedding provider that waits until the test releases it (every call, bulk or query): the stand-in for a
 * local model that is busy, so that a test can show what answers without it.
 */
import { createEmbeddingProvider, parseEmbeddingSpec } from "../../src/embeddings/create.ts";
import type { EmbeddingProvider } from "../../src/embeddings/provider.ts";

/** Hash embeddings (`spec`, default hash:256) that wait for `release()`; `calls` counts the calls. */
export function heldProvider(spec = "hash:256"): EmbeddingProvider & { release(): void; calls: number } {
  const inner = createEmbeddingProvider(parseEmbeddingSpec(spec));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const p = {
    model: inner.model,
    dimensions: inner.dimensions,
    calls: 0,
    release,
    async embed(texts: readonly string[]) {
      p.calls++;
      await released;
      return inner.embed(texts);
    },
  };
  return p;
}
