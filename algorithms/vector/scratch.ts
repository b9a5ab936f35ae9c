/**
 * Reusable buffers and per-index kernel caches of the staged vector index (algorithms/search/vector-index.ts has
 * the overview). Searches are synchronous, so one set of scratch buffers per module is never shared in flight.
 * The SIMD kernels hold copies of an index's arrays in their own WebAssembly memories; they are kept in WeakMaps
 * keyed by the index object (collected with it) and used only while the array they copied is still the index's.
 */
import type { VectorIndex } from "./index-types.ts";

let idBuffer = new Int32Array(0);

/** A reusable id buffer of at least `size` entries, keeping its first `keepFirst` entries when it grows. */
export function idScratch(size: number, keepFirst = 0): Int32Array {
  if (idBuffer.length < size) {
    const grown = new Int32Array(Math.max(size, 2 * idBuffer.length));
    grown.set(idBuffer.subarray(0, keepFirst));
    idBuffer = grown;
  }
  return idBuffer;
}

/** scratch[0] with room for `size` entries, keeping its first `keepFirst` values. */
export function growScratch(size: number, keepFirst: number): Float64Array {
  const old = scratch[0];
  if (old.length < size) {
    scratch[0] = new Float64Array(Math.max(size, 2 * old.length));
    scratch[0].set(old.subarray(0, keepFirst));
  }
  return scratch[0];
}

/** Two reusable score buffers per module (the search is synchronous, so they are never shared in flight). */
const scratch: [Float64Array, Float64Array] = [new Float64Array(0), new Float64Array(0)];

export function scratchOf(n: number, which: 0 | 1 = 0): Float64Array {
  if (scratch[which].length < n) scratch[which] = new Float64Array(Math.max(n, 2 * scratch[which].length));
  return scratch[which].subarray(0, n);
}

/**
 * The SIMD kernel of an index, created once by `create` (null remembered when it cannot be) and used only while
 * the array it copied (`source`) is still the index's `current` one.
 */
export function cachedKernel<K extends { readonly source: object }>(
  cache: WeakMap<VectorIndex, K | null>,
  index: VectorIndex,
  current: object,
  create: () => K | undefined,
): K | undefined {
  let k = cache.get(index);
  if (k === undefined) {
    k = create() ?? null;
    cache.set(index, k);
  }
  return k !== null && k.source === current ? k : undefined;
}
