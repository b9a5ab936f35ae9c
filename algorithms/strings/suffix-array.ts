/**
 * Suffix arrays and their LCP arrays, in linear time: SA-IS by induced sorting (Nong, Zhang & Chan 2011) and
 * Kasai et al. (2001) for the longest common prefixes. Pure functions over Int32Array symbol strings; used by
 * the gateway's data-flow matching (algorithms/strings/data-flow.ts) to find a value of an earlier output inside a
 * later call's arguments in time linear in the text.
 *
 * Invariants: `suffixArray(s)` is a permutation of 0..n−1 listing the suffixes of `s` in lexicographic order;
 * `lcpArray(s, sa)[j]` is the longest common prefix of suffixes sa[j − 1] and sa[j] (lcp[0] = 0).
 *
 * Each has a `…Steps` generator that pauses after every pass over the string (and every `STEP_SYMBOLS` symbols
 * of a longer pass), so a caller on an event loop can yield between steps: the result is the same, each step is
 * O(STEP_SYMBOLS) work (docs/decisions/data-flow-matching.md). The plain functions drain it at once.
 */

/** Symbols handled by one pass between two pauses of the `…Steps` generators. */
export const STEP_SYMBOLS = 32_768;

import { drain } from "../timing/drain.ts";

export { drain };

/**
 * Suffix array of `s` (symbols in 0..upper) by induced sorting (SA-IS; Nong, Zhang & Chan, "Two Efficient
 * Algorithms for Linear Time Suffix Array Construction", 2011; laid out as in the AtCoder Library's
 * `sa_is`): O(n).
 */
export function saIs(s: Int32Array, upper: number): Int32Array {
  return drain(saIsSteps(s, upper));
}

/** saIs, pausing after each pass over the string (and each `STEP_SYMBOLS` symbols of a pass). */
export function* saIsSteps(s: Int32Array, upper: number): Generator<void, Int32Array, void> {
  const n = s.length;
  if (n === 0) return new Int32Array(0);
  if (n === 1) return Int32Array.of(0);
  if (n === 2) return s[0]! < s[1]! ? Int32Array.of(0, 1) : Int32Array.of(1, 0);
  const sa = new Int32Array(n);
  const ls = new Uint8Array(n); // 1: S-type (smaller than the suffix after it)
  for (let i = n - 2; i >= 0; i--) ls[i] = s[i] === s[i + 1] ? ls[i + 1]! : s[i]! < s[i + 1]! ? 1 : 0;
  yield;
  const sumL = new Int32Array(upper + 1);
  const sumS = new Int32Array(upper + 1);
  for (let i = 0; i < n; i++) {
    if (ls[i] === 0) sumS[s[i]!]!++;
    else sumL[s[i]! + 1]!++;
  }
  for (let i = 0; i <= upper; i++) {
    sumS[i]! += sumL[i]!;
    if (i < upper) sumL[i + 1]! += sumS[i]!;
  }
  yield;
  const buf = new Int32Array(upper + 1);
  // Each loop pauses every STEP_SYMBOLS iterations; the loops' state lives in `sa` and `buf`, so a pause
  // changes nothing.
  function* induce(lms: Int32Array): Generator<void, void, void> {
    sa.fill(-1);
    buf.set(sumS);
    for (let j = 0; j < lms.length; j++) {
      const d = lms[j]!;
      if (d !== n) sa[buf[s[d]!]!++] = d;
    }
    yield;
    buf.set(sumL);
    sa[buf[s[n - 1]!]!++] = n - 1;
    for (let i = 0; i < n; i++) {
      const v = sa[i]!;
      if (v >= 1 && ls[v - 1] === 0) sa[buf[s[v - 1]!]!++] = v - 1;
      if ((i + 1) % STEP_SYMBOLS === 0) yield;
    }
    yield;
    buf.set(sumL);
    for (let i = n - 1; i >= 0; i--) {
      const v = sa[i]!;
      if (v >= 1 && ls[v - 1] === 1) sa[--buf[s[v - 1]! + 1]!] = v - 1;
      if (i % STEP_SYMBOLS === 0) yield;
    }
  }
  const lmsMap = new Int32Array(n + 1).fill(-1);
  let m = 0;
  for (let i = 1; i < n; i++) if (ls[i - 1] === 0 && ls[i] === 1) lmsMap[i] = m++;
  const lms = new Int32Array(m);
  for (let i = 1, j = 0; i < n; i++) if (ls[i - 1] === 0 && ls[i] === 1) lms[j++] = i;
  yield;
  yield* induce(lms);
  if (m > 0) {
    const sorted = new Int32Array(m);
    for (let i = 0, j = 0; i < n; i++) if (lmsMap[sa[i]!] !== -1) sorted[j++] = sa[i]!;
    const rec = new Int32Array(m);
    let recUpper = 0;
    rec[lmsMap[sorted[0]!]!] = 0;
    for (let i = 1; i < m; i++) {
      let l = sorted[i - 1]!;
      let r = sorted[i]!;
      const endL = lmsMap[l]! + 1 < m ? lms[lmsMap[l]! + 1]! : n;
      const endR = lmsMap[r]! + 1 < m ? lms[lmsMap[r]! + 1]! : n;
      let same = true;
      if (endL - l !== endR - r) same = false;
      else {
        while (l < endL && s[l] === s[r]) {
          l++;
          r++;
        }
        if (l === n || s[l] !== s[r]) same = false;
      }
      if (!same) recUpper++;
      rec[lmsMap[sorted[i]!]!] = recUpper;
      if ((i + 1) % STEP_SYMBOLS === 0) yield;
    }
    yield;
    const recSa = yield* saIsSteps(rec, recUpper);
    for (let i = 0; i < m; i++) sorted[i] = lms[recSa[i]!]!;
    yield;
    yield* induce(sorted);
  }
  return sa;
}

/** Suffix array of the marked text's symbols (0..65 536): ranks the symbols present, then SA-IS. */
export function suffixArray(s: Int32Array): Int32Array {
  return drain(suffixArraySteps(s));
}

/** suffixArray, pausing between passes (see the header). */
export function* suffixArraySteps(s: Int32Array): Generator<void, Int32Array, void> {
  const rankOf = new Int32Array(65_538);
  for (let i = 0; i < s.length; i++) rankOf[s[i]!] = 1;
  let d = 0;
  for (let c = 0; c < rankOf.length; c++) if (rankOf[c] === 1) rankOf[c] = d++;
  const ranked = new Int32Array(s.length);
  for (let i = 0; i < s.length; i++) ranked[i] = rankOf[s[i]!]!;
  yield;
  return yield* saIsSteps(ranked, Math.max(0, d - 1));
}

/** Kasai et al. (2001): lcp[j] = longest common prefix of suffixes sa[j − 1] and sa[j] (lcp[0] = 0), O(n). */
export function lcpArray(s: Int32Array, sa: Int32Array): Int32Array {
  return drain(lcpArraySteps(s, sa));
}

/** lcpArray, pausing every `STEP_SYMBOLS` suffixes (the loop's state, h, carries across a pause). */
export function* lcpArraySteps(s: Int32Array, sa: Int32Array): Generator<void, Int32Array, void> {
  const n = s.length;
  const rank = new Int32Array(n);
  for (let j = 0; j < n; j++) rank[sa[j]!] = j;
  yield;
  const lcp = new Int32Array(n);
  let h = 0;
  for (let i = 0; i < n; i++) {
    if ((i + 1) % STEP_SYMBOLS === 0) yield;
    const r = rank[i]!;
    if (r === 0) {
      h = 0;
      continue;
    }
    const j = sa[r - 1]!;
    while (i + h < n && j + h < n && s[i + h] === s[j + h]) h++;
    lcp[r] = h;
    if (h > 0) h--;
  }
  return lcp;
}
