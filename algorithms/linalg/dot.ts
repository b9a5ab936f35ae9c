/**
 * Dot product of row `offset .. offset + d` of a flat row-major matrix with a d-vector:
 *   Σ_j a[offset + j] · b[j]
 * summed in four independent accumulators (no loop-carried dependency on one sum, so the CPU overlaps the
 * multiply-adds), the tail added to the first. Works for any numeric array (float32 rows, int8 codes).
 */
export function dotAt(a: ArrayLike<number>, offset: number, b: ArrayLike<number>, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < d; j += 4) {
    s0 += a[offset + j]! * b[j]!;
    s1 += a[offset + j + 1]! * b[j + 1]!;
    s2 += a[offset + j + 2]! * b[j + 2]!;
    s3 += a[offset + j + 3]! * b[j + 3]!;
  }
  for (; j < d; j++) s0 += a[offset + j]! * b[j]!;
  return s0 + s1 + (s2 + s3);
}

/**
 * Dot product of row `i` of a row-major matrix of `dims` columns with `q` (the cosine for unit vectors):
 * dotAt(matrix, i · dims, q, dims), and 0 when q's length is not `dims` (a query embedded by another model).
 */
export function rowDot(matrix: Float32Array, dims: number, i: number, q: ArrayLike<number>): number {
  return q.length === dims ? dotAt(matrix, i * dims, q, dims) : 0;
}
