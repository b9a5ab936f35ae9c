/**
 * A local model's answers kept across processes, call by call: an `embed` call whose exact list of texts the
 * same model (and batch size) embedded before is answered with the bytes the model gave then, without loading
 * the model. What it saves and where the store lives: docs/decisions/everyday-budget.md.
 *
 * - Keyed by the whole call, not by text: USE-lite's vector for a text depends on the other texts of its batch
 *   (last-bit differences, worker-pool.ts), so only the same list of texts in the same order, cut into the same
 *   batches (`batchSize`), is sure to give the same bytes. A hit is therefore exactly what the model would
 *   return for that call; a list that differs by one text is a miss and goes to the model whole.
 * - The key: a layout tag, the package version, the model's name (its weights' version), the batch size, then
 *   every text length-prefixed (so two lists never run together), hashed (sha256).
 * - The value: the call's vectors, row after row, float32 little-endian as the model gave them; a value whose
 *   length is not texts × dimensions × 4 is a miss.
 * - Best effort: the store's reads and writes never throw into a call (its own contract), a miss costs one
 *   failed file read. An aborted signal still rejects, hit or not, as the provider would.
 */
import { createHash } from "node:crypto";
import { VERSION } from "../version.ts";
import { EmbeddingError, type EmbedOptions } from "./provider.ts";

/** Bytes kept under a key (get: undefined on a miss; set: never throws). */
export interface EmbeddingCallStore {
  get(key: string): Uint8Array | undefined;
  set(key: string, bytes: Uint8Array): void;
}

/** Changes whenever the key or the value's layout changes. */
const LAYOUT = "embed-call-1";

/** The store's key of one call: model, batch size and the exact texts in order. */
export function embeddingCallKey(model: string, batchSize: number, texts: readonly string[]): string {
  const h = createHash("sha256");
  h.update(`${LAYOUT}\0${VERSION}\0${model}\0${batchSize}\0${texts.length}\0`);
  for (const t of texts) {
    const b = Buffer.from(t, "utf8");
    h.update(`${b.length}:`);
    h.update(b);
  }
  return `${LAYOUT}\0${model}\0${h.digest("hex")}`;
}

/** The call's vectors from `bytes`, or undefined when their length does not fit. */
function vectorsOf(bytes: Uint8Array, n: number, dims: number): Float32Array[] | undefined {
  if (dims <= 0 || bytes.length !== n * dims * 4) return undefined;
  const all = new Float32Array(n * dims);
  new Uint8Array(all.buffer).set(bytes);
  return Array.from({ length: n }, (_, i) => all.slice(i * dims, (i + 1) * dims));
}

/** The call's vectors as one byte string, row after row. */
function bytesOf(vectors: readonly Float32Array[], dims: number): Uint8Array | undefined {
  if (vectors.some((v) => v.length !== dims)) return undefined;
  const all = new Float32Array(vectors.length * dims);
  for (let i = 0; i < vectors.length; i++) all.set(vectors[i]!, i * dims);
  return new Uint8Array(all.buffer);
}

/**
 * Answers `texts` from `store` when this exact call was made before, else runs `compute` (the model) and keeps
 * its answer. `where` names the provider in an abort's message.
 */
export async function embedThroughStore(
  store: EmbeddingCallStore,
  call: { model: string; dimensions: number; batchSize: number; where: string },
  texts: readonly string[],
  opts: EmbedOptions,
  compute: () => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  if (opts.signal?.aborted) throw new EmbeddingError("aborted", `${call.where} aborted`, { cause: opts.signal.reason });
  if (texts.length === 0) return compute();
  const key = embeddingCallKey(call.model, call.batchSize, texts);
  const stored = store.get(key);
  const hit = stored && vectorsOf(stored, texts.length, call.dimensions);
  if (hit) {
    opts.onProgress?.(texts.length, texts.length);
    return hit;
  }
  const vectors = await compute();
  const bytes = bytesOf(vectors, call.dimensions);
  if (bytes) store.set(key, bytes);
  return vectors;
}
