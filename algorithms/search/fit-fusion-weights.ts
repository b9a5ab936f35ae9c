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
 *   5. γ on guardGrid           from stage 4's best, when a guardGrid is given: the history guard's strength
 *                               (history-guard.ts; absent = baseGuard, default 1, in stages 1–4)
 *   anchors: each channel alone — content {β*, μ 0, w_c 1, w_g 0}, memory {β*, max(memoryGrid), w_c f, w_g 0}
 *   and graph {β*, μ 0, w_c f, w_g max(graphGrid)}, f = contentFloor (0 by default: the channel truly alone;
 *   with a floor the content channel never leaves, docs/decisions/search-weight-fitting.md). Evaluated once;
 *   most are already points of the stages.
 *
 * Ties and flat curves: a point counts as best when its objective is within `tolerance` of the best one (gains
 * smaller than that are noise of the sample, not a reason to move). Among those, each stage keeps the value
 * closest to the `preferred` setting's (the caller's defaults; absent: the first in grid order — grids list
 * today's defaults first: contentGrid starts at 1), and the answer is the evaluated point nearest the
 * preferred setting (L1 distance over the four weights; without one, the earliest evaluated). So two samples
 * of the same traffic (e.g. the same history stored in another order) that differ only within the noise choose
 * the same weights, and the smaller change from the defaults wins.
 *
 * Invariant: the fitted objective ≥ the objective of every evaluated point − tolerance, in particular of each
 * channel alone (content, memory, graph) — the combination never loses more than the tolerance to one of its
 * own channels on the data it is fitted on (tolerance 0: never). Identical weights are evaluated once. Every
 * evaluated w_c is ≥ contentFloor.
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
  /** Strength γ of the history guard, in [0, 1] (history-guard.ts). Absent: 1, the full guard. */
  readonly historyGuard?: number;
}

export const DEFAULTS = {
  betaGrid: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
  memoryGrid: [0, 0.2, 0.4, 0.6, 0.8, 1],
  contentGrid: [1, 0.75, 0.5, 0.25, 0],
  graphGrid: [0, 0.25, 0.5, 1],
  /**
   * Objective differences at most this large are ties (docs/decisions/search-weight-fitting.md: 0.005 mAP@10,
   * below the standard error of a fit's gain over ~200 cases).
   */
  tolerance: 0.005,
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
  /** γ values (stage 5), preferred first on ties; absent: no stage 5 (γ stays baseGuard). */
  readonly guardGrid?: readonly number[];
  /** The γ an absent historyGuard stands for (stages 1–4 and the anchors). Default 1. */
  readonly baseGuard?: number;
  /** Objective differences ≤ tolerance are ties (≥ 0). Default 0.005. */
  readonly tolerance?: number;
  /** The setting preferred on ties (the caller's defaults). Default none: grid order, then evaluation order. */
  readonly preferred?: FusionWeights;
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
    /** Empty without a guardGrid. */
    readonly guard: readonly FusionPoint[];
  };
  /** Each channel alone (see the header). */
  readonly channels: { readonly content: FusionPoint; readonly memory: FusionPoint; readonly graph: FusionPoint };
  /** Distinct weight settings evaluated. */
  readonly evaluations: number;
}

const MODULE = "fit-fusion-weights";

function checkGrid(name: string, grid: readonly number[]): readonly number[] {
  if (grid.length === 0) throw new SearchError(MODULE, "bad-grid", `${name} must not be empty`);
  for (const x of grid)
    if (!(x >= 0 && x <= 1)) throw new SearchError(MODULE, "bad-grid", `${name} values must be in [0, 1], got ${x}`);
  return grid;
}

/** Staged grid search with channel anchors (see the header). `objective` is maximised. */
export async function fitFusionWeights(
  objective: (w: FusionWeights) => number | Promise<number>,
  options: FitFusionOptions = {},
): Promise<FusionFit> {
  const betaGrid = checkGrid("betaGrid", options.betaGrid ?? DEFAULTS.betaGrid);
  const memoryGrid = checkGrid("memoryGrid", options.memoryGrid ?? DEFAULTS.memoryGrid);
  const allContent = checkGrid("contentGrid", options.contentGrid ?? DEFAULTS.contentGrid);
  const graphGrid = checkGrid("graphGrid", options.graphGrid ?? DEFAULTS.graphGrid);
  const guardGrid = options.guardGrid === undefined ? undefined : checkGrid("guardGrid", options.guardGrid);
  const floor = options.contentFloor ?? 0;
  if (!(floor >= 0 && floor <= 1))
    throw new SearchError(MODULE, "bad-grid", `contentFloor must be in [0, 1], got ${floor}`);
  const contentGrid = allContent.filter((x) => x >= floor);
  if (contentGrid.length === 0) contentGrid.push(floor);
  const tolerance = options.tolerance ?? DEFAULTS.tolerance;
  if (!(tolerance >= 0)) throw new SearchError(MODULE, "bad-grid", `tolerance must be ≥ 0, got ${tolerance}`);
  const preferred = options.preferred;
  /** The point of `points` nearest the preferred setting among those within the tolerance of the best (first on ties). */
  const pick = (points: readonly FusionPoint[], distance: (w: FusionWeights) => number): FusionPoint => {
    const top = Math.max(...points.map((p) => p.objective));
    const near = points.filter((p) => p.objective >= top - tolerance - 1e-12);
    if (!preferred) return near[0]!;
    return near.reduce((b, p) => (distance(p.weights) < distance(b.weights) - 1e-12 ? p : b));
  };
  const baseGuard = options.baseGuard ?? 1;
  if (!(baseGuard >= 0 && baseGuard <= 1))
    throw new SearchError(MODULE, "bad-grid", `baseGuard must be in [0, 1], got ${baseGuard}`);
  const coordinate = (w: FusionWeights, k: keyof FusionWeights): number =>
    w[k] ?? (k === "historyGuard" ? baseGuard : 1);
  const l1 = (w: FusionWeights) =>
    preferred
      ? (["beta", "memoryWeight", "contentWeight", "graphWeight", "historyGuard"] as const).reduce(
          (d, k) => d + Math.abs(coordinate(w, k) - coordinate(preferred, k)),
          0,
        )
      : 0;
  const seen = new Map<string, FusionPoint>();
  const order: FusionPoint[] = [];
  const evaluate = async (w: FusionWeights): Promise<FusionPoint> => {
    const key = `${w.beta}|${w.memoryWeight}|${w.contentWeight}|${w.graphWeight}|${w.historyGuard ?? baseGuard}`;
    const hit = seen.get(key);
    if (hit) return hit;
    const value = await objective(w);
    if (!Number.isFinite(value))
      throw new SearchError(
        MODULE,
        "bad-objective",
        `objective of ${key} (β|μ|w_c|w_g|γ) is ${value}, not a finite number`,
      );
    const p: FusionPoint = { weights: w, objective: value };
    seen.set(key, p);
    order.push(p);
    return p;
  };
  const stage = async (
    grid: readonly number[],
    make: (x: number) => FusionWeights,
    k: keyof FusionWeights,
  ): Promise<{ curve: FusionPoint[]; best: FusionPoint }> => {
    const curve: FusionPoint[] = [];
    for (const x of grid) curve.push(await evaluate(make(x)));
    return { curve, best: pick(curve, (w) => (preferred ? Math.abs(coordinate(w, k) - coordinate(preferred, k)) : 0)) };
  };
  const s1 = await stage(betaGrid, (beta) => ({ beta, memoryWeight: 0, contentWeight: 1, graphWeight: 0 }), "beta");
  const beta = s1.best.weights.beta;
  const s2 = await stage(
    memoryGrid,
    (memoryWeight) => ({ beta, memoryWeight, contentWeight: 1, graphWeight: 0 }),
    "memoryWeight",
  );
  const mu = s2.best.weights.memoryWeight > 0 ? s2.best.weights.memoryWeight : Math.max(...memoryGrid);
  const muMax = Math.max(...memoryGrid);
  const s3 = await stage(
    contentGrid,
    (contentWeight) => ({ beta, memoryWeight: contentWeight === 0 ? muMax : mu, contentWeight, graphWeight: 0 }),
    "contentWeight",
  );
  const bestSoFar = pick([s2.best, s3.best], l1);
  const s4 = await stage(graphGrid, (graphWeight) => ({ ...bestSoFar.weights, graphWeight }), "graphWeight");
  const s5 = guardGrid
    ? await stage(guardGrid, (historyGuard) => ({ ...s4.best.weights, historyGuard }), "historyGuard")
    : undefined;
  const channels = {
    content: await evaluate({ beta, memoryWeight: 0, contentWeight: 1, graphWeight: 0 }),
    memory: await evaluate({ beta, memoryWeight: muMax, contentWeight: floor, graphWeight: 0 }),
    graph: await evaluate({ beta, memoryWeight: 0, contentWeight: floor, graphWeight: Math.max(...graphGrid) }),
  };
  const best = pick(order, l1);
  return {
    weights: best.weights,
    objective: best.objective,
    curves: { beta: s1.curve, memory: s2.curve, content: s3.curve, graph: s4.curve, guard: s5?.curve ?? [] },
    channels,
    evaluations: order.length,
  };
}
