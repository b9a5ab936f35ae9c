/**
 * Weighted Adamic–Adar relatedness between a candidate tool u and the context tools, on the undirected
 * view of the CSR graph (N(x) = in- ∪ out-neighbours, edge quality w(x,y) = the larger of the two directed
 * weights, as `undirectedNeighbors` gives).
 *
 *   AA(u,v)   = Σ_{w ∈ N(u) ∩ N(v), |N(w)| ≥ 2}  q(w) / ln|N(w)|   +   λ · w(u,v)
 *   q(w)      = √( w(u,w) · w(v,w) )            geometric mean of the two edge qualities through w
 *   score(u,v)= 1 − exp(−AA(u,v))                in [0, 1), fixed per pair (no dependence on other candidates)
 *   graph(u)  = max_{v ∈ context, v ≠ u} score(u,v)      (default aggregation; `aggregate` may be mean etc.)
 *
 * Conventions: q is the geometric mean, so a path through w is only as strong as both of its edges
 * together (one weak template edge halves the evidence in log space, zero kills it); a common neighbour
 * with |N(w)| ≤ 1 would divide by ln 1 = 0 and is skipped (it cannot occur for u ≠ v, since w then
 * touches both); the direct edge u–v, when present, is added as λ · w(u,v) with λ = `directWeight`
 * (default 1: a direct observed edge of quality 1 counts like a private common neighbour of degree e ≈ 2.7);
 * a context tool equal to u is skipped (self-relatedness is not evidence). The exponential squashing keeps
 * the score stable per query and monotone in AA: AA = 1 → 0.632, AA = 2 → 0.865.
 * Each pair reports its contributing common neighbours (largest contribution first, then id) for
 * explanations.
 *
 * Source: Adamic & Adar, "Friends and neighbors on the Web", Social Networks 25 (2003); weighted variant
 * as in Lü & Zhou, "Link prediction in weighted networks: the role of weak ties", EPL 89 (2010); edge
 * weights as in docs/decisions/edge-quality.md.
 */
import { type Csr, undirectedNeighbors } from "../graph/csr.ts";
import { SearchError } from "./search-error.ts";

export const DEFAULTS = {
  directWeight: 1,
} as const;

export interface AdamicAdarOptions {
  /** λ: multiplier of the direct edge weight added to AA. Default 1. */
  readonly directWeight?: number;
  /** Aggregation of per-context-tool scores into one graph score (input non-empty, each in [0,1]). Default max. */
  readonly aggregate?: (scores: readonly number[]) => number;
}

export interface CommonNeighborContribution {
  /** The common neighbour w. */
  readonly via: number;
  /** Edge quality u–w. */
  readonly weightU: number;
  /** Edge quality v–w. */
  readonly weightV: number;
  /** |N(w)| on the undirected view. */
  readonly degree: number;
  /** q(w) / ln|N(w)|. */
  readonly contribution: number;
}

export interface AdamicAdarPair {
  readonly candidate: number;
  readonly context: number;
  /** Raw AA(u,v) ≥ 0. */
  readonly raw: number;
  /** 1 − exp(−raw), in [0, 1). */
  readonly score: number;
  /** λ · w(u,v) (0 without a direct edge). */
  readonly direct: number;
  readonly contributions: readonly CommonNeighborContribution[];
}

export interface GraphScore {
  readonly candidate: number;
  /** Aggregated score in [0, 1]; 0 with `reason` when there is no usable context. */
  readonly score: number;
  /** Per context tool (context order, u itself skipped). */
  readonly pairs: readonly AdamicAdarPair[];
  readonly reason?: "no-context";
}

/** Prepared context: neighbourhoods of the context tools and a degree cache, reused across candidates. */
export interface AdamicAdarContext {
  readonly graph: Csr;
  readonly context: readonly number[];
  readonly directWeight: number;
  readonly aggregate: (scores: readonly number[]) => number;
  /** Context tool → (neighbour → edge quality). */
  readonly neighborhoods: ReadonlyMap<number, ReadonlyMap<number, number>>;
  /** Undirected degree cache (filled lazily; private to this context object). */
  readonly degrees: Map<number, number>;
}

const MODULE = "adamic-adar";

function checkNode(g: Csr, x: number, what: string): void {
  if (!Number.isInteger(x) || x < 0 || x >= g.n)
    throw new SearchError(MODULE, "bad-node", `${what} ${x} is outside 0..${g.n - 1}`);
}

/** Default aggregation: the maximum. */
export function maxAggregate(scores: readonly number[]): number {
  let m = 0;
  for (const s of scores) if (s > m) m = s;
  return m;
}

/** Alternative aggregation: the arithmetic mean. */
export function meanAggregate(scores: readonly number[]): number {
  if (scores.length === 0) return 0;
  let s = 0;
  for (const x of scores) s += x;
  return s / scores.length;
}

/** Undirected degree |N(x)|: out- plus in-neighbours, counting a reciprocal pair once. */
export function undirectedDegree(g: Csr, x: number): number {
  let i = g.offsets[x]!;
  const iEnd = g.offsets[x + 1]!;
  let j = g.inOffsets[x]!;
  const jEnd = g.inOffsets[x + 1]!;
  let deg = 0;
  while (i < iEnd && j < jEnd) {
    const a = g.targets[i]!;
    const b = g.inSources[j]!;
    if (a === b) {
      i++;
      j++;
    } else if (a < b) i++;
    else j++;
    deg++;
  }
  return deg + (iEnd - i) + (jEnd - j);
}

/** Prepares a context set (duplicates removed, order kept) for scoring many candidates. */
export function prepareAdamicAdar(
  g: Csr,
  context: readonly number[],
  options: AdamicAdarOptions = {},
): AdamicAdarContext {
  const directWeight = options.directWeight ?? DEFAULTS.directWeight;
  if (!Number.isFinite(directWeight) || directWeight < 0) {
    throw new SearchError(MODULE, "bad-direct-weight", `directWeight must be finite and ≥ 0, got ${directWeight}`);
  }
  const ctx: number[] = [];
  const neighborhoods = new Map<number, Map<number, number>>();
  for (const v of context) {
    checkNode(g, v, "context tool");
    if (neighborhoods.has(v)) continue;
    const { ids, weights } = undirectedNeighbors(g, v);
    const m = new Map<number, number>();
    for (let k = 0; k < ids.length; k++) m.set(ids[k]!, weights[k]!);
    neighborhoods.set(v, m);
    ctx.push(v);
  }
  return {
    graph: g,
    context: ctx,
    directWeight,
    aggregate: options.aggregate ?? maxAggregate,
    neighborhoods,
    degrees: new Map(),
  };
}

function degreeOf(ctx: AdamicAdarContext, w: number): number {
  let d = ctx.degrees.get(w);
  if (d === undefined) {
    d = undirectedDegree(ctx.graph, w);
    ctx.degrees.set(w, d);
  }
  return d;
}

function pairFrom(ctx: AdamicAdarContext, u: number, uIds: number[], uWeights: number[], v: number): AdamicAdarPair {
  const nv = ctx.neighborhoods.get(v)!;
  const contributions: CommonNeighborContribution[] = [];
  let raw = 0;
  let directEdge = 0;
  for (let k = 0; k < uIds.length; k++) {
    const w = uIds[k]!;
    if (w === v) {
      directEdge = uWeights[k]!;
      continue;
    }
    const wv = nv.get(w);
    if (wv === undefined) continue;
    const degree = degreeOf(ctx, w);
    if (degree <= 1) continue;
    const wu = uWeights[k]!;
    const contribution = Math.sqrt(wu * wv) / Math.log(degree);
    if (contribution === 0) continue;
    contributions.push({ via: w, weightU: wu, weightV: wv, degree, contribution });
    raw += contribution;
  }
  const direct = ctx.directWeight * directEdge;
  raw += direct;
  contributions.sort((a, b) => (a.contribution !== b.contribution ? b.contribution - a.contribution : a.via - b.via));
  return { candidate: u, context: v, raw, score: 1 - Math.exp(-raw), direct, contributions };
}

/** Graph score of candidate u against the prepared context (see the header). */
export function adamicAdarScore(ctx: AdamicAdarContext, u: number): GraphScore {
  checkNode(ctx.graph, u, "candidate");
  const others = ctx.context.filter((v) => v !== u);
  if (others.length === 0) return { candidate: u, score: 0, pairs: [], reason: "no-context" };
  const { ids, weights } = undirectedNeighbors(ctx.graph, u);
  const pairs = others.map((v) => pairFrom(ctx, u, ids, weights, v));
  const agg = ctx.aggregate(pairs.map((p) => p.score));
  const score = Number.isFinite(agg) ? Math.min(1, Math.max(0, agg)) : 0;
  return { candidate: u, score, pairs };
}

/** AA between one pair u, v (convenience; prefer prepareAdamicAdar for many candidates). */
export function adamicAdar(g: Csr, u: number, v: number, options: AdamicAdarOptions = {}): AdamicAdarPair {
  checkNode(g, u, "candidate");
  const ctx = prepareAdamicAdar(g, [v], options);
  if (u === v) return { candidate: u, context: v, raw: 0, score: 0, direct: 0, contributions: [] };
  const { ids, weights } = undirectedNeighbors(g, u);
  return pairFrom(ctx, u, ids, weights, v);
}
