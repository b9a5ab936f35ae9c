/**
 * Appending vectors to a built staged vector index (algorithms/search/vector-index.ts has the overview): the new rows
 * are coded with the index's own centre μ and rotation R (its `mean`, `signs` and `rounds`), exactly as the build codes
 * a row,
 *
 *     code_i = sign(R(x_i − μ)),   s_i = ‖R(x_i − μ)‖₁ / D,
 *
 * so the stage-1 estimate s_i · Σ_j (Rq)_j · sign_ij ≈ q·x_i − q·μ keeps one offset q·μ for every row, old or new,
 * and ranks them by q·x_i together. μ stays the mean of the rows of the last full build, not of all rows: while the
 * appended rows come from about the same distribution the codes are as good as a rebuild's; when they drift, the
 * codes of the new rows carry the drift in their common component and the estimate loses resolution (a full rebuild
 * re-centres; when to rebuild: docs/decisions/ingestion-first-answer.md).
 *
 * Stage 2 is unchanged: the shortlist is re-ranked by exact dot products of the stored rows, so every answer is an
 * exact score, and the answer equals a fresh build's whenever both shortlists hold the true top N (the same exact
 * scores, the same order: score descending, id ascending).
 *
 * Stages kept: the 1-bit codes, their scales and the 128-bit prefix copy. The IVF and graph stages are not carried
 * over (their lists and edges were fitted to the rows of the build): an appended index searches by the sign-code
 * cascade until it is rebuilt. An index holding its codes only (`vectors` empty: a caller that re-ranks from its own
 * copy of the rows) stays codes-only.
 *
 * Cost: O(m · D log D) for m new rows, plus copying the n old codes (n · D/8 bytes) and rows into the new arrays;
 * the input index is not changed.
 *
 * Sources: as the build (Charikar 2002; Ailon & Chazelle 2009; Gao & Long, RaBitQ, 2024); coding new points with a
 * fixed quantiser is the "add" of every trained quantiser index (Jégou et al., product quantization, 2011).
 */
import { SearchError } from "../search/search-error.ts";
import { checkMatrix, DEFAULTS, MODULE, type VectorIndex } from "./index-types.ts";
import { rotate } from "./rotation.ts";
import { signCode } from "./sign-codes.ts";

/** The index over its rows followed by the m rows of `added` (m × d, row-major), ids n … n + m − 1. */
export function appendVectorIndex(index: VectorIndex, added: Float32Array): VectorIndex {
  const steps = appendVectorIndexSteps(index, added);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Rows coded between two pauses of appendVectorIndexSteps. */
export const APPEND_ROWS_PER_STEP = 64;

/**
 * appendVectorIndex as a generator that pauses (yields the rows coded so far) after every `rowsPerStep` new rows, and
 * once more before the prefix codes and the rows are laid out, so a caller can return to its event loop between
 * steps; the index is its return value, identical to appendVectorIndex's.
 */
export function* appendVectorIndexSteps(
  index: VectorIndex,
  added: Float32Array,
  rowsPerStep: number = APPEND_ROWS_PER_STEP,
): Generator<number, VectorIndex, void> {
  if (!(Number.isInteger(rowsPerStep) && rowsPerStep >= 1))
    throw new SearchError(MODULE, "bad-rows-per-step", `rowsPerStep must be an integer ≥ 1, got ${rowsPerStep}`);
  const d = index.d;
  const m = checkMatrix(added, d);
  const n = index.n;
  const codesOnly = index.vectors.length === 0 && n > 0;
  if (!codesOnly && index.vectors.length !== n * d)
    throw new SearchError(
      MODULE,
      "bad-index",
      `index.vectors holds ${index.vectors.length} values, neither n · d = ${n * d} nor 0 (codes only)`,
    );
  const D = index.bits;
  const words = D >> 5;
  const codes = new Uint32Array((n + m) * words);
  codes.set(index.codes.subarray(0, n * words));
  const scales = new Float32Array(n + m);
  scales.set(index.scales.subarray(0, n));
  const buf = new Float64Array(D);
  const mean = index.mean;
  for (let i = 0; i < m; i++) {
    const o = i * d;
    buf.fill(0);
    for (let j = 0; j < d; j++) buf[j] = added[o + j]! - mean[j]!;
    rotate(buf, index.signs, index.rounds);
    scales[n + i] = signCode(buf, codes, (n + i) * words, words);
    if ((i + 1) % rowsPerStep === 0 && i + 1 < m) yield i + 1;
  }
  yield m;
  const prefixWords = index.prefixWords ?? Math.min(DEFAULTS.prefilterWords, words);
  const prefixCodes = new Uint32Array((n + m) * prefixWords);
  const held = index.prefixCodes && index.prefixWords === prefixWords ? n : 0;
  if (held > 0) prefixCodes.set(index.prefixCodes!.subarray(0, n * prefixWords));
  for (let i = held; i < n + m; i++)
    prefixCodes.set(codes.subarray(i * words, i * words + prefixWords), i * prefixWords);
  let vectors: Float32Array;
  if (codesOnly) vectors = new Float32Array(0);
  else {
    vectors = new Float32Array((n + m) * d);
    vectors.set(index.vectors.subarray(0, n * d));
    vectors.set(added, n * d);
  }
  return {
    n: n + m,
    d,
    bits: D,
    vectors,
    mean,
    signs: index.signs,
    rounds: index.rounds,
    codes,
    scales,
    prefixCodes,
    prefixWords,
  };
}
