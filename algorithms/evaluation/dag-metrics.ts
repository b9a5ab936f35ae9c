/**
 * Scores a predicted execution DAG against a gold workflow DAG.
 *
 * Edges are compared as sets of (tool, tool) pairs: gold `[i, j]` over `tools` becomes
 * (tools[i], tools[j]); pairs of a tool with itself are dropped on both sides (a repeated tool cannot
 * be told apart in a tool-level DAG). With `closure: true` both sides are first replaced by their
 * transitive closures (so a transitively reduced prediction is not penalised for implied edges).
 *   precision = TP / |pred| (1 when pred is empty),  recall = TP / |gold| (1 when gold is empty),
 *   F1 = 2PR / (P + R) (0 when P + R = 0) — TaskBench's edge/link F1 (Shen et al. 2023, arXiv 2311.18760);
 *   so both empty ⇒ P = R = F1 = 1, and exactly one empty ⇒ F1 = 0.
 *   exact = (pred edge set = gold edge set).
 *   order consistency = share of gold edges i→j (distinct tools) with pos(tools[i]) < pos(tools[j]) in
 *   the predicted order, pos = first occurrence; a tool missing from the order makes its edges
 *   inconsistent; no such gold edge ⇒ value null with reason "no-gold-edges".
 *   node P/R/F1 over distinct tool sets, same empty-set conventions as edges.
 *   Kendall τ-b between the gold and predicted orders (Kendall 1945; SkillGraph reports τ between predicted and
 *   gold tool orders): over the pairs of distinct gold tools, gold rank = longest-path layer of the gold tool
 *   DAG (tools no gold edge orders share a rank), predicted rank = the caller's (a DAG's layer, a chain's
 *   position; tools in one layer tie, so the order of the input never counts);
 *     τ_b = (C − D) / √((P − T_gold)(P − T_pred)),  P = pairs, C / D = concordant / discordant pairs,
 *     T = pairs tied on that side; a tool missing from the prediction ranks after every predicted one.
 *   null (reason) when the gold orders no pair or its tool edges form a cycle; 0 when the prediction orders none.
 */

import { EvaluationError } from "./errors.ts";

export const DEFAULTS = { closure: false };

export interface GoldDag {
  tools: readonly string[];
  edges: readonly (readonly [number, number])[];
}

export type ToolEdge = readonly [string, string];

export interface EdgeScoreOptions {
  /** Compare transitive closures instead of the edges themselves. Default false. */
  closure?: boolean;
}

export interface SetScores {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface EdgeScores extends SetScores {
  exact: boolean;
}

const SEP = "\u0000";

/** Gold edges as tool pairs (validated; self pairs dropped). */
export function goldToolEdges(gold: GoldDag): ToolEdge[] {
  const n = gold.tools.length;
  const out = new Map<string, ToolEdge>();
  for (const [i, j] of gold.edges) {
    if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j < 0 || i >= n || j >= n) {
      throw new EvaluationError("dag-metrics", "bad-edge", `gold edge [${i}, ${j}] outside 0..${n - 1}`);
    }
    const a = gold.tools[i]!;
    const b = gold.tools[j]!;
    if (a !== b) out.set(a + SEP + b, [a, b]);
  }
  return [...out.values()];
}

function pairKeys(edges: Iterable<ToolEdge>): Set<string> {
  const s = new Set<string>();
  for (const [a, b] of edges) if (a !== b) s.add(a + SEP + b);
  return s;
}

/** Transitive closure of a small tool graph (pairs keyed `from\0to`, self pairs excluded). */
function closureKeys(keys: ReadonlySet<string>): Set<string> {
  const adj = new Map<string, string[]>();
  for (const k of keys) {
    const [a, b] = k.split(SEP) as [string, string];
    const l = adj.get(a);
    if (l === undefined) adj.set(a, [b]);
    else l.push(b);
  }
  const out = new Set<string>();
  for (const start of adj.keys()) {
    const seen = new Set<string>();
    const stack = [...adj.get(start)!];
    while (stack.length > 0) {
      const v = stack.pop()!;
      if (seen.has(v)) continue;
      seen.add(v);
      if (v !== start) out.add(start + SEP + v);
      for (const w of adj.get(v) ?? []) stack.push(w);
    }
  }
  return out;
}

function setScores(gold: ReadonlySet<string>, pred: ReadonlySet<string>): SetScores {
  let tp = 0;
  for (const p of pred) if (gold.has(p)) tp++;
  const fp = pred.size - tp;
  const fn = gold.size - tp;
  const precision = pred.size === 0 ? 1 : tp / pred.size;
  const recall = gold.size === 0 ? 1 : tp / gold.size;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { tp, fp, fn, precision, recall, f1 };
}

/** Edge precision / recall / F1 and exact match of predicted tool edges against the gold DAG. */
export function edgeScores(gold: GoldDag, predicted: readonly ToolEdge[], options: EdgeScoreOptions = {}): EdgeScores {
  let g = pairKeys(goldToolEdges(gold));
  let p = pairKeys(predicted);
  if (options.closure ?? DEFAULTS.closure) {
    g = closureKeys(g);
    p = closureKeys(p);
  }
  const s = setScores(g, p);
  return { ...s, exact: s.fp === 0 && s.fn === 0 };
}

export interface OrderConsistency {
  consistent: number;
  total: number;
  value: number | null;
  reason?: "no-gold-edges";
}

/** Share of gold edges respected by a predicted order of tools (e.g. a topological order). */
export function orderConsistency(gold: GoldDag, predictedOrder: readonly string[]): OrderConsistency {
  const pos = new Map<string, number>();
  predictedOrder.forEach((t, i) => {
    if (!pos.has(t)) pos.set(t, i);
  });
  let total = 0;
  let consistent = 0;
  for (const [a, b] of goldToolEdges(gold)) {
    total++;
    const pa = pos.get(a);
    const pb = pos.get(b);
    if (pa !== undefined && pb !== undefined && pa < pb) consistent++;
  }
  if (total === 0) return { consistent, total, value: null, reason: "no-gold-edges" };
  return { consistent, total, value: consistent / total };
}

/** Node precision / recall / F1 over distinct tools. */
export function nodeScores(goldTools: Iterable<string>, predictedTools: Iterable<string>): SetScores {
  return setScores(new Set(goldTools), new Set(predictedTools));
}

export interface KendallTau {
  value: number | null;
  concordant: number;
  discordant: number;
  pairs: number;
  reason?: "no-gold-order" | "gold-cycle";
}

/** Longest-path layer of each distinct gold tool over the gold tool edges, or null when they form a cycle. */
export function goldLayers(gold: GoldDag): Map<string, number> | null {
  const tools = [...new Set(gold.tools)];
  const preds = new Map<string, string[]>(tools.map((t) => [t, []]));
  for (const [a, b] of goldToolEdges(gold)) preds.get(b)!.push(a);
  const layer = new Map<string, number>();
  const state = new Map<string, 1 | 2>();
  const visit = (t: string): number | null => {
    const st = state.get(t);
    if (st === 2) return layer.get(t)!;
    if (st === 1) return null;
    state.set(t, 1);
    let l = 0;
    for (const p of preds.get(t)!) {
      const lp = visit(p);
      if (lp === null) return null;
      l = Math.max(l, lp + 1);
    }
    state.set(t, 2);
    layer.set(t, l);
    return l;
  };
  for (const t of tools) if (visit(t) === null) return null;
  return layer;
}

/** Kendall τ-b of the header between the gold DAG's layers and `predictedRank` (tool → rank, lower = earlier). */
export function kendallTau(gold: GoldDag, predictedRank: ReadonlyMap<string, number>): KendallTau {
  const g = goldLayers(gold);
  if (g === null) return { value: null, concordant: 0, discordant: 0, pairs: 0, reason: "gold-cycle" };
  const tools = [...g.keys()];
  let missing = 0;
  for (const r of predictedRank.values()) missing = Math.max(missing, r + 1);
  const pr = (t: string) => predictedRank.get(t) ?? missing;
  let c = 0;
  let d = 0;
  let tg = 0;
  let tp = 0;
  let n = 0;
  for (let i = 0; i < tools.length; i++) {
    for (let j = i + 1; j < tools.length; j++) {
      n++;
      const sg = Math.sign(g.get(tools[i]!)! - g.get(tools[j]!)!);
      const sp = Math.sign(pr(tools[i]!) - pr(tools[j]!));
      if (sg === 0) tg++;
      if (sp === 0) tp++;
      if (sg !== 0 && sp !== 0) {
        if (sg === sp) c++;
        else d++;
      }
    }
  }
  if (n - tg === 0) return { value: null, concordant: c, discordant: d, pairs: n, reason: "no-gold-order" };
  if (n - tp === 0) return { value: 0, concordant: c, discordant: d, pairs: n };
  return { value: (c - d) / Math.sqrt((n - tg) * (n - tp)), concordant: c, discordant: d, pairs: n };
}
