/**
 * Data-flow evidence between the calls of one execution: step j depends on an earlier step i when one of
 * j's argument values is a value that i *returned* — real evidence that i's output fed j, stronger than
 * mere succession.
 *
 * Precisely:
 * - Candidate values of a call's arguments are its leaves (recursively through arrays and objects, at most
 *   `maxValues` of them): strings of at least `minStringLength` characters after trimming, and finite
 *   numbers whose decimal text has at least `minNumberDigits` characters (so flags, counters and indices
 *   0-9 never count).
 * - What a step returned is its result's `structuredContent` leaves (strings and numbers, as above) and the
 *   text of its `text` content blocks (the first `maxTextChars` characters).
 * - A string value matches step i when it equals a string leaf of i's structuredContent, or occurs in i's
 *   text at word boundaries (the characters either side are not letters or digits). A number matches when
 *   it equals a number leaf, or its decimal text occurs in i's text at word boundaries.
 * - Echoes do not count: a value that also appears among step i's own argument values was the caller's,
 *   not i's output, and matches nothing of i.
 * - Steps that failed (isError, exception, timeout) returned nothing usable and are never depended on.
 * - Characters are UTF-16 code units; a word character is one that `/[\p{L}\p{N}]/u` matches on its own
 *   (so each half of a surrogate pair is not a word character). A value starting (ending) with a non-word
 *   character needs no boundary on that side.
 *
 * Cost (docs/decisions/data-flow-matching.md): each step's text is indexed once, when the step is
 * recorded, and a value is looked up in that index instead of scanning the text.
 * - The text becomes runs (maximal stretches of word or of non-word characters) with a marker between
 *   runs and at both ends: `⟨M⟩run⟨M⟩run…⟨M⟩`. A value occurs at word boundaries exactly when its pattern
 *   occurs in that marked text: its runs joined by markers, with a marker in front when it starts with a
 *   word character and one behind when it ends with one. (A marker in front of a word character in the
 *   marked text means "text start, or a non-word character before it"; likewise behind.)
 * - The index is a suffix array of the marked text, keeping only the suffixes a pattern can start at (a
 *   marker before a word character, or a non-word character), with the lcp of each binary-search probe
 *   against its two bounds. Building it is O(n) for a text of n characters (induced sorting, SA-IS, and
 *   Kasai's lcps); a lookup is a binary search that never matches a pattern symbol twice: O(|pattern| +
 *   log n), whatever the text repeats. A value repeated among a call's arguments is looked up once.
 * - Work cap: one call spends at most `maxWork` units (one per value × step pair, one per probe of a
 *   lookup, one per symbol matched). Steps are examined from the most recent back; when the budget is
 *   spent, the older steps not yet examined are not listed (the detailed variant says `truncated: true`).
 *   This is the one departure from the rules above, and it only happens past the cap.
 */
import { drain, lcpArraySteps, STEP_SYMBOLS, suffixArraySteps } from "./suffix-array.ts";

export const DATA_FLOW_DEFAULTS = {
  minStringLength: 4,
  minNumberDigits: 2,
  maxValues: 256,
  maxTextChars: 65_536,
  maxWork: 2_000_000,
} as const;

export interface DataFlowOptions {
  /** Shortest string argument that counts as data. Default 4. */
  minStringLength?: number;
  /** Fewest characters in a number's decimal text for it to count. Default 2. */
  minNumberDigits?: number;
  /** Most leaf values read from one argument object or result. Default 256. */
  maxValues?: number;
  /** Most characters of a result's text searched. Default 65 536. */
  maxTextChars?: number;
  /**
   * Most work units one call's matching may spend (a unit per value × earlier-step pair, per probe and per
   * symbol matched in a text lookup); older steps past the cap are not examined. Default 2 000 000
   * (docs/decisions/data-flow-matching.md: 11.5 ms of CPU at the median when spent).
   */
  maxWork?: number;
}

/**
 * A step's text indexed for word-boundary lookups: the marked text (see the header) and the sorted
 * suffixes a pattern can start at.
 */
export interface TextIndex {
  /** The marked text: code units, with `marker` at each run boundary and at both ends. */
  chars: Uint16Array | Int32Array;
  /** A code unit absent from the text (65 536 in an Int32Array when the text holds every code unit). */
  marker: number;
  /** Positions in `chars` of markers before word characters and of non-word characters, in suffix order. */
  suffixes: Int32Array;
  /** For each binary-search probe k: lcp of suffix k with the range's lower bound, and with its upper bound. */
  lcpLeft: Int32Array;
  lcpRight: Int32Array;
}

/** What one step's result offers to later steps, extracted and indexed once. */
export interface StepOutput {
  strings: Set<string>;
  numbers: Set<number>;
  /** The result's text (first `maxTextChars` characters), indexed. */
  text: TextIndex;
  /** The step's own argument values (echoes of these are not its output). */
  echoes: Set<string>;
}

/** The dependencies of one call, with the work spent finding them. */
export interface DataFlowDetail {
  /** Indices of the earlier steps the call's values came from, ascending. */
  dependsOn: number[];
  /** Work units spent (value × step pairs plus symbols compared). */
  work: number;
  /** True when `maxWork` ran out before every earlier step was examined. */
  truncated: boolean;
}

type Opts = Required<DataFlowOptions>;

function opts(o: DataFlowOptions | undefined): Opts {
  return {
    minStringLength: o?.minStringLength ?? DATA_FLOW_DEFAULTS.minStringLength,
    minNumberDigits: o?.minNumberDigits ?? DATA_FLOW_DEFAULTS.minNumberDigits,
    maxValues: o?.maxValues ?? DATA_FLOW_DEFAULTS.maxValues,
    maxTextChars: o?.maxTextChars ?? DATA_FLOW_DEFAULTS.maxTextChars,
    maxWork: o?.maxWork ?? DATA_FLOW_DEFAULTS.maxWork,
  };
}

/** The candidate leaf values of a JSON value: strings (trimmed) and numbers that are long enough to count. */
export function leafValues(value: unknown, options?: DataFlowOptions): (string | number)[] {
  const o = opts(options);
  const out: (string | number)[] = [];
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0 && out.length < o.maxValues && seen < o.maxValues * 16) {
    const v = stack.pop();
    seen++;
    if (typeof v === "string") {
      const s = v.trim();
      if (s.length >= o.minStringLength) out.push(s);
    } else if (typeof v === "number") {
      if (Number.isFinite(v) && String(v).length >= o.minNumberDigits) out.push(v);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (v !== null && typeof v === "object") {
      const vals = Object.values(v as Record<string, unknown>);
      for (let i = vals.length - 1; i >= 0; i--) stack.push(vals[i]);
    }
  }
  return out;
}

const key = (v: string | number) => (typeof v === "number" ? `n:${v}` : `s:${v}`);

/**
 * Whether a code unit is a letter or digit, memoised per code unit: a fixed property of the engine's
 * Unicode tables, so the memo needs no version key.
 */
const wordUnit = new Uint8Array(65_536); // 0 not yet known, 1 word, 2 not a word character
function isWordUnit(cu: number): boolean {
  let t = wordUnit[cu]!;
  if (t === 0) {
    t = /[\p{L}\p{N}]/u.test(String.fromCharCode(cu)) ? 1 : 2;
    wordUnit[cu] = t;
  }
  return t === 1;
}

/**
 * For each probe `mid` of the binary search over [lo, hi) (bounds lo − 1 below and hi above, each probe
 * the midpoint of exactly one range): left[mid] = lcp(suffix lo − 1, suffix mid), right[mid] =
 * lcp(suffix mid, suffix hi), 0 against a missing bound. `adj[k]` is the lcp of suffixes k − 1 and k
 * (adj[0] = adj[N] = 0). Returns the least of adj[lo..hi].
 */
function searchTreeLcps(adj: Int32Array, left: Int32Array, right: Int32Array, lo: number, hi: number): number {
  if (lo >= hi) return adj[lo]!;
  const mid = (lo + hi) >>> 1;
  const a = searchTreeLcps(adj, left, right, lo, mid);
  const b = searchTreeLcps(adj, left, right, mid + 1, hi);
  left[mid] = a;
  right[mid] = b;
  return a < b ? a : b;
}

/** Indexes a text for `occursInIndex` (see the header): once per step. */
export function indexText(text: string): TextIndex {
  return drain(indexTextSteps(text));
}

/**
 * indexText as a generator that pauses after every pass over the text, and every `STEP_SYMBOLS` symbols of a
 * pass (suffix-array.ts): the same index, built in steps of bounded work so that a caller on an event loop can
 * yield between them (a 65,000-character result is 10–20 ms of CPU in one piece).
 */
export function* indexTextSteps(text: string): Generator<void, TextIndex, void> {
  const n = text.length;
  // The marker: the smallest code unit absent from the text (one of 0..n is, while n < 65 536).
  const present = new Uint8Array(Math.min(n, 65_535) + 1);
  let runs = 0;
  let prevWord = false;
  for (let i = 0; i < n; i++) {
    const cu = text.charCodeAt(i);
    if (cu < present.length) present[cu] = 1;
    const w = isWordUnit(cu);
    if (i === 0 || w !== prevWord) runs++;
    prevWord = w;
    if ((i + 1) % STEP_SYMBOLS === 0) yield;
  }
  // Symbols for sorting: the marker is 0 (below every character), a code unit c is c + 1.
  const sym = new Int32Array(n + runs + 1);
  let p = 0;
  sym[p++] = 0;
  for (let i = 0; i < n; i++) {
    const cu = text.charCodeAt(i);
    if (i > 0 && isWordUnit(cu) !== isWordUnit(text.charCodeAt(i - 1))) sym[p++] = 0;
    sym[p++] = cu + 1;
    if ((i + 1) % STEP_SYMBOLS === 0) yield;
  }
  if (n > 0) sym[p++] = 0;
  const sa = yield* suffixArraySteps(sym);
  const lcp = yield* lcpArraySteps(sym, sa);
  // A pattern starts with a marker followed by a word character, or with a non-word character.
  const canStart = (at: number) => {
    const c = sym[at]!;
    if (c !== 0) return !isWordUnit(c - 1);
    return at + 1 < sym.length && isWordUnit(sym[at + 1]! - 1);
  };
  let kept = 0;
  for (let j = 0; j < sa.length; j++) if (canStart(sa[j]!)) kept++;
  yield;
  // The kept suffixes in order, and adj[k] = lcp(kept k − 1, kept k): the least adjacent lcp between them.
  const suffixes = new Int32Array(kept);
  const adj = new Int32Array(kept + 1);
  kept = 0;
  let least = 0;
  for (let j = 0; j < sa.length; j++) {
    least = j === 0 ? 0 : Math.min(least, lcp[j]!);
    if (canStart(sa[j]!)) {
      adj[kept] = kept === 0 ? 0 : least;
      suffixes[kept++] = sa[j]!;
      least = Number.MAX_SAFE_INTEGER;
    }
    if ((j + 1) % STEP_SYMBOLS === 0) yield;
  }
  const lcpLeft = new Int32Array(kept);
  const lcpRight = new Int32Array(kept);
  searchTreeLcps(adj, lcpLeft, lcpRight, 0, kept);
  yield;
  let marker = present.indexOf(0);
  const chars = marker >= 0 ? new Uint16Array(sym.length) : new Int32Array(sym.length);
  if (marker < 0) marker = 65_536;
  for (let i = 0; i < sym.length; i++) chars[i] = sym[i] === 0 ? marker : sym[i]! - 1;
  return { chars, marker, suffixes, lcpLeft, lcpRight };
}

/** A value's pattern in the marked-text symbols (marker 0, code unit c as c + 1); empty for "". */
function patternOf(needle: string): Int32Array {
  const n = needle.length;
  if (n === 0) return new Int32Array(0);
  let runs = 0;
  for (let i = 1; i < n; i++) if (isWordUnit(needle.charCodeAt(i)) !== isWordUnit(needle.charCodeAt(i - 1))) runs++;
  const first = isWordUnit(needle.charCodeAt(0));
  const last = isWordUnit(needle.charCodeAt(n - 1));
  const out = new Int32Array(n + runs + (first ? 1 : 0) + (last ? 1 : 0));
  let p = 0;
  if (first) out[p++] = 0;
  for (let i = 0; i < n; i++) {
    const cu = needle.charCodeAt(i);
    if (i > 0 && isWordUnit(cu) !== isWordUnit(needle.charCodeAt(i - 1))) out[p++] = 0;
    out[p++] = cu + 1;
  }
  if (last) out[p++] = 0;
  return out;
}

/** A work counter a lookup adds to. */
interface Work {
  units: number;
}

/**
 * Whether `pattern` starts one of the index's suffixes: binary search with the lcps of each probe against
 * its bounds (Manber & Myers, "Suffix arrays: a new method for on-line string searches", 1993), so no
 * symbol of the pattern is matched twice: O(|pattern| + log n). Adds the symbols compared, and one per
 * probe, to `work`.
 */
function occursInIndex(ix: TextIndex, pattern: Int32Array, work: Work): boolean {
  const m = pattern.length;
  if (m === 0) return false;
  const { chars, marker, suffixes, lcpLeft, lcpRight } = ix;
  const end = chars.length;
  let lo = 0;
  let hi = suffixes.length;
  // The pattern's lcp with the suffix below the range (lo − 1) and above it (hi).
  let lcpLo = 0;
  let lcpHi = 0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    work.units++;
    let l: number;
    if (lcpLo >= lcpHi) {
      const x = lcpLeft[mid]!;
      // Agrees with the lower bound past where the pattern left it: below the pattern too.
      if (x > lcpLo) {
        lo = mid + 1;
        continue;
      }
      // Leaves the lower bound (and so the pattern) upwards before the pattern does.
      if (x < lcpLo) {
        hi = mid;
        lcpHi = x;
        continue;
      }
      l = lcpLo;
    } else {
      const x = lcpRight[mid]!;
      if (x > lcpHi) {
        hi = mid;
        continue;
      }
      if (x < lcpHi) {
        lo = mid + 1;
        lcpLo = x;
        continue;
      }
      l = lcpHi;
    }
    const start = suffixes[mid]!;
    const from = l;
    let sym = -1;
    while (l < m) {
      const at = start + l;
      if (at >= end) {
        sym = -1;
        break;
      }
      const c = chars[at]!;
      sym = c === marker ? 0 : c + 1;
      if (sym !== pattern[l]) break;
      l++;
    }
    work.units += l - from;
    if (l === m) return true;
    if (sym < pattern[l]!) {
      lo = mid + 1;
      lcpLo = l;
    } else {
      hi = mid;
      lcpHi = l;
    }
  }
  return false;
}

/** Extracts what a step returned (and its own arguments, to recognise echoes), indexing its text. */
export function stepOutput(
  args: unknown,
  result: { content?: unknown; structuredContent?: unknown } | undefined,
  options?: DataFlowOptions,
): StepOutput {
  return drain(stepOutputSteps(args, result, options));
}

/** stepOutput in steps of bounded work (indexTextSteps): the same output. */
export function* stepOutputSteps(
  args: unknown,
  result: { content?: unknown; structuredContent?: unknown } | undefined,
  options?: DataFlowOptions,
): Generator<void, StepOutput, void> {
  const o = opts(options);
  const strings = new Set<string>();
  const numbers = new Set<number>();
  for (const v of leafValues(result?.structuredContent, o)) {
    if (typeof v === "number") numbers.add(v);
    else strings.add(v);
  }
  let text = "";
  if (Array.isArray(result?.content)) {
    for (const block of result.content as { type?: unknown; text?: unknown }[]) {
      if (text.length >= o.maxTextChars) break;
      if (block?.type === "text" && typeof block.text === "string") text += `${text ? "\n" : ""}${block.text}`;
    }
  }
  return {
    strings,
    numbers,
    text: yield* indexTextSteps(text.slice(0, o.maxTextChars)),
    echoes: new Set(leafValues(args, o).map(key)),
  };
}

/** True when `needle` occurs in `hay` with no letter or digit right before or after it (indexes `hay`). */
export function occursAsWord(hay: string, needle: string): boolean {
  return occursInIndex(indexText(hay), patternOf(needle), { units: 0 });
}

/**
 * Indices of the earlier steps whose output one of `args`' values came from (ascending), with the work
 * spent. `earlier[i]` is step i's output, or undefined for a failed step.
 */
export function dataFlowDependenciesDetailed(
  args: unknown,
  earlier: readonly (StepOutput | undefined)[],
  options?: DataFlowOptions,
): DataFlowDetail {
  const o = opts(options);
  // A value repeated among the arguments is looked up once.
  const unique = new Map<string, string | number>();
  for (const v of leafValues(args, o)) if (!unique.has(key(v))) unique.set(key(v), v);
  const keys = [...unique.keys()];
  const values = [...unique.values()];
  const work: Work = { units: 0 };
  if (values.length === 0) return { dependsOn: [], work: 0, truncated: false };
  const patterns: (Int32Array | undefined)[] = new Array(values.length);
  const deps: number[] = [];
  let truncated = false;
  steps: for (let i = earlier.length - 1; i >= 0; i--) {
    const out = earlier[i];
    if (!out) continue;
    for (let v = 0; v < values.length; v++) {
      if (work.units >= o.maxWork) {
        truncated = true;
        break steps;
      }
      work.units++;
      const value = values[v]!;
      if (out.echoes.has(keys[v]!)) continue;
      if (typeof value === "number" ? out.numbers.has(value) : out.strings.has(value)) {
        deps.push(i);
        break;
      }
      // A value longer than any text searched occurs in none (and is not turned into a pattern).
      if (typeof value === "string" && value.length > o.maxTextChars) continue;
      patterns[v] ??= patternOf(String(value));
      if (occursInIndex(out.text, patterns[v]!, work)) {
        deps.push(i);
        break;
      }
    }
  }
  return { dependsOn: deps.reverse(), work: work.units, truncated };
}

/**
 * Indices of the earlier steps whose output one of `args`' values came from (ascending). `earlier[i]` is
 * step i's output, or undefined for a failed step.
 */
export function dataFlowDependencies(
  args: unknown,
  earlier: readonly (StepOutput | undefined)[],
  options?: DataFlowOptions,
): number[] {
  return dataFlowDependenciesDetailed(args, earlier, options).dependsOn;
}
