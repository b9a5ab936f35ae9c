/**
 * Score calibration by isotonic regression (seed 002 "Confidence Correlation: high confidence = high
 * success rate (> 0.8)"). Pool-adjacent-violators (Ayer et al., 1955; Zadrozny & Elkan, KDD 2002, "Transforming
 * classifier scores into accurate multiclass probability estimates"): sort by score, pool equal scores, then
 * merge adjacent blocks while a block's mean success exceeds the next one's. The result is a non-decreasing
 * step map score → P(success) whose value on each block is that block's empirical success rate; so on the
 * fitting data, the answers whose calibrated probability is ≥ p succeed at a rate ≥ p (a union of blocks each
 * with mean ≥ p).
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
  /** Empirical success rate of the block (the calibrated probability). */
  readonly p: number;
  /** Number of observations pooled. */
  readonly n: number;
}

export interface Calibration {
  /** Blocks in increasing score order with non-decreasing p. */
  readonly blocks: readonly CalibrationBlock[];
  readonly reason?: "no-data";
}

/** Fits the isotonic map from parallel arrays of scores and outcomes (true/1 = success, false/0 = failure). */
export function fitCalibration(scores: readonly number[], outcomes: readonly (boolean | number)[]): Calibration {
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
    if (y !== 0 && y !== 1) throw new ThresholdError(MODULE, "bad-outcome", `outcome #${i} must be 0/1/boolean, got ${raw}`);
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
  return { blocks: lo.map((l, k) => ({ lo: l, hi: hi[k]!, p: sum[k]! / cnt[k]!, n: cnt[k]! })) };
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
