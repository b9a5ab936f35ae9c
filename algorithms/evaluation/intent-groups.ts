/**
 * Near-duplicate intent groups and grouped folds, for validating a fit the way it will be used: a request
 * repeated with small changes ("deploy to prod" / "deploy to prod now") is one group, and a group is never
 * split between training and held-out data, so a held-out request has no twin in training.
 *
 * intentGroups(items):
 *   tokens(x)   = the set of tokenize(intent) (search/tokenize.ts: lowercase, stopwords dropped, light stems)
 *   J(x, y)     = |tokens(x) ∩ tokens(y)| / |tokens(x) ∪ tokens(y)|                   (Jaccard)
 *   x ~ y  iff  J ≥ duplicateJaccard (0.5)
 *           or  J ≥ sameToolsJaccard (0.25) and x and y used the same non-empty set of tools
 *   groups      = the connected components of ~ (union–find); an intent without tokens is grouped with the
 *                 intents of the same trimmed, lowercased text only.
 * Candidate pairs come from prefix filtering: with tokens ordered by ascending document frequency (ties by
 * text), two sets with J ≥ t share a token among the first |x| − ⌈t·|x|⌉ + 1 of each (Bayardo, Ma & Srikant,
 * "Scaling up all pairs similarity search", WWW 2007; Chaudhuri, Ganti & Kaushik, ICDE 2006), so every pair
 * at or above the lower threshold is found without comparing all pairs.
 *
 * groupFolds(groups, k): groups, largest first (ties by the FNV-1a hash of the group's key, then the key),
 * each go to the fold with the fewest items so far (ties: lowest fold). Deterministic, balanced to within one
 * group's size, and independent of the order of the items (a group's key is its smallest member key).
 *
 * Invariants: identical token sets share a group; members of one group share a fold; the groups and folds do
 * not depend on the order of the items (up to the numbering of groups, which follows first appearance);
 * every fold is non-empty when there are at least k groups.
 *
 * Why: docs/decisions/search-weight-fitting.md (a fit scored on held-out executions whose twins stayed in
 * training learned that descriptions do not matter).
 */
import { tokenize } from "../search/tokenize.ts";
import { EvaluationError } from "./errors.ts";

export const DEFAULTS = {
  /** Jaccard of intent tokens at or above which two intents are near-duplicates. */
  duplicateJaccard: 0.5,
  /** Lower Jaccard that still groups two intents when they used the same set of tools. */
  sameToolsJaccard: 0.25,
  /** Folds of groupFolds. */
  folds: 5,
} as const;

export interface IntentItem {
  readonly intent: string;
  /** Tools the execution used (order and repeats ignored); absent or empty: the same-tools rule does not apply. */
  readonly tools?: readonly string[] | undefined;
}

export interface IntentGroupOptions {
  /** Default 0.5. */
  readonly duplicateJaccard?: number;
  /** Default 0.25 (≤ duplicateJaccard). */
  readonly sameToolsJaccard?: number;
}

export interface IntentGroups {
  /** Group of each item, 0..count−1, numbered by first appearance. */
  readonly group: Int32Array;
  readonly count: number;
  /** Per group, its key: the smallest token key (sorted tokens joined by a space) among its members. */
  readonly keys: readonly string[];
}

const MODULE = "intent-groups";

/** 32-bit FNV-1a of a string. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function find(parent: Int32Array, x: number): number {
  while (parent[x] !== x) {
    parent[x] = parent[parent[x]!]!;
    x = parent[x]!;
  }
  return x;
}

/** Near-duplicate intent groups (see the header). */
export function intentGroups(items: readonly IntentItem[], options: IntentGroupOptions = {}): IntentGroups {
  const steps = intentGroupsSteps(items, options);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Items (or nodes) between two yields of `intentGroupsSteps`. */
const STEP_ITEMS = 500;
/** Candidate pairs compared between two yields (a node can meet thousands: common words, shared tool sets). */
const STEP_PAIRS = 2000;

/**
 * `intentGroups` in steps: yields every STEP_ITEMS items or nodes and every STEP_PAIRS pairs compared, and
 * returns the same groups, so that a caller on an event loop can let other work in (17.5k items are ~100 ms).
 */
export function* intentGroupsSteps(
  items: readonly IntentItem[],
  options: IntentGroupOptions = {},
): Generator<void, IntentGroups, void> {
  const dup = options.duplicateJaccard ?? DEFAULTS.duplicateJaccard;
  const low = options.sameToolsJaccard ?? DEFAULTS.sameToolsJaccard;
  if (!(dup > 0 && dup <= 1))
    throw new EvaluationError(MODULE, "bad-threshold", `duplicateJaccard must be in (0, 1], got ${dup}`);
  if (!(low > 0 && low <= dup))
    throw new EvaluationError(MODULE, "bad-threshold", `sameToolsJaccard must be in (0, duplicateJaccard], got ${low}`);
  // Distinct token sets are the nodes; items map onto them.
  const nodeOf = new Map<string, number>();
  const nodeTokens: string[][] = [];
  const nodeTools: Set<string>[] = [];
  const itemNode = new Int32Array(items.length);
  // Agents repeat their requests: each distinct intent text is tokenized once (17.5k items, ~1.5k texts).
  const keyOfText = new Map<string, { tokens: string[]; key: string }>();
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % STEP_ITEMS === 0) yield;
    const it = items[i]!;
    let known = keyOfText.get(it.intent);
    if (known === undefined) {
      const t = [...new Set(tokenize(it.intent))].sort();
      known = { tokens: t, key: t.length > 0 ? t.join(" ") : `\u0000${it.intent.trim().toLowerCase()}` };
      keyOfText.set(it.intent, known);
    }
    const { tokens, key } = known;
    let node = nodeOf.get(key);
    if (node === undefined) {
      node = nodeTokens.length;
      nodeOf.set(key, node);
      nodeTokens.push(tokens);
      nodeTools.push(new Set());
    }
    itemNode[i] = node;
    const tools = [...new Set(it.tools ?? [])].sort();
    if (tools.length > 0) nodeTools[node]!.add(tools.join("\u0000"));
  }
  yield;
  const keys = [...nodeOf.keys()];
  const n = nodeTokens.length;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  // Prefix filtering at the lower threshold: tokens by ascending document frequency, ties by text.
  const df = new Map<string, number>();
  for (const t of nodeTokens) for (const w of t) df.set(w, (df.get(w) ?? 0) + 1);
  const rare = (a: string, b: string) => df.get(a)! - df.get(b)! || (a < b ? -1 : a > b ? 1 : 0);
  const postings = new Map<string, number[]>();
  let pairs = 0;
  for (let x = 0; x < n; x++) {
    if (x > 0 && x % STEP_ITEMS === 0) yield;
    const t = nodeTokens[x]!;
    if (t.length === 0) continue;
    const ordered = [...t].sort(rare);
    const prefix = t.length - Math.ceil(low * t.length - 1e-9) + 1;
    const seen = new Set<number>();
    const mine = new Set(t);
    for (let p = 0; p < prefix; p++) {
      const w = ordered[p]!;
      const list = postings.get(w);
      if (list) {
        for (const y of list) {
          if (seen.has(y)) continue;
          seen.add(y);
          if (++pairs % STEP_PAIRS === 0) yield;
          const other = nodeTokens[y]!;
          let inter = 0;
          for (const v of other) if (mine.has(v)) inter++;
          const j = inter / (t.length + other.length - inter);
          if (j >= dup || (j >= low && sharesToolSet(nodeTools[x]!, nodeTools[y]!))) {
            const rx = find(parent, x);
            const ry = find(parent, y);
            if (rx !== ry) parent[Math.max(rx, ry)] = Math.min(rx, ry);
          }
        }
        list.push(x);
      } else postings.set(w, [x]);
    }
  }
  // Groups numbered by first appearance among the items; a group's key is its smallest node key.
  const groupOfRoot = new Map<number, number>();
  const groupKeys: string[] = [];
  const group = new Int32Array(items.length);
  yield;
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % STEP_ITEMS === 0) yield;
    const node = itemNode[i]!;
    const root = find(parent, node);
    let g = groupOfRoot.get(root);
    if (g === undefined) {
      g = groupKeys.length;
      groupOfRoot.set(root, g);
      groupKeys.push(keys[node]!);
    } else if (keys[node]! < groupKeys[g]!) groupKeys[g] = keys[node]!;
    group[i] = g;
  }
  return { group, count: groupKeys.length, keys: groupKeys };
}

function sharesToolSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  for (const k of small) if (big.has(k)) return true;
  return false;
}

/** Fold (0..k−1) of each item: whole groups dealt to the least-filled fold (see the header). */
export function groupFolds(groups: IntentGroups, k: number = DEFAULTS.folds): Int32Array {
  if (!Number.isInteger(k) || k < 2)
    throw new EvaluationError(MODULE, "bad-folds", `folds must be an integer ≥ 2, got ${k}`);
  const size = new Int32Array(groups.count);
  for (const g of groups.group) size[g]!++;
  const order = Array.from({ length: groups.count }, (_, g) => g).sort((x, y) => {
    const kx = groups.keys[x]!;
    const ky = groups.keys[y]!;
    return size[y]! - size[x]! || fnv1a(kx) - fnv1a(ky) || (kx < ky ? -1 : kx > ky ? 1 : 0);
  });
  const load = new Float64Array(k);
  const foldOfGroup = new Int32Array(groups.count);
  for (const g of order) {
    let best = 0;
    for (let f = 1; f < k; f++) if (load[f]! < load[best]!) best = f;
    foldOfGroup[g] = best;
    load[best]! += size[g]!;
  }
  return Int32Array.from(groups.group, (g) => foldOfGroup[g]!);
}
