/**
 * WebAssembly SIMD kernels (kernels.wat) for dot products of one query with a list of stored rows:
 *
 *   float32 rows:  out_k = Σ_j x[id_k·d + j] · q_j
 *   int8 rows:     out_k = scale[id_k] · Σ_j a[id_k·d + j] · q_j      (the definition of dotInt8)
 *
 * Each kernel instance owns one WebAssembly.Memory holding its rows (copied in, or written in place), the
 * query, a chunk of ids and the outputs, so the memory is freed with the kernel; the memory never grows, so
 * views into it stay valid. Ids are scored in chunks of CHUNK.
 *
 * Rounding: the query is rounded to float32 and the sum is taken in float32 (16 lanes, see kernels.wat), where
 * the JS kernels (linalg/dot.ts) multiply and sum in float64. With u = 2⁻²⁴ and M = ⌊d/16⌋ + 12 (the most
 * roundings any product goes through: query, product, lane sums, the 4-wide tail, lane merges, scalar tail),
 *
 *   |simd − exact| ≤ γ_M · Σ_j |x_j q_j|,   γ_M = M·u / (1 − M·u)        (Higham, "Accuracy and Stability of
 *   Numerical Algorithms", 2002, §3.1 and §4.2),
 *
 * and the float64 JS sum is within (d + 16)·2⁻⁵³ · Σ_j |x_j q_j| of exact; `dotErrorFactor(d)` is the sum of
 * the two factors, a bound on |simd − js| / Σ_j |x_j q_j| (for unit vectors Σ_j |x_j q_j| ≤ ‖x‖‖q‖ ≤ 1:
 * about 2.6e-6 at d = 512). The int8 products a_j · q_j are exact in float32 up to the query's rounding.
 *
 * Availability: none when WebAssembly is missing or rejects the SIMD module (`WebAssembly.validate`), or when
 * the memory cannot be allocated; callers then run the JS kernels. `simdByDefault()` is also false when the
 * process switched SIMD off (setSimdEnabled(false); the engine does so when TOOLGRAPH_NO_SIMD=1).
 */
import { KERNELS_WASM_BASE64 } from "./kernels-wasm.ts";

/** Ids scored per kernel call. */
export const CHUNK = 4096;
const PAGE = 65536;
/** wasm32 addresses 4 GiB; stay below 2 GiB so every byte offset is a non-negative i32. */
const MAX_BYTES = 2 ** 31 - PAGE;

/** The part of the WebAssembly JS API used here (the project's lib, ES2023 without DOM, does not declare it). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object, imports: object) => { readonly exports: object };
  readonly Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}

let compiled: { readonly wasm: WasmApi; readonly module: object } | null | undefined;

/** The compiled kernels, or null when WebAssembly or its SIMD is unavailable (compiled once). */
function kernels(): { readonly wasm: WasmApi; readonly module: object } | null {
  if (compiled === undefined) {
    compiled = null;
    const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
    try {
      const bytes = Uint8Array.from(atob(KERNELS_WASM_BASE64), (c) => c.charCodeAt(0));
      if (wasm?.validate(bytes)) compiled = { wasm, module: new wasm.Module(bytes) };
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** True when the SIMD kernels can run here. */
export function simdAvailable(): boolean {
  return kernels() !== null;
}

let simdSwitch = true;

/**
 * Turns the SIMD default of every kernel user on or off for the process (a switch, not I/O: the services read
 * TOOLGRAPH_NO_SIMD=1 at engine start and call this). Explicit `simd` / `scanSimd` options still win.
 */
export function setSimdEnabled(enabled: boolean): void {
  simdSwitch = enabled;
}

/** The default of every `simd` option: available, and not switched off (setSimdEnabled(false)). */
export function simdByDefault(): boolean {
  return simdSwitch && simdAvailable();
}

/** Bound on |simd − js| / Σ_j |x_j q_j| for a d-term dot product (see the header). */
export function dotErrorFactor(d: number): number {
  const m = Math.floor(d / 16) + 12;
  const u = 2 ** -24;
  return (m * u) / (1 - m * u) + (d + 16) * 2 ** -53;
}

/**
 * Absolute error added by float32 underflow (gradual: sums of subnormals are exact, but the query's rounding
 * and each product may be off by half the smallest subnormal, 2⁻¹⁵⁰, times the row value): a bound for rows with
 * |x_j| ≤ maxAbs. Zero in practice for unit vectors; matters only for queries or rows below ~1e-38.
 */
export function dotUnderflowBound(d: number, maxAbs: number): number {
  return d * (1 + maxAbs) * 2 ** -150 * (1 + 1e-6);
}

/** Largest |query[j]| the kernels accept: the float32 rounding of the query must stay finite. */
export const MAX_QUERY_ABS = 2 ** 120;

interface Layout {
  readonly memory: WasmMemory;
  readonly exports: Record<string, (...args: number[]) => void>;
  readonly query: number;
  readonly query64: number;
  readonly ids: number;
  readonly out: number;
}

export const align = (x: number) => Math.ceil(x / 16) * 16;

/** A kernel instance on its own memory of at least `totalBytes` (never grown); undefined when unavailable. */
export function kernelInstance(
  totalBytes: number,
): { readonly memory: WasmMemory; readonly exports: Record<string, (...args: number[]) => void> } | undefined {
  const k = kernels();
  if (k === null || !(totalBytes <= MAX_BYTES)) return undefined;
  let memory: WasmMemory;
  try {
    memory = new k.wasm.Memory({
      initial: Math.max(1, Math.ceil(totalBytes / PAGE)),
      maximum: Math.max(1, Math.ceil(totalBytes / PAGE)),
    });
  } catch {
    return undefined;
  }
  const exports = new k.wasm.Instance(k.module, { env: { memory } }).exports as Layout["exports"];
  return { memory, exports };
}

/** A memory of rowBytes + the query (d float32, then d float64) + CHUNK ids + CHUNK f64 outputs, and an instance on it. */
function allocate(rowBytes: number, d: number): Layout | undefined {
  const query = align(rowBytes);
  const query64 = query + align(4 * d);
  const ids = query64 + align(8 * d);
  const out = ids + 4 * CHUNK;
  const at = kernelInstance(out + 8 * CHUNK);
  return at && { ...at, query, query64, ids, out };
}

function checkIds(ids: ArrayLike<number>, n: number): void {
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    if (!(id >= 0 && id < n && Number.isInteger(id)))
      throw new RangeError(`row-dots: id ${id} at ${k} is not a row index in [0, ${n})`);
  }
}

/** Float32 rows × query. */
export interface F32RowDots {
  readonly n: number;
  readonly d: number;
  /** Size of the kernel's memory. */
  readonly bytes: number;
  /** The kernel's copy of the rows (a view into its memory, valid as long as the kernel): read it, do not write it. */
  readonly rows: Float32Array;
  /** out[k] = Σ_j rows[ids[k]·d + j] · query[j] in float32 (see the header), for k < ids.length. */
  dots(ids: ArrayLike<number>, query: ArrayLike<number>, out?: Float32Array): Float32Array;
  /** out[k] = dotAt(rows, ids[k]·d, query, d) bit for bit (float64, dotAt's accumulators), for k < count. */
  exactDots(ids: ArrayLike<number>, count: number, query: ArrayLike<number>, out?: Float64Array): Float64Array;
}

/** A kernel over a copy of the n × d row-major `rows`; undefined when SIMD or the memory is unavailable. */
export function f32RowDots(rows: Float32Array, d: number): F32RowDots | undefined {
  const steps = f32RowDotsSteps(rows, d, Number.MAX_SAFE_INTEGER);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * f32RowDots in steps: pauses after allocating the kernel's memory and after copying each `rowsPerStep` rows
 * into it (a caller returns to its event loop between steps); the kernel it returns is f32RowDots's.
 */
export function* f32RowDotsSteps(
  rows: Float32Array,
  d: number,
  rowsPerStep: number,
): Generator<void, F32RowDots | undefined, void> {
  const n = d > 0 ? Math.floor(rows.length / d) : 0;
  const at = allocate(4 * n * d, d);
  if (!at) return undefined;
  const buffer = at.memory.buffer;
  const copy = new Float32Array(buffer, 0, n * d);
  for (let i = 0; i < n; i += rowsPerStep) {
    if (rowsPerStep < n) yield;
    const end = Math.min(n, i + rowsPerStep);
    copy.set(rows.subarray(i * d, end * d), i * d);
  }
  return rowDotsOver(at, n, d, copy);
}

/** The kernel's methods over its memory `at`, whose first n × d float32 are `copy`. */
function rowDotsOver(at: Layout, n: number, d: number, copy: Float32Array): F32RowDots {
  const buffer = at.memory.buffer;
  const q = new Float32Array(buffer, at.query, d);
  const idView = new Int32Array(buffer, at.ids, CHUNK);
  const outView = new Float32Array(buffer, at.out, CHUNK);
  const kernel = at.exports.dots_f32!;
  const q64 = new Float64Array(buffer, at.query64, d);
  const out64 = new Float64Array(buffer, at.out, CHUNK);
  const exact = at.exports.dots_f64!;
  return {
    n,
    d,
    bytes: buffer.byteLength,
    rows: copy,
    exactDots(ids, count, query, out = new Float64Array(count)) {
      for (let k = 0; k < count; k++) {
        const id = ids[k]!;
        if (!(id >= 0 && id < n && Number.isInteger(id)))
          throw new RangeError(`row-dots: id ${id} at ${k} is not a row index in [0, ${n})`);
      }
      for (let j = 0; j < d; j++) q64[j] = query[j]!;
      for (let start = 0; start < count; start += CHUNK) {
        const m = Math.min(CHUNK, count - start);
        for (let k = 0; k < m; k++) idView[k] = ids[start + k]!;
        exact(0, d, at.ids, m, at.query64, at.out);
        out.set(out64.subarray(0, m), start);
      }
      return out;
    },
    dots(ids, query, out = new Float32Array(ids.length)) {
      checkIds(ids, n);
      for (let j = 0; j < d; j++) q[j] = query[j]!;
      for (let start = 0; start < ids.length; start += CHUNK) {
        const count = Math.min(CHUNK, ids.length - start);
        for (let k = 0; k < count; k++) idView[k] = ids[start + k]!;
        kernel(0, d, at.ids, count, at.query, at.out);
        out.set(outView.subarray(0, count), start);
      }
      return out;
    },
  };
}

/** Int8 rows with per-row scales × query; `data` and `scales` are views into the kernel's memory. */
export interface Int8RowDots {
  readonly n: number;
  readonly d: number;
  /** n × d row-major codes, written by the caller (in the kernel's memory). */
  readonly data: Int8Array;
  /** n per-row scales, written by the caller (in the kernel's memory). */
  readonly scales: Float32Array;
  /** out[k] = scales[ids[k]] · Σ_j data[ids[k]·d + j] · query[j] (float32 sum, float64 scale product). */
  dots(ids: ArrayLike<number>, query: ArrayLike<number>, out?: Float64Array): Float64Array;
}

/** A kernel with room for n × d int8 codes and n scales (zero-filled); undefined when unavailable. */
export function int8RowDots(n: number, d: number): Int8RowDots | undefined {
  const scalesAt = align(n * d);
  const at = allocate(scalesAt + 4 * n, d);
  if (!at) return undefined;
  const buffer = at.memory.buffer;
  const q = new Float32Array(buffer, at.query, d);
  const idView = new Int32Array(buffer, at.ids, CHUNK);
  const outView = new Float64Array(buffer, at.out, CHUNK);
  const kernel = at.exports.dots_i8!;
  return {
    n,
    d,
    data: new Int8Array(buffer, 0, n * d),
    scales: new Float32Array(buffer, scalesAt, n),
    dots(ids, query, out = new Float64Array(ids.length)) {
      checkIds(ids, n);
      for (let j = 0; j < d; j++) q[j] = query[j]!;
      for (let start = 0; start < ids.length; start += CHUNK) {
        const count = Math.min(CHUNK, ids.length - start);
        for (let k = 0; k < count; k++) idView[k] = ids[start + k]!;
        kernel(0, d, at.ids, count, at.query, scalesAt, at.out);
        out.set(outView.subarray(0, count), start);
      }
      return out;
    },
  };
}
