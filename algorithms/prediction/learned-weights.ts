/**
 * Learned next-step weights: the fixed weights replaced by weights learned from the project's own outcomes
 * (docs/decisions/next-step-weights.md).
 *
 * Each training example holds the four term values (cooc, community, recency, pagerank) of the true
 * next tool and of negative candidates shown with it. With s_j = w·x_j, the listwise softmax logistic
 * loss of one example is
 *
 *   L(w) = −s_pos + log Σ_{j ∈ {pos} ∪ negatives} exp(s_j)          (Plackett–Luce top-1 / ListNet top-1)
 *   ∇L   = −x_pos + Σ_j p_j x_j,   p_j = softmax(s)_j
 *
 * minimised with mini-batch projected gradient descent (w ← max(0, w − η(∇L + λw))): non-negative weights,
 * L2 penalty λ. Batches are shuffled with the caller's rng, so a seed gives a deterministic result. A
 * held-out slice (`validationFraction`) picks the best epoch by MRR (ties → lower validation loss);
 * epoch 0 is the initial weights, so the result is never worse on the held-out slice than the start.
 *
 * Returned weights are rescaled to sum to 1: the ranking and `confidence` (score / Σ w) of next-step
 * are invariant to a positive scale. Ties in ranking metrics count as expected values under a random
 * tie-break: rank = 1 + #higher + #equal/2, Hit@1 = [#higher = 0] / (1 + #equal).
 *
 * Sources: Cao et al., "Learning to Rank: From Pairwise Approach to Listwise Approach" (ICML 2007);
 * projected gradient for bound constraints (Bertsekas, "Nonlinear Programming", §2.3).
 */
import { mulberry32, type Rng, shuffled } from "../random/rng.ts";
import { drain } from "../timing/drain.ts";
import { DEFAULTS as NEXT_STEP_DEFAULTS, type NextStepTerms, type NextStepWeights, TERM_NAMES } from "./next-step.ts";
import { PredictionError } from "./prediction-error.ts";

const MODULE = "learned-weights";

export interface TrainingExample {
  /** Terms of the tool that actually came next. */
  readonly positive: NextStepTerms;
  /** Terms of the other candidates of the same query. */
  readonly negatives: readonly NextStepTerms[];
}

export interface LearnWeightsOptions {
  /** Starting weights (epoch 0). Default next-step DEFAULTS.weights (0.6, 0.3, 0.1, 0.1). */
  readonly initialWeights?: NextStepWeights;
  /** Step size η. Default 0.5. */
  readonly learningRate?: number;
  /** Passes over the training slice. Default 200. */
  readonly epochs?: number;
  /** Examples per gradient step. Default 32. */
  readonly batchSize?: number;
  /** L2 penalty λ. Default 1e-3. */
  readonly l2?: number;
  /** Share of examples held out for epoch selection, in [0, 1). Default 0.2; 0 = select on training. */
  readonly validationFraction?: number;
  /** Random source for the split and the batch order. Default mulberry32(DEFAULTS.seed). */
  readonly rng?: Rng;
}

export const DEFAULTS = {
  initialWeights: NEXT_STEP_DEFAULTS.weights,
  learningRate: 0.5,
  epochs: 200,
  batchSize: 32,
  l2: 1e-3,
  validationFraction: 0.2,
  seed: 42,
} as const;

export interface RankingMetrics {
  /** Mean reciprocal rank of the positive, ties as expected rank. */
  readonly mrr: number;
  /** Share of examples with the positive ranked first (ties shared). */
  readonly hitAt1: number;
  /** Mean softmax loss at the given (unscaled) weights. */
  readonly loss: number;
}

export interface LearnWeightsReport {
  readonly trainExamples: number;
  readonly validationExamples: number;
  /** False when validation is the training slice (too few examples, or validationFraction 0). */
  readonly heldOut: boolean;
  readonly epochsRun: number;
  /** Gradient steps taken. */
  readonly iterations: number;
  /** Epoch whose weights are returned (0 = the initial weights). */
  readonly bestEpoch: number;
  readonly trainBefore: RankingMetrics;
  readonly trainAfter: RankingMetrics;
  readonly validationBefore: RankingMetrics;
  readonly validationAfter: RankingMetrics;
}

export interface LearnWeightsResult {
  /** Learned weights rescaled to sum to 1 (all 0 only if the optimum is 0). */
  readonly weights: NextStepWeights;
  /** The same before rescaling (the scale the losses in the report refer to). */
  readonly rawWeights: NextStepWeights;
  readonly report: LearnWeightsReport;
  /** Present when nothing was learned (e.g. "no training examples"). */
  readonly reason?: string;
}

type Vec = [number, number, number, number];

function vec(t: NextStepTerms): Vec {
  return [t.cooc, t.community, t.recency, t.pagerank];
}

function toWeights(v: Vec): NextStepWeights {
  return { cooc: v[0], community: v[1], recency: v[2], pagerank: v[3] };
}

function dot(w: Vec, x: Vec): number {
  return w[0] * x[0] + w[1] * x[1] + w[2] * x[2] + w[3] * x[3];
}

interface Prepared {
  readonly pos: Vec;
  readonly negs: Vec[];
}

/** Examples visited between two yields of the steps below (a few ms of work on one core). */
const STEP_EXAMPLES = 1000;

function prepare(examples: readonly TrainingExample[]): Prepared[] {
  return drain(prepareSteps(examples));
}

/** `prepare`, yielding every STEP_EXAMPLES examples. */
function* prepareSteps(examples: readonly TrainingExample[]): Generator<void, Prepared[], void> {
  const out: Prepared[] = [];
  for (let i = 0; i < examples.length; i++) {
    if (i > 0 && i % STEP_EXAMPLES === 0) yield;
    const ex = examples[i]!;
    const pos = vec(ex.positive);
    const negs = ex.negatives.map(vec);
    for (const x of [pos, ...negs]) {
      for (const v of x) {
        if (!Number.isFinite(v)) {
          throw new PredictionError(MODULE, "bad-example", `example ${i} has a non-finite term value ${v}`);
        }
      }
    }
    out.push({ pos, negs });
  }
  return out;
}

function exampleLoss(w: Vec, ex: Prepared): number {
  const sp = dot(w, ex.pos);
  let mx = sp;
  for (const x of ex.negs) mx = Math.max(mx, dot(w, x));
  let z = Math.exp(sp - mx);
  for (const x of ex.negs) z += Math.exp(dot(w, x) - mx);
  return -sp + mx + Math.log(z);
}

function metricsOf(w: Vec, data: readonly Prepared[]): RankingMetrics {
  return drain(metricsSteps(w, data));
}

/** `metricsOf`, yielding every STEP_EXAMPLES examples (the same sums in the same order). */
function* metricsSteps(w: Vec, data: readonly Prepared[]): Generator<void, RankingMetrics, void> {
  if (data.length === 0) return { mrr: 0, hitAt1: 0, loss: 0 };
  let rr = 0;
  let hit = 0;
  let loss = 0;
  for (let i = 0; i < data.length; i++) {
    if (i > 0 && i % STEP_EXAMPLES === 0) yield;
    const ex = data[i]!;
    const sp = dot(w, ex.pos);
    let higher = 0;
    let equal = 0;
    for (const x of ex.negs) {
      const s = dot(w, x);
      if (s > sp) higher++;
      else if (s === sp) equal++;
    }
    rr += 1 / (1 + higher + equal / 2);
    if (higher === 0) hit += 1 / (1 + equal);
    loss += exampleLoss(w, ex);
  }
  return { mrr: rr / data.length, hitAt1: hit / data.length, loss: loss / data.length };
}

/** MRR, Hit@1 and mean softmax loss of `weights` on `examples` (the metrics the report uses). */
export function rankingMetrics(examples: readonly TrainingExample[], weights: NextStepWeights): RankingMetrics {
  return metricsOf([weights.cooc, weights.community, weights.recency, weights.pagerank], prepare(examples));
}

/** Fits non-negative next-step weights by softmax logistic regression. Deterministic for a given rng. */
export function learnWeights(examples: readonly TrainingExample[], options?: LearnWeightsOptions): LearnWeightsResult {
  return drain(learnWeightsSteps(examples, options));
}

/**
 * `learnWeights` in steps: yields the epoch just run at the end of each, and within the preparation, the
 * metrics and each epoch every STEP_EXAMPLES examples (the epoch under way; 0 before the first), and returns
 * the same result. A caller on an event loop resumes it between steps, so a fit of thousands of examples never
 * holds the loop for a whole pass over them (10k examples: a pass is tens of ms).
 */
export function* learnWeightsSteps(
  examples: readonly TrainingExample[],
  options?: LearnWeightsOptions,
): Generator<number, LearnWeightsResult, void> {
  const init = options?.initialWeights ?? DEFAULTS.initialWeights;
  const eta = options?.learningRate ?? DEFAULTS.learningRate;
  const epochs = options?.epochs ?? DEFAULTS.epochs;
  const batchSize = options?.batchSize ?? DEFAULTS.batchSize;
  const l2 = options?.l2 ?? DEFAULTS.l2;
  const valFrac = options?.validationFraction ?? DEFAULTS.validationFraction;
  const rng = options?.rng ?? mulberry32(DEFAULTS.seed);
  for (const k of TERM_NAMES) {
    if (!(Number.isFinite(init[k]) && init[k] >= 0)) {
      throw new PredictionError(MODULE, "bad-weights", `initial weight ${k} = ${init[k]} must be finite and >= 0`);
    }
  }
  if (!(eta > 0 && Number.isFinite(eta))) throw bad(`learningRate = ${eta}`);
  if (!Number.isInteger(epochs) || epochs < 0) throw bad(`epochs = ${epochs}`);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw bad(`batchSize = ${batchSize}`);
  if (!(l2 >= 0 && Number.isFinite(l2))) throw bad(`l2 = ${l2}`);
  if (!(valFrac >= 0 && valFrac < 1)) throw bad(`validationFraction = ${valFrac}`);

  const all = yield* withEpoch(prepareSteps(examples), 0);
  let w: Vec = [init.cooc, init.community, init.recency, init.pagerank];
  const order = shuffled(
    all.map((_, i) => i),
    rng,
  );
  const nVal = Math.floor(all.length * valFrac);
  const heldOut = nVal >= 1 && all.length - nVal >= 1;
  const val = heldOut ? order.slice(0, nVal).map((i) => all[i]!) : all;
  const train = heldOut ? order.slice(nVal).map((i) => all[i]!) : all;

  const trainBefore = yield* withEpoch(metricsSteps(w, train), 0);
  const validationBefore = yield* withEpoch(metricsSteps(w, val), 0);
  if (all.length === 0) {
    return {
      weights: normalised(w),
      rawWeights: toWeights(w),
      report: {
        trainExamples: 0,
        validationExamples: 0,
        heldOut: false,
        epochsRun: 0,
        iterations: 0,
        bestEpoch: 0,
        trainBefore,
        trainAfter: trainBefore,
        validationBefore,
        validationAfter: validationBefore,
      },
      reason: "no training examples",
    };
  }

  let best: Vec = [...w];
  let bestMetrics = validationBefore;
  let bestEpoch = 0;
  let iterations = 0;
  const idx = train.map((_, i) => i);
  const scratch = new Float64Array(1 + train.reduce((m, ex) => Math.max(m, ex.negs.length), 0));
  for (let epoch = 1; epoch <= epochs; epoch++) {
    const perm = shuffled(idx, rng);
    let visited = 0;
    for (let start = 0; start < perm.length; start += batchSize) {
      if (visited >= STEP_EXAMPLES) {
        visited = 0;
        yield epoch - 1;
      }
      visited += batchSize;
      const end = Math.min(perm.length, start + batchSize);
      const grad: Vec = [0, 0, 0, 0];
      for (let b = start; b < end; b++) accumulateGradient(w, train[perm[b]!]!, grad, scratch);
      const inv = 1 / (end - start);
      w = w.map((wk, k) => Math.max(0, wk - eta * (grad[k]! * inv + l2 * wk))) as Vec;
      iterations++;
    }
    const m = yield* withEpoch(metricsSteps(w, val), epoch - 1);
    if (m.mrr > bestMetrics.mrr || (m.mrr === bestMetrics.mrr && m.loss < bestMetrics.loss)) {
      best = [...w];
      bestMetrics = m;
      bestEpoch = epoch;
    }
    yield epoch;
  }
  return {
    weights: normalised(best),
    rawWeights: toWeights(best),
    report: {
      trainExamples: train.length,
      validationExamples: val.length,
      heldOut,
      epochsRun: epochs,
      iterations,
      bestEpoch,
      trainBefore,
      trainAfter: yield* withEpoch(metricsSteps(best, train), epochs),
      validationBefore,
      validationAfter: bestMetrics,
    },
  };
}

/**
 * Adds the softmax loss gradient of one example to `grad`: Σ_j p_j·x_j − x_pos, p = softmax of the scores.
 * `scratch` holds the example's scores then exponentials (no allocation per example: this runs ~10⁶ times per
 * fit); the operations and their order are those of the array version it replaced, so the sums are bit-equal.
 */
function accumulateGradient(w: Vec, ex: Prepared, grad: Vec, scratch: Float64Array): void {
  const negs = ex.negs;
  const m = negs.length;
  if (m === 0) return;
  const e = scratch;
  let mx = dot(w, ex.pos);
  e[0] = mx;
  for (let j = 0; j < m; j++) {
    const s = dot(w, negs[j]!);
    e[j + 1] = s;
    if (s > mx) mx = s;
  }
  let z = 0;
  for (let j = 0; j <= m; j++) {
    const v = Math.exp(e[j]! - mx);
    e[j] = v;
    z += v;
  }
  for (let j = 0; j <= m; j++) {
    const p = e[j]! / z;
    const x = j === 0 ? ex.pos : negs[j - 1]!;
    grad[0] += p * x[0];
    grad[1] += p * x[1];
    grad[2] += p * x[2];
    grad[3] += p * x[3];
  }
  for (let k = 0; k < 4; k++) grad[k] = grad[k]! - ex.pos[k]!;
}

/** Runs `steps`, yielding `epoch` at each of their yields. */
function* withEpoch<R>(steps: Generator<void, R, void>, epoch: number): Generator<number, R, void> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    yield epoch;
  }
}

function normalised(v: Vec): NextStepWeights {
  const s = v[0] + v[1] + v[2] + v[3];
  return s > 0 ? toWeights(v.map((x) => x / s) as Vec) : toWeights([0, 0, 0, 0]);
}

function bad(what: string): PredictionError {
  return new PredictionError(MODULE, "bad-option", `invalid option ${what}`);
}
