/**
 * Deterministic top-k selection: the k entries with the largest score, ties broken by the smaller id.
 *
 * A bounded binary min-heap of size k keyed on (score ascending, id descending), so the heap root is always
 * the weakest kept entry; each of the n offers costs O(1) when rejected and O(log k) when kept, O(n log k)
 * in all. Output is sorted by score descending, then id ascending. NaN scores are never kept.
 *
 * Source: the classic heap selection (Knuth, TAOCP vol. 3, §5.2.3).
 */

export interface ScoredId {
  readonly id: number;
  readonly score: number;
}

/** True when (sa, ia) ranks strictly before (sb, ib): larger score first, then smaller id. */
export function ranksBefore(sa: number, ia: number, sb: number, ib: number): boolean {
  return sa > sb || (sa === sb && ia < ib);
}

/** Compares two hits for `Array.prototype.sort`: score descending, then id ascending. */
export function compareScoredIds(a: ScoredId, b: ScoredId): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.id - b.id;
}

/** A bounded top-k collector; `offer` entries, then `result()` once. */
export class TopK {
  readonly k: number;
  private readonly ids: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(k: number) {
    this.k = Math.max(0, Math.floor(k));
    this.ids = new Int32Array(this.k);
    this.scores = new Float64Array(this.k);
  }

  /** The score an entry must beat to enter once the heap is full (−∞ before). */
  get threshold(): number {
    return this.size < this.k ? Number.NEGATIVE_INFINITY : this.scores[0]!;
  }

  offer(id: number, score: number): void {
    if (this.k === 0 || Number.isNaN(score)) return;
    if (this.size < this.k) {
      // Sift up: parent must be weaker than child (min-heap on rank).
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!ranksBefore(this.scores[p]!, this.ids[p]!, score, id)) break;
        this.ids[i] = this.ids[p]!;
        this.scores[i] = this.scores[p]!;
        i = p;
      }
      this.ids[i] = id;
      this.scores[i] = score;
      return;
    }
    // Replace the root only when the new entry ranks before it.
    if (!ranksBefore(score, id, this.scores[0]!, this.ids[0]!)) return;
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      // Pick the weaker child (the one that ranks later).
      let c = l;
      if (r < n && ranksBefore(this.scores[l]!, this.ids[l]!, this.scores[r]!, this.ids[r]!)) c = r;
      if (!ranksBefore(score, id, this.scores[c]!, this.ids[c]!)) break;
      this.ids[i] = this.ids[c]!;
      this.scores[i] = this.scores[c]!;
      i = c;
    }
    this.ids[i] = id;
    this.scores[i] = score;
  }

  /** The kept ids in heap order (unsorted; a copy) — for callers that re-score them anyway. */
  keptIds(): Int32Array {
    return this.ids.slice(0, this.size);
  }

  /** Kept entries sorted by score descending, then id ascending. */
  result(): ScoredId[] {
    const out: ScoredId[] = [];
    for (let i = 0; i < this.size; i++) out.push({ id: this.ids[i]!, score: this.scores[i]! });
    return out.sort(compareScoredIds);
  }
}

/** Top-k of `scores` (index = id) by score descending, then id ascending. */
export function topKOfArray(scores: ArrayLike<number>, k: number): ScoredId[] {
  const heap = new TopK(Math.min(k, scores.length));
  for (let i = 0; i < scores.length; i++) heap.offer(i, scores[i]!);
  return heap.result();
}

/**
 * The ids of the k largest of scores[0..n) (ties: smaller id first), in ascending id order — the same set a
 * TopK(k) would keep, found by selection instead of a heap: the k-th largest value t by quickselect (Hoare
 * partition, median-of-three pivot; expected O(n); Hoare, "Algorithm 65: Find", CACM 1961) on a copy, then one
 * pass taking every score > t and the smallest ids scoring exactly t. When k is a sizeable fraction of n, a
 * heap inserts O(k log(n/k)) entries at O(log k) each; this is O(n) whatever k. Scores must not be NaN.
 * `scratch` (length ≥ n) may be passed to avoid an allocation; its content is overwritten.
 */
export function topKIds(scores: Float64Array, n: number, k: number, scratch?: Float64Array): Int32Array {
  const want = Math.min(Math.max(0, Math.floor(k)), n);
  const out = new Int32Array(want);
  if (want === 0) return out;
  const a = scratch && scratch.length >= n ? scratch : new Float64Array(n);
  a.set(scores.subarray(0, n));
  const t = kthLargestInPlace(a, n, want);
  // After the selection a[0..want) holds the want largest values (t among them), so the count strictly above
  // t is read there, not over all n.
  let above = 0;
  for (let i = 0; i < want; i++) if (a[i]! > t) above++;
  let ties = want - above;
  let o = 0;
  for (let i = 0; i < n && o < want; i++) {
    const v = scores[i]!;
    if (v > t) out[o++] = i;
    else if (v === t && ties > 0) {
      out[o++] = i;
      ties--;
    }
  }
  return out;
}

/** The k-th largest (1-based) of a[0..len), reordering a. Requires 1 ≤ k ≤ len and no NaN. */
export function kthLargestInPlace(a: Float64Array, len: number, k: number): number {
  const target = k - 1; // position in descending order
  let lo = 0;
  let hi = len - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = a[lo]!;
    const y = a[mid]!;
    const z = a[hi]!;
    const pivot = x > y ? (y > z ? y : x > z ? z : x) : x > z ? x : y > z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! > pivot) i++;
      while (a[j]! < pivot) j--;
      if (i <= j) {
        const tmp = a[i]!;
        a[i] = a[j]!;
        a[j] = tmp;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return a[target]!;
  }
  return a[target]!;
}
