/**
 * Score calibration by isotonic regression, so that high confidence means a high success rate (> 0.8,
 * docs/decisions/gate-thresholds.md). Pool-adjacent-violators (Ayer et al., 1955; Zadrozny & Elkan, KDD 2002,
 * "Transforming
 * classifier scores into accurate multiclass probability estimates"): sort by score, pool equal scores, then
 * merge adjacent blocks while a block's mean success exceeds the next one's. The result is a non-decreasing
 * step map score → P(success) whose value on each block is that block's empirical success rate; so on the
 * fitting data, the answers whose calibrated probability is ≥ p succeed at a rate ≥ p (a union of blocks each
 * with mean ≥ p).
 *
 * Conservative where data are thin: a block's calibrated value is not its empirical rate k/n but a Wilson
 * score lower bound (Wilson, JASA 1927; Brown, Cai & DasGupta, Stat. Sci. 2001)
 *
 *   L(k, n) = (p̂ + z²/2n − z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n),   p̂ = k/n,   default z = 1.96,
 *
 * of the evidence at or below it: p_j = max_{i ≤ j} L(k_i + … + k_j, n_i + … + n_j). Under the isotonic
 * assumption that P(success) does not decrease with the score, P at block j is at least the mean P over the
 * observations of blocks i..j, so each L(i..j) bounds it from below; pooling lets several small adjacent
 * blocks (PAV splits a well-observed high-score region into many) add up their evidence. p_j is
 * non-decreasing in j (adding a block of higher rate raises both the pooled rate and n) and ≤ the block's
 * empirical rate; a score reaches 0.85 only when the evidence does: 9 of 10 → 0.60, 90 of 100 → 0.83,
 * 900 of 1000 → 0.88. Each L is a 97.5 % one-sided bound; the maximum over the nested windows i..j is a
 * little less (a scan over one parameter). `z: 0` gives the plain isotonic fit (p = empirical rate).
 *
 * Minimum per block (`minBlock`, default 1 = off): after pooling, a block of fewer than minBlock
 * observations is merged into its lower neighbour (the first block into the next), repeatedly, until every
 * block has ≥ minBlock observations or one block is left. Merging two adjacent blocks of a non-decreasing
 * fit gives a pooled rate between theirs, so the fit stays non-decreasing; a lone high score among few
 * answers no longer forms a block of its own (jobs/fit-calibration.ts uses 10).
 *
 * Evaluation: the value of the last block starting at or below the score (the lower, conservative block
 * between two blocks); below the first block, the first block's value. An empty fit has no blocks and
 * `reason: "no-data"`; its calibrator is the identity (scores are used uncalibrated).
 */

import { ThresholdError } from "./errors.ts";

const MODULE = "thresholds/calibration";

export interface CalibrationBlock {
  /** Lowest and highest score pooled into the block. */
  readonly lo: number;
  readonly hi: number;
  /** Calibrated probability: best Wilson lower bound of the blocks ending here (= rate when z = 0). */
  readonly p: number;
  /** Empirical success rate of the block (its pooled mean; the plain isotonic value). */
  readonly rate: number;
  /** Number of observations pooled. */
  readonly n: number;
}

export interface Calibration {
  /** Blocks in increasing score order with non-decreasing p. */
  readonly blocks: readonly CalibrationBlock[];
  readonly reason?: "no-data";
}

export interface CalibrationOptions {
  /** Normal quantile of the Wilson lower bound per block. Default 1.96 (95 % two-sided); 0 = empirical rate. */
  readonly z?: number;
  /** Fewest observations per block (smaller blocks merged into a neighbour). Default 1 (no merging). */
  readonly minBlock?: number;
}

export const DEFAULTS = { z: 1.96, minBlock: 1 } as const;

/** Wilson score lower bound of a success rate with k successes in n trials (0 when n = 0). */
export function wilsonLowerBound(k: number, n: number, z: number = DEFAULTS.z): number {
  if (!(n >= 0) || !(k >= 0) || k > n)
    throw new ThresholdError(MODULE, "bad-count", `wilsonLowerBound needs 0 ≤ k ≤ n, got k=${k}, n=${n}`);
  if (!(z >= 0) || !Number.isFinite(z))
    throw new ThresholdError(MODULE, "bad-z", `z must be a finite number ≥ 0, got ${z}`);
  if (n === 0) return 0;
  const p = k / n;
  if (z === 0) return p;
  const z2 = z * z;
  const lb = (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return Math.max(0, Math.min(p, lb));
}

/**
 * Fits the isotonic map from parallel arrays of scores and outcomes (true/1 = success, false/0 = failure),
 * each block valued at the best Wilson lower bound of the pooled blocks ending at it. O(blocks²).
 */
export function fitCalibration(
  scores: readonly number[],
  outcomes: readonly (boolean | number)[],
  options: CalibrationOptions = {},
): Calibration {
  const z = options.z ?? DEFAULTS.z;
  if (!(z >= 0) || !Number.isFinite(z))
    throw new ThresholdError(MODULE, "bad-z", `options.z must be a finite number ≥ 0, got ${z}`);
  if (scores.length !== outcomes.length) {
    throw new ThresholdError(MODULE, "length-mismatch", `${scores.length} scores but ${outcomes.length} outcomes`);
  }
  if (scores.length === 0) return { blocks: [], reason: "no-data" };
  const pairs: { s: number; y: number }[] = [];
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    const raw = outcomes[i]!;
    if (!Number.isFinite(s)) throw new ThresholdError(MODULE, "bad-score", `score #${i} is not finite: ${s}`);
    const y = typeof raw === "boolean" ? (raw ? 1 : 0) : raw;
    if (y !== 0 && y !== 1)
      throw new ThresholdError(MODULE, "bad-outcome", `outcome #${i} must be 0/1/boolean, got ${raw}`);
    pairs.push({ s, y });
  }
  pairs.sort((a, b) => a.s - b.s);
  // Stack of blocks as (lo, hi, successes, n).
  const lo: number[] = [];
  const hi: number[] = [];
  const sum: number[] = [];
  const cnt: number[] = [];
  let i = 0;
  while (i < pairs.length) {
    const s = pairs[i]!.s;
    let ys = 0;
    let n = 0;
    while (i < pairs.length && pairs[i]!.s === s) {
      ys += pairs[i]!.y;
      n++;
      i++;
    }
    lo.push(s);
    hi.push(s);
    sum.push(ys);
    cnt.push(n);
    // Merge while the previous block's mean exceeds the last one's (cross-multiplied: exact for integers).
    while (sum.length >= 2) {
      const k = sum.length - 1;
      if (sum[k - 1]! * cnt[k]! <= sum[k]! * cnt[k - 1]!) break;
      sum[k - 1] = sum[k - 1]! + sum[k]!;
      cnt[k - 1] = cnt[k - 1]! + cnt[k]!;
      hi[k - 1] = hi[k]!;
      lo.pop();
      hi.pop();
      sum.pop();
      cnt.pop();
    }
  }
  const minBlock = options.minBlock ?? DEFAULTS.minBlock;
  if (!Number.isInteger(minBlock) || minBlock < 1)
    throw new ThresholdError(MODULE, "bad-min-block", `options.minBlock must be an integer ≥ 1, got ${minBlock}`);
  for (let j = 0; j < cnt.length && cnt.length > 1; ) {
    if (cnt[j]! >= minBlock) {
      j++;
      continue;
    }
    const into = j > 0 ? j - 1 : 1; // merge j with its lower neighbour (the first block with the next)
    const [a, b] = into < j ? [into, j] : [j, into];
    sum[a] = sum[a]! + sum[b]!;
    cnt[a] = cnt[a]! + cnt[b]!;
    hi[a] = hi[b]!;
    lo.splice(b, 1);
    hi.splice(b, 1);
    sum.splice(b, 1);
    cnt.splice(b, 1);
    j = a;
  }
  let floor = 0;
  return {
    blocks: lo.map((l, j) => {
      // Best lower bound over the windows of blocks i..j (i = j, j − 1, …, 0).
      let ks = 0;
      let ns = 0;
      for (let i = j; i >= 0; i--) {
        ks += sum[i]!;
        ns += cnt[i]!;
        floor = Math.max(floor, wilsonLowerBound(ks, ns, z));
      }
      return { lo: l, hi: hi[j]!, p: floor, rate: sum[j]! / cnt[j]!, n: cnt[j]! };
    }),
  };
}

/** Calibrated probability of `score` (identity for an empty calibration). */
export function calibrate(calibration: Calibration, score: number): number {
  const b = calibration.blocks;
  if (b.length === 0) return score;
  let l = 0;
  let r = b.length - 1;
  if (score < b[0]!.lo) return b[0]!.p;
  // Last block with lo ≤ score.
  while (l < r) {
    const mid = (l + r + 1) >>> 1;
    if (b[mid]!.lo <= score) l = mid;
    else r = mid - 1;
  }
  return b[l]!.p;
}

/** The calibration as a function, for GateOptions.calibrate. */
export function calibrator(calibration: Calibration): (score: number) => number {
  return (score) => calibrate(calibration, score);
}

/** Lowest score whose calibrated probability is ≥ minProbability, or undefined when no block reaches it. */
export function highConfidenceCutoff(calibration: Calibration, minProbability: number): number | undefined {
  for (const block of calibration.blocks) if (block.p >= minProbability) return block.lo;
  return undefined;
}
