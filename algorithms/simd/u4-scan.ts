/**
 * WebAssembly SIMD scan of 4-bit scalar codes against an integer query, the kernel `scan_u4` of kernels.wat.
 *
 * A code holds D values c_j ∈ [0, 15], two a byte (low nibble: coordinate 2b, high nibble: 2b + 1). The query r
 * (D float coordinates) is quantised symmetrically to 16-bit integers: qs = max_j |r_j| / 32767,
 * k_j = round(r_j / qs), so |r_j − qs·k_j| ≤ qs/2. The kernel returns, per code, the exact integer
 *
 *     S = Σ_j c_j · k_j          (i32x4.dot_i16x8_s on nibbles widened to i16; |S| ≤ 15 · 32767 · D < 2^31 for D ≤ 4096)
 *
 * and Σ_j r_j (c_j − 7.5) = qs·(S − 7.5·K) + E with K = Σ_j k_j and |E| ≤ (qs/2)·Σ_j |c_j − 7.5| ≤ 3.75·D·qs
 * (`U4Query.errorBound`). Used by the IVF stage of algorithms/search/vector-index.ts.
 */
import { align, kernelInstance } from "./row-dots.ts";

/** Largest code length (coordinates) the kernel's i32 sums are exact for. */
export const MAX_U4_DIMS = 4096;

export interface U4Query {
  /** The query in the kernel's lane order (see kernels.wat scan_u4), D int16. */
  readonly lanes: Int16Array;
  /** The quantisation step qs. */
  readonly step: number;
  /** K = Σ_j k_j. */
  readonly sum: number;
  /** Bound on |Σ_j r_j (c_j − 7.5) − step·(S − 7.5·K)| for any code: 3.75 · D · step. */
  readonly errorBound: number;
}

/** Quantises r[0 .. D) (D a multiple of 32, ≤ MAX_U4_DIMS, finite values) for scan_u4 (see the header). */
export function quantizeU4Query(r: ArrayLike<number>, D: number): U4Query {
  if (!(Number.isInteger(D) && D > 0 && D % 32 === 0 && D <= MAX_U4_DIMS))
    throw new RangeError(`u4-scan: D must be a positive multiple of 32 ≤ ${MAX_U4_DIMS}, got ${D}`);
  let max = 0;
  for (let j = 0; j < D; j++) {
    const a = Math.abs(r[j]!);
    if (a > max) max = a;
  }
  const step = max > 0 ? max / 32767 : 1;
  const lanes = new Int16Array(D);
  let sum = 0;
  for (let j = 0; j < D; j++) {
    const k = Math.max(-32767, Math.min(32767, Math.round(r[j]! / step)));
    sum += k;
    lanes[laneOf(j)] = k;
  }
  return { lanes, step, sum, errorBound: 3.75 * D * step };
}

/** Lane of coordinate j in the kernel's query order: per 32 coordinates, the even ones of bytes 0–7, 8–15, then the odd ones. */
export function laneOf(j: number): number {
  const block = j & ~31;
  const within = j & 31;
  const byte = within >> 1;
  return block + ((within & 1) << 4) + byte;
}

/** S = Σ_j c_j · k_j of the code at byte `offset` (the reference of the kernel; tests). */
export function u4DotJs(codes: Uint8Array, offset: number, D: number, q: U4Query): number {
  let s = 0;
  for (let b = 0; b < D >> 1; b++) {
    const v = codes[offset + b]!;
    s += (v & 15) * q.lanes[laneOf(2 * b)]! + (v >> 4) * q.lanes[laneOf(2 * b + 1)]!;
  }
  return s;
}

export interface U4Scan {
  readonly positions: number;
  readonly D: number;
  /** Size of the kernel's memory. */
  readonly bytes: number;
  /** positions × D/2 code bytes in the kernel's memory, written by the caller (nibbles as in the header). */
  readonly codes: Uint8Array;
  /**
   * S for every position of [ranges[2k], ranges[2k + 1]) for k < rangeCount, in that order: a view into the
   * kernel's memory holding the first `count` values (valid until the next call).
   */
  scanRanges(q: U4Query, ranges: Int32Array, rangeCount: number): { sums: Int32Array; count: number };
  /**
   * The kernel's id list (positions int32, in its memory): write ids[0 .. count) there, set the query with setQuery,
   * then scanIds(count) returns S for the codes at those positions, in that order (a view valid until the next call).
   */
  readonly ids: Int32Array;
  /** Writes the query's lanes into the kernel's memory (for scanIds). */
  setQuery(q: U4Query | Int16Array): void;
  /** S for the positions ids[0 .. count) (see `ids`); the positions are not checked beyond count ≤ positions. */
  scanIds(count: number): Int32Array;
}

/** The graph stage's part of a u4 kernel (u4GraphScan): its neighbour lists, scales and beam search in the kernel. */
export interface U4Graph {
  readonly degree: number;
  /**
   * positions × degree neighbour ids (−1 ends a row), or in the serving layout the compact rows of 3-byte
   * little-endian ids (a Uint8Array, see offsets), in the kernel's memory: written by the caller.
   */
  readonly neighbors: Int32Array | Uint8Array;
  /**
   * The serving layout's row starts (positions + 1; u4GraphScan with `edges`): i's neighbours are the ids
   * offsets[i] .. offsets[i + 1] − 1 of `neighbors` (3 bytes each). Written by the caller.
   */
  readonly offsets?: Int32Array;
  /** α_i by id (float32), in the kernel's memory: written by the caller. */
  readonly scales: Float32Array;
  /** The entry points (entryCount ids), in the kernel's memory: written by the caller. */
  readonly entries: Int32Array;
  /**
   * The beam search of kernels.wat beam_u4 for the query set by setQuery: est_v = (α_v · step) · (S_v − offset); the
   * pool (ids and est, best first; views valid until the next call) and its size. `barred` (an id or −1) is never
   * visited. The beam is clamped to the positions and to MAX_GRAPH_BEAM (a pool never holds more). With `anchor`
   * (an id; the build layout only, after anchorQuery(anchor)): est_v = ⟨ŷ_anchor + Rμ, ŷ_v⟩ from S_v = P_anchor,v,
   * the scales, `sums` and `bias` (step and offset unused; kernels.wat beam_est).
   */
  beam(
    step: number,
    offset: number,
    beam: number,
    barred: number,
    anchor?: number,
  ): { ids: Int32Array; est: Float64Array; size: number };
  /** The code of id a as the query (kernels.wat u4_lanes: k_j = c_aj, so that S_b = P_ab): the build's searches. */
  anchorQuery(a: number): void;
  /** Codes the last beam scored (its visited set; counted by a pass over the marks: tests and benches). */
  visits(): number;
  /** Σ_j c_aj · c_bj for b = ids[0 .. count) (kernels.wat dots_u4u4; a view valid until the next call). */
  pairDots(a: number, count: number): Int32Array;
  /** ‖y_i‖² ≈ α_i² Σ_j (c_ij − 7.5)² by id (float64), in the kernel's memory: written by the caller (for select). */
  readonly norms: Float64Array;
  /** bias_i = Σ_j (Rμ)_j (c_ij − 7.5) by id (float64) for the anchored beam, in the kernel's memory: written by the caller. */
  readonly bias: Float64Array;
  /** s_i = Σ_j c_ij by id, in the kernel's memory: written by the caller (for select). */
  readonly sums: Int32Array;
  /**
   * The build's neighbour selection (kernels.wat select_u4; algorithms/vector/graph.ts selectNeighbours is its
   * reference): the candidates ids[0 .. count) (count ≤ selectRoom) sorted by their estimated distance to a (ties:
   * smaller id; ids rewritten in that order), then HNSW's heuristic up to `limit`; the kept ids (a view valid until
   * the next call).
   */
  select(a: number, count: number, limit: number): Int32Array;
  /** Largest candidate count of select. */
  readonly selectRoom: number;
}

/** Most positions of the serving layout (its ids are 3 bytes). */
export const MAX_COMPACT_IDS = 2 ** 24;

/** Largest beam width of a graph kernel (its pool's room; wider beams are clamped to it). */
export const MAX_GRAPH_BEAM = 4096;

/** A kernel with room for `positions` codes of D coordinates (zero-filled); undefined when unavailable. */
export function u4Scan(positions: number, D: number): U4Scan | undefined {
  return makeU4Scan(positions, D, 0, 0);
}

/**
 * u4Scan with the graph stage's part (neighbour lists of `degree`, `entryCount` entry points); see U4Graph. With
 * `edges`, the serving layout: compact rows (`edges` neighbour ids of 3 bytes in all, `offsets`; positions ≤ 2^24), the id list and outputs only as
 * long as one row or the entry points (scanIds and scanRanges take at most that many), no build arrays (norms, sums,
 * select: selectRoom 0).
 */
export function u4GraphScan(
  positions: number,
  D: number,
  degree: number,
  entryCount: number,
  edges?: number,
): (U4Scan & { readonly graph: U4Graph }) | undefined {
  if (!(Number.isInteger(degree) && degree >= 1 && Number.isInteger(entryCount) && entryCount >= 1)) return undefined;
  if (edges !== undefined && !(Number.isInteger(edges) && edges >= 0 && positions <= MAX_COMPACT_IDS)) return undefined;
  return makeU4Scan(positions, D, degree, entryCount, edges) as (U4Scan & { readonly graph: U4Graph }) | undefined;
}

function makeU4Scan(
  positions: number,
  D: number,
  degree: number,
  entryCount: number,
  edges?: number,
): U4Scan | undefined {
  if (!(Number.isInteger(D) && D > 0 && D % 32 === 0 && D <= MAX_U4_DIMS)) return undefined;
  const compact = edges !== undefined;
  const codeBytes = D >> 1;
  /** Room of the id list and the outputs. */
  const slots = compact ? Math.max(1, degree, entryCount) : Math.max(1, positions);
  const queryAt = align(positions * codeBytes);
  const outAt = queryAt + align(2 * D);
  const idsAt = outAt + align(4 * slots);
  const sinkAt = idsAt + align(4 * slots);
  const nbrsAt = sinkAt + 16;
  // compact rows hold 3-byte ids (positions ≤ 2^24), one byte of room after them (the kernel loads 4 and masks)
  const offsetsAt = nbrsAt + align(compact ? 3 * edges + 1 : 4 * positions * degree);
  const scalesAt = offsetsAt + (compact ? align(4 * (positions + 1)) : 0);
  const visitedAt = scalesAt + (degree > 0 ? align(4 * positions) : 0);
  const entriesAt = visitedAt + (degree > 0 ? align(4 * positions) : 0);
  const pIdsAt = entriesAt + align(4 * entryCount);
  const pool = degree > 0 ? Math.min(positions, MAX_GRAPH_BEAM) + 1 : 0;
  const pEstAt = pIdsAt + align(4 * pool);
  const pDoneAt = pEstAt + align(8 * pool);
  const build = degree > 0 && !compact;
  const room = build ? Math.min(positions, Math.max(pool, degree + 1)) : 0;
  const normsAt = pDoneAt + align(pool);
  const sumsAt = normsAt + (build ? align(8 * positions) : 0);
  const biasAt = sumsAt + (build ? align(4 * positions) : 0);
  const candDAt = biasAt + (build ? align(8 * positions) : 0);
  const keptAt = candDAt + align(8 * room);
  const at = kernelInstance(keptAt + align(4 * room) + 16);
  if (!at) return undefined;
  const buffer = at.memory.buffer;
  const lanes = new Int16Array(buffer, queryAt, D);
  /** Largest count of scanIds, pairDots and scanRanges. */
  const most = Math.min(positions, slots);
  const out = new Int32Array(buffer, outAt, most);
  const kernel = at.exports.scan_u4!;
  const gather = at.exports.scan_u4_ids!;
  const ids = new Int32Array(buffer, idsAt, slots);
  let graph: U4Graph | undefined;
  if (degree > 0) {
    const beamKernel = at.exports.beam_u4 as unknown as (...args: number[]) => number;
    const pairKernel = at.exports.dots_u4u4!;
    const selectKernel = at.exports.select_u4 as unknown as (...args: number[]) => number;
    const lanesKernel = at.exports.u4_lanes!;
    const kept = new Int32Array(buffer, keptAt, room);
    const half = 56.25 * D;
    const visited = new Uint32Array(buffer, visitedAt, positions);
    const pIds = new Int32Array(buffer, pIdsAt, pool);
    const pEst = new Float64Array(buffer, pEstAt, pool);

    let epoch = 0;
    graph = {
      degree,
      neighbors: compact
        ? new Uint8Array(buffer, nbrsAt, 3 * edges)
        : new Int32Array(buffer, nbrsAt, positions * degree),
      ...(compact ? { offsets: new Int32Array(buffer, offsetsAt, positions + 1) } : {}),
      scales: new Float32Array(buffer, scalesAt, positions),
      entries: new Int32Array(buffer, entriesAt, entryCount),
      beam(step, offset, beam, barred, anchor) {
        if (!(Number.isInteger(beam) && beam >= 1))
          throw new RangeError(`u4-scan: beam must be an integer ≥ 1, got ${beam}`);
        if (anchor !== undefined && !(build && Number.isInteger(anchor) && anchor >= 0 && anchor < positions))
          throw new RangeError(`u4-scan: anchor ${anchor} outside the build layout's [0, ${positions})`);
        if (++epoch >= 0xffffffff) {
          visited.fill(0);
          epoch = 1;
        }
        if (barred >= 0 && barred < positions) visited[barred] = epoch;
        const size = beamKernel(
          0,
          codeBytes,
          nbrsAt,
          degree,
          scalesAt,
          visitedAt,
          epoch | 0,
          entriesAt,
          entryCount,
          queryAt,
          idsAt,
          outAt,
          sinkAt,
          pIdsAt,
          pEstAt,
          pDoneAt,
          Math.min(beam, pool - 1),
          step,
          offset,
          compact ? offsetsAt : -1,
          anchor === undefined ? -1 : biasAt,
          sumsAt,
          half,
          anchor ?? 0,
        );
        return { ids: pIds, est: pEst, size };
      },
      visits() {
        let c = 0;
        for (let i = 0; i < positions; i++) if (visited[i] === epoch) c++;
        return c;
      },
      pairDots(a, count) {
        if (!(Number.isInteger(count) && count >= 0 && count <= most))
          throw new RangeError(`u4-scan: ${count} ids, room for ${most}`);
        pairKernel(0, codeBytes, a, idsAt, count, outAt);
        return out;
      },
      norms: new Float64Array(buffer, normsAt, build ? positions : 0),
      bias: new Float64Array(buffer, biasAt, build ? positions : 0),
      sums: new Int32Array(buffer, sumsAt, build ? positions : 0),
      selectRoom: room,
      anchorQuery(a) {
        if (!(Number.isInteger(a) && a >= 0 && a < positions))
          throw new RangeError(`u4-scan: id ${a} outside [0, ${positions})`);
        lanesKernel(0, codeBytes, a, queryAt);
      },
      select(a, count, limit) {
        if (!(Number.isInteger(count) && count >= 0 && count <= room))
          throw new RangeError(`u4-scan: ${count} candidates, room for ${room}`);
        const k = selectKernel(
          0,
          codeBytes,
          scalesAt,
          normsAt,
          sumsAt,
          half,
          a,
          idsAt,
          candDAt,
          count,
          limit,
          keptAt,
          sinkAt,
        );
        return kept.subarray(0, k);
      },
    };
  }
  return {
    ...(graph ? { graph } : {}),
    ids,
    setQuery(q) {
      const l = q instanceof Int16Array ? q : q.lanes;
      if (l.length !== D) throw new RangeError(`u4-scan: the query has ${l.length} coordinates, the codes ${D}`);
      lanes.set(l);
    },
    scanIds(count) {
      if (!(Number.isInteger(count) && count >= 0 && count <= most))
        throw new RangeError(`u4-scan: ${count} ids, room for ${most}`);
      gather(0, codeBytes, idsAt, count, queryAt, outAt, sinkAt);
      return out;
    },
    positions,
    D,
    bytes: buffer.byteLength,
    codes: new Uint8Array(buffer, 0, positions * codeBytes),
    scanRanges(q, ranges, rangeCount) {
      if (q.lanes.length !== D)
        throw new RangeError(`u4-scan: the query has ${q.lanes.length} coordinates, the codes ${D}`);
      lanes.set(q.lanes);
      let count = 0;
      for (let k = 0; k < rangeCount; k++) {
        const first = ranges[2 * k]!;
        const end = ranges[2 * k + 1]!;
        if (
          !(
            Number.isInteger(first) &&
            Number.isInteger(end) &&
            first >= 0 &&
            end <= positions &&
            first <= end &&
            count + end - first <= most
          )
        ) {
          throw new RangeError(
            `u4-scan: range [${first}, ${end}) outside [0, ${positions}) or more than ${most} positions in all`,
          );
        }
        kernel(0, codeBytes, first, end, queryAt, outAt + 4 * count);
        count += end - first;
      }
      return { sums: out, count };
    },
  };
}
