/**
 * The embedding worker thread: builds the provider of `workerData.spec` (the same factory as on the main
 * thread, so the same code embeds), then answers { id, texts } with { id, vectors, dims } (the vectors packed
 * row-major in one Float32Array whose buffer is transferred) or { id, error } (an EmbeddingError keeps its
 * code and message). Started by worker-pool.ts; see docs/decisions/embedding-worker-pool.md.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createEmbeddingProvider, type EmbeddingSpec } from "./create.ts";
import { EmbeddingError } from "./provider.ts";

interface Request {
  id: number;
  texts: string[];
}

/** What crosses the thread boundary for an error: enough to rebuild the same error on the main thread. */
export interface WorkerError {
  name: string;
  message: string;
  code?: string | undefined;
  stack?: string | undefined;
}

const provider = createEmbeddingProvider((workerData as { spec: EmbeddingSpec }).spec);

parentPort?.on("message", async (m: Request) => {
  try {
    const vectors = await provider.embed(m.texts);
    const dims = vectors.reduce((d, v) => Math.max(d, v.length), 0);
    const packed = new Float32Array(vectors.length * dims);
    for (const [i, v] of vectors.entries()) packed.set(v, i * dims);
    parentPort!.postMessage({ id: m.id, vectors: packed, dims }, [packed.buffer]);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    const error: WorkerError = {
      name: e.name,
      message: e.message,
      stack: e.stack,
      code: err instanceof EmbeddingError ? err.code : undefined,
    };
    parentPort!.postMessage({ id: m.id, error });
  }
});
