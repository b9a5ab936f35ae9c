/**
 * The search weights of one project chosen on its own training traces: β (cosine vs BM25 inside the content
 * channel, fusion.ts), μ (intent memory) and w_c (content) of channel-fusion.ts, and the graph weight w_g
 * (hybrid-rank.ts), by a staged grid search that maximises a caller-given objective (the service uses mAP@10
 * of the tools each past execution used, scored leave-one-out):
 *
 *   1. β on betaGrid            with μ = 0, w_c = 1, w_g = 0       (content alone)
 *   2. μ on memoryGrid          with β*, w_c = 1, w_g = 0
 *   3. w_c on contentGrid       with β*, μ_c = μ* if μ* > 0 else max(memoryGrid), w_g = 0; the point w_c = 0
 *      (values below          uses μ = max(memoryGrid) (the same order as any μ > 0, and a final score that
 *      contentFloor dropped)   is the vote itself, which the gate's absolute thresholds expect)
 *   4. w_g on graphGrid         from the best point so far
 *   anchors: each channel alone — content {β*, μ 0, w_c 1, w_g 0}, memory {β*, max(memoryGrid), w_c f, w_g 0}
 *   and graph {β*, μ 0, w_c f, w_g max(graphGrid)}, f = contentFloor (0 by default: the channel truly alone;
 *   with a floor the content channel never leaves, docs/decisions/search-weight-fitting.md). Evaluated once;
 *   most are already points of the stages.
 *
 * Each stage keeps its first best point in grid order (grids list today's defaults first, so a flat curve
 * keeps them: contentGrid starts at 1). The answer is the best of every evaluated point, the earliest on ties.
 *
 * Invariant: the fitted objective ≥ the objective of every evaluated point, in particular of each channel
 * alone (content, memory, graph) — the combination never loses to one of its own channels on the data it is
 * fitted on. Identical weights are evaluated once. Every evaluated w_c is ≥ contentFloor.
 *
 * Source: coordinate-wise grid search (a line search per weight); the channel anchors make the fitted fusion
 * at least as good as its best single component (Bruch, Gai & Ingber, "An analysis of fusion functions for
 * hybrid retrieval", TOIS 2023: a tuned convex combination subsumes each of its inputs).
 */
import { SearchError } from "./search-error.ts";

export interface FusionWeights {
  /** Cosine weight inside the content channel, in [0, 1]. */
  readonly beta: number;
  /** Intent-memory weight μ, in [0, 1]. */
  readonly memoryWeight: number;
  /** Content weight w_c, in [0, 1]. */
  readonly contentWeight: number;
  /** Graph weight w_g, in [0, 1]. */
  readonly graphWeight: number;
}

export const DEFAULTS = {
  betaGrid: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
  memoryGrid: [0, 0.2, 0.4, 0.6, 0.8, 1],
  contentGrid: [1, 0.75, 0.5, 0.25, 0],
  graphGrid: [0, 0.25, 0.5, 1],
} as const;

export interface FitFusionOptions {
  /** β values (stage 1). Default 0, 0.1, …, 1. */
  readonly betaGrid?: readonly number[];
  /** μ values (stage 2). Default 0, 0.2, …, 1. */
  readonly memoryGrid?: readonly number[];
  /** w_c values (stage 3), preferred first on ties. Default 1, 0.75, 0.5, 0.25, 0. */
  readonly contentGrid?: readonly number[];
  /** w_g values (stage 4). Default 0, 0.25, 0.5, 1. */
  readonly graphGrid?: readonly number[];
  /** Lowest content weight evaluated, in [0, 1]: contentGrid values below it are dropped. Default 0. */
  readonly contentFloor?: number;
}

export interface FusionPoint {
  readonly weights: FusionWeights;
  readonly objective: number;
}

export interface FusionFit {
  readonly weights: FusionWeights;
  readonly objective: number;
  /** Per stage, the points in grid order. */
  readonly curves: {
    readonly beta: readonly FusionPoint[];
    readonly memory: readonly FusionPoint[];
    readonly content: readonly FusionPoint[];
    readonly graph: readonly FusionPoint[];
  };
  /** Each channel alone (see the header). */
  readonly channels: { readonly content: FusionPoint; readonly memory: FusionPoint; readonly graph: FusionPoint };
  /** Distinct weight settings evaluated. */
  readonly evaluations: number;
}

const MODULE = "fit-fusion-weights";

function checkGrid(name: string, grid: readonly number[]): readonly number[] {
  if (grid.length === 0) throw new SearchError(MODULE, "bad-grid", `${name} must not be empty`);
  for (const x of grid) if (!(x >= 0 && x <= 1)) throw new SearchError(MODULE, "bad-grid", `${name} values must be in [0, 1], got ${x}`);
  return grid;
}

/** Staged grid search with channel anchors (see the header). `objective` is maximised. */
export async function fitFusionWeights(objective: (w: FusionWeights) => number | Promise<number>, options: FitFusionOptions = {}): Promise<FusionFit> {
  const betaGrid = checkGrid("betaGrid", options.betaGrid ?? DEFAULTS.betaGrid);
  const memoryGrid = checkGrid("memoryGrid", options.memoryGrid ?? DEFAULTS.memoryGrid);
  const allContent = checkGrid("contentGrid", options.contentGrid ?? DEFAULTS.contentGrid);
  const graphGrid = checkGrid("graphGrid", options.graphGrid ?? DEFAULTS.graphGrid);
  const floor = options.contentFloor ?? 0;
  if (!(floor >= 0 && floor <= 1)) throw new SearchError(MODULE, "bad-grid", `contentFloor must be in [0, 1], got ${floor}`);
  const contentGrid = allContent.filter((x) => x >= floor);
  if (contentGrid.length === 0) contentGrid.push(floor);
  const seen = new Map<string, FusionPoint>();
  const order: FusionPoint[] = [];
  const evaluate = async (w: FusionWeights): Promise<FusionPoint> => {
    const key = `${w.beta}|${w.memoryWeight}|${w.contentWeight}|${w.graphWeight}`;
    const hit = seen.get(key);
    if (hit) return hit;
    const value = await objective(w);
    if (!Number.isFinite(value)) throw new SearchError(MODULE, "bad-objective", `objective of ${key} (β|μ|w_c|w_g) is ${value}, not a finite number`);
    const p: FusionPoint = { weights: w, objective: value };
    seen.set(key, p);
    order.push(p);
    return p;
  };
  const stage = async (grid: readonly number[], make: (x: number) => FusionWeights): Promise<{ curve: FusionPoint[]; best: FusionPoint }> => {
    const curve: FusionPoint[] = [];
    for (const x of grid) curve.push(await evaluate(make(x)));
    return { curve, best: curve.reduce((b, p) => (p.objective > b.objective + 1e-12 ? p : b)) };
  };
  const s1 = await stage(betaGrid, (beta) => ({ beta, memoryWeight: 0, contentWeight: 1, graphWeight: 0 }));
  const beta = s1.best.weights.beta;
  const s2 = await stage(memoryGrid, (memoryWeight) => ({ beta, memoryWeight, contentWeight: 1, graphWeight: 0 }));
  const mu = s2.best.weights.memoryWeight > 0 ? s2.best.weights.memoryWeight : Math.max(...memoryGrid);
  const muMax = Math.max(...memoryGrid);
  const s3 = await stage(contentGrid, (contentWeight) => ({ beta, memoryWeight: contentWeight === 0 ? muMax : mu, contentWeight, graphWeight: 0 }));
  const bestSoFar = [s2.best, s3.best].reduce((b, p) => (p.objective > b.objective + 1e-12 ? p : b));
  const s4 = await stage(graphGrid, (graphWeight) => ({ ...bestSoFar.weights, graphWeight }));
  const channels = {
    content: await evaluate({ beta, memoryWeight: 0, contentWeight: 1, graphWeight: 0 }),
    memory: await evaluate({ beta, memoryWeight: muMax, contentWeight: floor, graphWeight: 0 }),
    graph: await evaluate({ beta, memoryWeight: 0, contentWeight: floor, graphWeight: Math.max(...graphGrid) }),
  };
  const best = order.reduce((b, p) => (p.objective > b.objective + 1e-12 ? p : b));
  return {
    weights: best.weights,
    objective: best.objective,
    curves: { beta: s1.curve, memory: s2.curve, content: s3.curve, graph: s4.curve },
    channels,
    evaluations: order.length,
  };
}
