/**
 * The search read model of a project's catalog: BM25 over tool fields (weighted by repetition), the
 * tools' embeddings (stored by (text hash, model), computed once; unchanged tools are never re-embedded)
 * in a two-stage vector index, and the same two channels for capabilities. Rebuilt only when the
 * catalog's texts change (a recorded execution does not touch it). While the embeddings of a new catalog are
 * computed, a lexical index (BM25 only, no vectors, `degraded: "embedding"`) can answer in their place
 * (docs/decisions/lexical-while-embedding.md).
 */

import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { type Bm25Index, buildBm25IndexSteps } from "../../algorithms/search/bm25.ts";
import { type ToolTextInput, tokenize, toolText, toolTextInput, toolTokens } from "../../algorithms/search/tokenize.ts";
import { buildVectorIndex, buildVectorIndexSteps, type VectorIndex } from "../../algorithms/search/vector-index.ts";
import type { EmbeddingProvider } from "../embeddings/provider.ts";
import { textHash } from "../embeddings/text-hash.ts";
import { loadEmbeddings, saveEmbeddings } from "../store/embeddings.ts";
import type { CapabilityRow } from "../store/reads.ts";
import type { Database } from "../store/schema.ts";
import { DerivedState, derivedKey } from "./derived.ts";
import type { GraphSnapshot } from "./graph-snapshot.ts";
import type { TokenLists } from "./token-lists.ts";

export interface SearchIndex {
  key: string;
  model: string;
  dims: number;
  toolBm25: Bm25Index;
  /** Row-major n × dims unit vectors (zero rows for blank texts). */
  toolVectors: Float32Array;
  toolVectorIndex: VectorIndex;
  capBm25: Bm25Index;
  capVectors: Float32Array;
  /** Tool ids in index order (same as the snapshot's at build time). */
  toolIds: string[];
  capIds: string[];
  buildMs: number;
  embeddedNow: number;
  /** Derived state of this catalog's index (routing trial, namespace index, coherence): see view/derived.ts. */
  derived: DerivedState;
  /** Set on a lexical index (buildLexicalIndex): the embedding channel is not live, its vectors are empty. */
  degraded?: "embedding" | undefined;
}

export function capabilityText(c: CapabilityRow): string {
  return [c.name, c.description, c.keywords.join(", ")].filter((s) => s && s.length > 0).join(". ");
}

const CATALOG_KEY = derivedKey<string>("catalog key", "catalog");

/** Hash of the catalog's texts and the model (derived state of the snapshot's catalog: computed once, not per search). */
export function catalogKey(s: GraphSnapshot, model: string): string {
  return s.derived(CATALOG_KEY, () => {
    const h = createHash("sha256");
    h.update(model);
    for (const t of s.tools) h.update(t.textHash);
    for (const c of s.capabilities) h.update(c.textHash);
    return h.digest("hex");
  }, [model]);
}

/** Loads stored vectors for the texts, embeds the missing ones (in batches, with progress) and stores them. */
export async function ensureEmbeddings(
  db: Kysely<Database>,
  project: string,
  provider: EmbeddingProvider,
  texts: readonly string[],
  onProgress?: (done: number, total: number) => void,
  save = true,
): Promise<{ vectors: Float32Array[]; embeddedNow: number }> {
  const hashes = texts.map(textHash);
  const stored = await loadEmbeddings(db, project, provider.model, hashes);
  const missing: number[] = [];
  const seen = new Set<string>();
  hashes.forEach((h, i) => {
    if (!stored.has(h) && !seen.has(h)) {
      seen.add(h);
      missing.push(i);
    }
  });
  if (missing.length > 0) {
    const batch = 256;
    for (let k = 0; k < missing.length; k += batch) {
      const part = missing.slice(k, k + batch);
      const vecs = await provider.embed(part.map((i) => texts[i]!));
      const items = part.map((i, j) => ({ hash: hashes[i]!, vector: vecs[j]! }));
      if (save) await saveEmbeddings(db, project, provider.model, items);
      for (const it of items) stored.set(it.hash, it.vector);
      onProgress?.(Math.min(k + batch, missing.length), missing.length);
    }
  }
  return { vectors: hashes.map((h) => stored.get(h)!), embeddedNow: missing.length };
}

/** Work between two yields to the event loop while the index is built (ARCHITECTURE: ≤ 50 ms on the loop). */
const SLICE_MS = 8;

/** `fn` over `items` in order, yielding to the event loop after every SLICE_MS of work. */
async function mapInSlices<T, R>(items: readonly T[], fn: (item: T) => R): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let t = performance.now();
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i]!);
    if (performance.now() - t > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      t = performance.now();
    }
  }
  return out;
}

/** Runs a generator of steps to its value, yielding to the event loop after every SLICE_MS of steps. */
export async function runInSlices<R>(steps: Generator<unknown, R, void>): Promise<R> {
  let t = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - t > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      t = performance.now();
    }
  }
}

/** The vectors in one row-major array (a wrong-sized vector stays zeros), copied in slices between event-loop turns. */
async function pack(vectors: Float32Array[], dims: number): Promise<Float32Array> {
  const out = new Float32Array(vectors.length * dims);
  let t = performance.now();
  for (let i = 0; i < vectors.length; i++) {
    const v = vectors[i]!;
    if (v.length === dims) out.set(v, i * dims);
    if (performance.now() - t > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      t = performance.now();
    }
  }
  return out;
}

type LexicalChannels = Pick<SearchIndex, "toolBm25" | "capBm25" | "toolIds" | "capIds">;

/** The catalog's lexical channels: built once per catalog, for its lexical index and its full index alike. */
const LEXICAL_CHANNELS = derivedKey<Promise<LexicalChannels>>("lexical channels", "catalog");

/**
 * The BM25 channels of the catalog (tool fields weighted by repetition, capability texts), built in slices
 * once per snapshot's catalog (derived state). With `lists` (the project's token lists from earlier builds)
 * only texts not seen before are tokenized.
 */
function lexicalChannels(s: GraphSnapshot, lists?: TokenLists): Promise<LexicalChannels> {
  const p = s.derived(LEXICAL_CHANNELS, async () => {
    const inputs = await mapInSlices(s.tools, toolTextInput);
    return buildLexicalChannels(s, inputs, s.capabilities.map(capabilityText), lists);
  });
  // A build that failed is not kept: the next index build of this catalog tries again.
  p.catch(() => s.forgetDerived(LEXICAL_CHANNELS, p));
  return p;
}

async function buildLexicalChannels(
  s: GraphSnapshot,
  inputs: readonly ToolTextInput[],
  capTexts: readonly string[],
  lists?: TokenLists,
): Promise<LexicalChannels> {
  const reader = lists?.reader();
  const tokenizeField = reader?.tokens;
  const toolTokenLists = await mapInSlices(inputs, (t) => toolTokens(t, tokenizeField ? { tokenizeField } : {}));
  const capTokenLists = await mapInSlices(capTexts, (t) => (tokenizeField ? tokenizeField(t) : tokenize(t)));
  if (reader) lists?.sweep(reader.build);
  return {
    toolBm25: await runInSlices(buildBm25IndexSteps(toolTokenLists)),
    capBm25: await runInSlices(buildBm25IndexSteps(capTokenLists)),
    toolIds: s.tools.map((t) => t.id),
    capIds: s.capabilities.map((c) => c.id),
  };
}

export async function buildSearchIndex(
  db: Kysely<Database>,
  s: GraphSnapshot,
  provider: EmbeddingProvider,
  onProgress?: (done: number, total: number) => void,
  lists?: TokenLists,
): Promise<SearchIndex> {
  const t0 = performance.now();
  const inputs = await mapInSlices(s.tools, toolTextInput);
  const toolTexts = await mapInSlices(inputs, toolText);
  const capTexts = s.capabilities.map(capabilityText);
  const tools = await ensureEmbeddings(db, s.project, provider, toolTexts, onProgress);
  const caps = await ensureEmbeddings(db, s.project, provider, capTexts);
  const dims = provider.dimensions || tools.vectors.find((v) => v.length > 0)?.length || 1;
  // The vector index keeps the vectors once (in its SIMD kernel's memory when available): read them through it.
  // Built in steps between which the event loop runs (a 3,000-tool index is 100–300 ms of work).
  const toolVectorIndex = await runInSlices(buildVectorIndexSteps(await pack(tools.vectors, dims), dims));
  const lexical = await lexicalChannels(s, lists);
  return {
    key: catalogKey(s, provider.model),
    model: provider.model,
    dims,
    ...lexical,
    toolVectors: toolVectorIndex.vectors,
    toolVectorIndex,
    capVectors: await pack(caps.vectors, dims),
    buildMs: performance.now() - t0,
    embeddedNow: tools.embeddedNow + caps.embeddedNow,
    derived: new DerivedState(),
  };
}

/**
 * The catalog's lexical index: the BM25 channels of buildSearchIndex and no vectors (every cosine reads 0, the
 * vector channel returns nothing). What search answers from while buildSearchIndex embeds a new catalog.
 */
export async function buildLexicalIndex(
  s: GraphSnapshot,
  model: string,
  dims: number,
  lists?: TokenLists,
): Promise<SearchIndex> {
  const t0 = performance.now();
  const lexical = await lexicalChannels(s, lists);
  const d = Math.max(1, dims);
  const toolVectorIndex = buildVectorIndex(new Float32Array(0), d);
  return {
    key: catalogKey(s, model),
    model,
    dims: d,
    ...lexical,
    toolVectors: toolVectorIndex.vectors,
    toolVectorIndex,
    capVectors: new Float32Array(0),
    buildMs: performance.now() - t0,
    embeddedNow: 0,
    derived: new DerivedState(),
    degraded: "embedding",
  };
}
